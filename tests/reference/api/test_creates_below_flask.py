"""Creates answered without Flask's dispatch (``api.creates``) cannot be told apart over the API from the Flask
handler's answers: two servers in the same state get the same requests, one over HTTP (through
``Creates``), the other through the Flask app alone, and answer the same status, headers and bytes
(uids drawn from the same sequence on both); every refusal is answered by the Flask app itself and
writes nothing."""

from __future__ import annotations

import json

import pytest
import requests
from api_helpers import Uids

from kube32.reference.api import writes
from kube32.reference.api.creates import Creates
from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread
from kube32.reference.store import store as store_module

TIMEOUT = 10      # a bound on waiting, not an assertion on time
START = 1_780_000_000
PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def pair(tmp_path, monkeypatch):
    uids = Uids()
    monkeypatch.setattr(store_module, "uuid", uids)
    monkeypatch.setattr(writes, "uuid", uids)             # a dry run's uid
    servers = [start_in_thread(Config(listen="127.0.0.1:0", clock="manual", clock_start=START,
                                      data_dir=str(tmp_path / name))) for name in ("below", "flask")]
    yield uids, *servers
    for running in servers:
        running.stop()


def _both(pair, method: str, path: str, body: bytes, content_type: str = "application/json", **headers):
    """The request over HTTP to the first server and to the second's Flask app; the number of creates
    ``Creates`` answered."""
    uids, below, flask = pair
    creates: Creates = below._server.app.fallback
    before, first = creates.answered, uids.next
    over_http = requests.request(method, below.url + path, data=body, timeout=TIMEOUT,
                                 headers={"Content-Type": content_type, **headers})
    taken, drawn = creates.answered - before, uids.next
    uids.next = first
    answer = flask.app.test_client().open(path, method=method, data=body, content_type=content_type, headers=headers)
    assert uids.next == drawn
    assert (over_http.status_code, over_http.reason) == (answer.status_code, answer.status.split(" ", 1)[1])
    assert over_http.headers["Content-Type"] == answer.headers["Content-Type"]
    assert over_http.headers["Content-Length"] == answer.headers["Content-Length"]
    assert over_http.content == answer.data
    return over_http, taken


def node(name: str) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"board": "s3"}}}).encode()


def ready(memory: str) -> bytes:
    figures = {"memory": memory, "esp32.io/gpio": "8"}
    return json.dumps({"status": {"capacity": figures, "allocatable": figures, "conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}).encode()


def pod(name: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "blink"}},
            "spec": {"nodeSelector": {"board": "s3"}, "containers": [
                {"name": "c", "image": "blink", "resources": {"requests": {"memory": "1Ki"}}}], **spec}}


def test_creates_are_answered_below_flask_with_the_bytes_flask_sends(pair):
    for i, memory in enumerate(["200Ki", "200Ki", "300Ki"]):
        created, taken = _both(pair, "POST", "/api/v1/nodes", node(f"esp-{i}"))
        assert created.status_code == 201 and taken == 1
        patched, taken = _both(pair, "PATCH", f"/api/v1/nodes/esp-{i}/status", ready(memory),
                               "application/merge-patch+json")
        assert patched.status_code == 200 and taken == 0
    for i in range(4):        # bound in the request: the answer names the node, annotation and all
        created, taken = _both(pair, "POST", PODS, json.dumps(pod(f"p{i}")).encode())
        assert taken == 1 and created.status_code == 201 and created.json()["spec"]["nodeName"]
    unbound, taken = _both(pair, "POST", PODS, json.dumps(pod("nowhere", nodeSelector={"board": "c3"})).encode())
    assert taken == 1 and "nodeName" not in unbound.json()["spec"]
    in_group, taken = _both(pair, "POST", "/apis/apps/v1/namespaces/default/deployments", json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "blink"}},
                 "template": {"metadata": {"labels": {"app": "blink"}}, "spec": pod("x")["spec"]}}}).encode())
    assert taken == 1 and in_group.status_code == 201
    _, below, _ = pair
    watch = below.control_plane.store.watch("pods", "default", 0)
    seen = [watch.next(TIMEOUT) for _ in range(2)]
    assert [kind for kind, _ in seen] == ["ADDED", "MODIFIED"]          # created, then bound


@pytest.mark.parametrize("case", ["invalid", "missing namespace", "name taken", "not JSON", "a list", "another kind",
                                  "namespace differs", "wrong type", "read-only resource"])
def test_a_refused_create_is_answered_by_the_flask_app(pair, case):
    assert _both(pair, "POST", PODS, json.dumps(pod("taken")).encode())[0].status_code == 201
    path, obj = PODS, pod("p")
    if case == "invalid":
        obj["spec"]["containers"][0]["name"] = "Not_A_Name"
    elif case == "missing namespace":
        path = "/api/v1/namespaces/nowhere/pods"
    elif case == "name taken":
        obj = pod("taken")
    elif case == "another kind":
        obj["kind"] = "Lease"
    elif case == "namespace differs":
        obj["metadata"]["namespace"] = "kube-system"
    elif case == "wrong type":
        obj["spec"]["containers"] = {"name": "c"}
    elif case == "read-only resource":
        path = "/api/v1/namespaces/default/endpoints"
        obj = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"}}
    body = b"{not json" if case == "not JSON" else b"[]" if case == "a list" else json.dumps(obj).encode()
    _, below, flask = pair
    stored = below.control_plane.store.resource_version
    over_http, taken = _both(pair, "POST", path, body)
    assert taken == 0
    assert over_http.status_code >= 400 and over_http.json()["kind"] == "Status"
    assert below.control_plane.store.resource_version == stored        # nothing was written


@pytest.mark.parametrize("case", ["dry run", "a Table", "YAML"])
def test_other_creates_go_to_the_flask_app(pair, case):
    body, path, ctype, headers = json.dumps(pod("p")).encode(), PODS, "application/json", {}
    if case == "dry run":
        path += "?dryRun=All"
    elif case == "a Table":
        headers["Accept"] = "application/json;as=Table;v=v1;g=meta.k8s.io"
    else:
        ctype, body = "application/yaml", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: blink}]}\n"
    answer, taken = _both(pair, "POST", path, body, ctype, **headers)
    assert taken == 0 and answer.status_code == 201



def test_a_create_that_fails_unexpectedly_before_the_write_is_answered_by_the_flask_app(pair, monkeypatch):
    def broken(kind, obj):
        raise RuntimeError("a bug in a check (test)")
    monkeypatch.setattr(writes.validation, "validate", broken)
    _, below, _ = pair
    stored = below.control_plane.store.resource_version
    answer, taken = _both(pair, "POST", PODS, json.dumps(pod("p")).encode())
    assert taken == 0 and answer.status_code == 500 and answer.json()["reason"] == "InternalError"
    assert below.control_plane.store.resource_version == stored
