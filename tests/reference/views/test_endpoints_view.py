"""reference.views.endpoints through the API: computed on every read, read-only, namespaced, indexed."""

from __future__ import annotations

import copy

import pytest
from ep_builders import named, pod, service

from kube32.reference.app import create_app
from kube32.reference.config import Config
from kube32.reference.views import endpoints as views
from kube32.spec import constants

EP = "/api/v1/namespaces/{ns}/endpoints"
SL = "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"


@pytest.fixture
def app():
    return create_app(Config(run_loops=False))


@pytest.fixture
def cp(app):
    return app.extensions["kube32"]


@pytest.fixture
def client(app):
    return app.test_client()


def _store_pod(cp, p: dict) -> dict:
    p = copy.deepcopy(p)
    for key in ("uid", "resourceVersion"):
        p["metadata"].pop(key, None)
    return cp.store.create("pods", p)


def _store_service(cp, svc: dict) -> dict:
    svc = copy.deepcopy(svc)
    for key in ("uid", "resourceVersion", "creationTimestamp"):
        svc["metadata"].pop(key, None)
    return cp.store.create("services", svc)


def _ensure_ns(cp, ns: str) -> None:
    if cp.store.try_get("namespaces", "", ns) is None:
        cp.store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})


def _ips(endpoints: dict, key: str = "addresses") -> set[str]:
    return {a["ip"] for s in endpoints.get("subsets", []) for a in s.get(key, [])}


def test_pod_change_is_visible_on_the_next_read(cp, client):
    _store_service(cp, service(selector={"app": "web"}))
    stored = _store_pod(cp, pod("a", "10.0.0.1"))
    first = client.get(EP.format(ns="default") + "/web").json
    assert _ips(first) == {"10.0.0.1"}
    stored["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    cp.store.update("pods", stored)
    second = client.get(EP.format(ns="default") + "/web").json
    assert _ips(second) == set()
    assert _ips(second, "notReadyAddresses") == {"10.0.0.1"}
    slices = client.get(SL.format(ns="default")).json["items"]
    assert [e["conditions"]["ready"] for s in slices for e in s["endpoints"]] == [False]


def test_deleting_a_pod_removes_it_at_once(cp, client):
    _store_service(cp, service(selector={"app": "web"}))
    _store_pod(cp, pod("a", "10.0.0.1"))
    _store_pod(cp, pod("b", "10.0.0.2"))
    assert _ips(client.get(EP.format(ns="default") + "/web").json) == {"10.0.0.1", "10.0.0.2"}
    cp.store.delete("pods", "default", "a")
    assert _ips(client.get(EP.format(ns="default") + "/web").json) == {"10.0.0.2"}


def test_list_and_get_agree_and_validate(cp, client):
    _store_service(cp, service(selector={"app": "web"}))
    _store_service(cp, service("plain", selector=None))
    _store_pod(cp, pod("a", "10.0.0.1"))
    listed = client.get(EP.format(ns="default")).json
    assert listed["kind"] == "EndpointsList"
    assert [e["metadata"]["name"] for e in listed["items"]] == ["web"]
    assert listed["items"][0] == client.get(EP.format(ns="default") + "/web").json
    slices = client.get(SL.format(ns="default")).json
    assert slices["kind"] == "EndpointSliceList"
    (sl,) = slices["items"]
    assert client.get(SL.format(ns="default") + "/" + sl["metadata"]["name"]).json == sl


def test_selectorless_service_has_no_endpoints(cp, client):
    _store_service(cp, service("plain", selector=None))
    _store_pod(cp, pod("a", "10.0.0.1"))
    resp = client.get(EP.format(ns="default") + "/plain")
    assert resp.status_code == 404
    assert resp.json["reason"] == "NotFound"
    assert resp.json["message"] == 'endpoints "plain" not found'
    assert client.get(SL.format(ns="default")).json["items"] == []


def test_unknown_slice_names_are_not_found(cp, client):
    _store_service(cp, service(selector={"app": "web"}))
    for name in ("web", "web-zzzzz", "nothing-bbbbb"):
        assert client.get(SL.format(ns="default") + "/" + name).status_code == 404


def test_namespaces_are_isolated(cp, client):
    _ensure_ns(cp, "other")
    _store_service(cp, service(selector={"app": "web"}))
    _store_pod(cp, pod("here", "10.0.0.1"))
    _store_pod(cp, pod("there", "10.0.0.2", namespace="other"))
    assert _ips(client.get(EP.format(ns="default") + "/web").json) == {"10.0.0.1"}
    assert client.get(EP.format(ns="other")).json["items"] == []
    everywhere = client.get("/api/v1/endpoints").json["items"]
    assert [(e["metadata"]["namespace"], e["metadata"]["name"]) for e in everywhere] == [("default", "web")]


def test_slice_list_filters_by_service_name_label(cp, client):
    _store_service(cp, service("a", selector={"app": "a"}))
    _store_service(cp, service("b", selector={"app": "b"}))
    _store_pod(cp, pod("pa", "10.0.0.1", labels={"app": "a"}))
    resp = client.get(SL.format(ns="default"), query_string={"labelSelector": f"{constants.LABEL_SERVICE_NAME}=b"})
    (sl,) = resp.json["items"]
    assert sl["metadata"]["labels"][constants.LABEL_SERVICE_NAME] == "b"
    assert sl["endpoints"] == []          # b's placeholder


def test_named_ports_split_over_http(cp, client):
    _store_service(cp, service(selector={"app": "web"}, ports=[{"name": "http", "port": 80, "targetPort": "http"}]))
    _store_pod(cp, pod("a", "10.0.0.1", ports=[named("http", 8080)]))
    _store_pod(cp, pod("b", "10.0.0.2", ports=[named("http", 9090)]))
    ep = client.get(EP.format(ns="default") + "/web").json
    assert sorted((s["ports"][0]["port"], s["addresses"][0]["ip"]) for s in ep["subsets"]) == [
        (8080, "10.0.0.1"), (9090, "10.0.0.2")]
    names = sorted(s["metadata"]["name"] for s in client.get(SL.format(ns="default")).json["items"])
    assert len(set(names)) == 2
    _ensure_ns(cp, "unrelated")           # any write drops the memo; the names must not move
    assert names == sorted(s["metadata"]["name"] for s in client.get(SL.format(ns="default")).json["items"])


@pytest.mark.parametrize(("method", "path", "body"), [
    ("post", EP.format(ns="default"), {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}}),
    ("put", EP.format(ns="default") + "/web", {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}}),
    ("patch", EP.format(ns="default") + "/web", {"metadata": {"labels": {"x": "y"}}}),
    ("delete", EP.format(ns="default") + "/web", None),
    ("post", SL.format(ns="default"), {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                                       "metadata": {"name": "s"}, "addressType": "IPv4", "endpoints": []}),
    ("delete", SL.format(ns="default") + "/web-abcde", None),
])
def test_writes_are_refused_with_a_clear_error(cp, client, method, path, body):
    _store_service(cp, service(selector={"app": "web"}))
    kwargs = {"json": body} if body is not None else {}
    if method == "patch":
        kwargs["headers"] = {"Content-Type": "application/merge-patch+json"}
        kwargs["data"] = '{"metadata": {"labels": {"x": "y"}}}'
        kwargs.pop("json")
    resp = getattr(client, method)(path, **kwargs)
    assert resp.status_code == 405, resp.json
    assert resp.json["reason"] == "MethodNotAllowed"
    assert "read-only" in resp.json["message"]
    assert cp.store.list("endpoints") == [] and cp.store.list("endpointslices.discovery.k8s.io") == []


def test_reads_use_the_label_index(cp, monkeypatch):
    """A read lists only the Service's labels' pods, never every pod of the namespace."""
    _store_service(cp, service(selector={"app": "web"}))
    _store_pod(cp, pod("a", "10.0.0.1"))
    calls = []
    real = cp.store.list

    def spy(res, namespace=None, *, selector=None):
        calls.append((res, namespace, selector))
        return real(res, namespace, selector=selector)

    monkeypatch.setattr(cp.store, "list", spy)
    cp.views[views.ENDPOINTS_KEY].get("default", "web")
    assert [c for c in calls if c[0] == "pods"] == [("pods", "default", {"app": "web"})]


def test_memo_is_reused_until_one_of_its_inputs_changes(cp):
    _store_service(cp, service(selector={"app": "web"}))
    stored = _store_pod(cp, pod("a", "10.0.0.1"))
    view = cp.views[views.ENDPOINTS_KEY]
    first = view.get("default", "web")
    assert view.get("default", "web") is first
    _store_pod(cp, pod("unrelated", "10.0.0.2", labels={"app": "db"}))
    assert view.get("default", "web") is first
    stored["metadata"]["labels"]["extra"] = "1"
    cp.store.update("pods", stored)
    assert view.get("default", "web") is not first


def test_slices_follow_a_node_zone_change(cp, client):
    node = cp.store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}})
    _store_service(cp, service(selector={"app": "web"}))
    _store_pod(cp, pod("a", "10.0.0.1"))
    assert "zone" not in client.get(SL.format(ns="default")).json["items"][0]["endpoints"][0]
    node["metadata"]["labels"] = {constants.LABEL_TOPOLOGY_ZONE: "desk"}
    cp.store.update("nodes", node)
    assert client.get(SL.format(ns="default")).json["items"][0]["endpoints"][0]["zone"] == "desk"


def test_service_change_is_seen_and_deleted_service_forgotten(cp, client):
    svc = _store_service(cp, service(selector={"app": "web"}))
    _store_pod(cp, pod("a", "10.0.0.1", labels={"app": "web"}))
    _store_pod(cp, pod("b", "10.0.0.2", labels={"app": "db"}))
    assert _ips(client.get(EP.format(ns="default") + "/web").json) == {"10.0.0.1"}
    svc["spec"]["selector"] = {"app": "db"}
    cp.store.update("services", svc)
    assert _ips(client.get(EP.format(ns="default") + "/web").json) == {"10.0.0.2"}
    cp.store.delete("services", "default", "web")
    assert client.get(EP.format(ns="default") + "/web").status_code == 404
    assert client.get(SL.format(ns="default")).json["items"] == []


def test_memo_is_pruned_of_deleted_services(cp):
    view = cp.views[views.ENDPOINTS_KEY]
    for i in range(300):
        _store_service(cp, service(f"s{i}", selector={"app": "web"}))
        view.get("default", f"s{i}")
        cp.store.delete("services", "default", f"s{i}")
    assert len(view.services._memo) <= 256


def test_missing_service_is_none(cp):
    assert cp.views[views.ENDPOINTS_KEY].get("default", "ghost") is None
    assert cp.views[views.SLICES_KEY].get("default", "ghost-bbbbb") is None


def test_zone_comes_from_the_node_label(cp, client):
    cp.store.create("nodes", {"apiVersion": "v1", "kind": "Node",
                              "metadata": {"name": "esp-1", "labels": {constants.LABEL_TOPOLOGY_ZONE: "desk"}}})
    _store_service(cp, service(selector={"app": "web"}))
    _store_pod(cp, pod("a", "10.0.0.1", node="esp-1"))
    _store_pod(cp, pod("b", "10.0.0.2", node="esp-2"))
    (sl,) = client.get(SL.format(ns="default")).json["items"]
    assert {e["nodeName"]: e.get("zone") for e in sl["endpoints"]} == {"esp-1": "desk", "esp-2": None}


def test_resource_version_moves_with_content_and_never_back(cp, client):
    _store_service(cp, service(selector={"app": "web"}))
    a = _store_pod(cp, pod("a", "10.0.0.1"))
    _store_pod(cp, pod("b", "10.0.0.2"))
    url = EP.format(ns="default") + "/web"
    first = int(client.get(url).json["metadata"]["resourceVersion"])
    _ensure_ns(cp, "unrelated")
    same = int(client.get(url).json["metadata"]["resourceVersion"])
    assert same == first                          # nothing it shows changed
    a["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    a = cp.store.update("pods", a)
    moved = int(client.get(url).json["metadata"]["resourceVersion"])
    assert moved > first
    cp.store.delete("pods", "default", "b")       # the newest input disappears: the version still grows
    after_delete = int(client.get(url).json["metadata"]["resourceVersion"])
    assert after_delete > moved
    slices = client.get(SL.format(ns="default")).json["items"]
    assert all(int(s["metadata"]["resourceVersion"]) <= cp.store.resource_version for s in slices)
