"""Issue 13's table, row by row, against a real ``serve`` process: every hostile or careless request
gets its documented 400/422/504 Status, changes nothing (the store's resourceVersion stays where it
was), and another client's GET is answered while it runs. The server runs a manual clock, so no
controller writes in between and "changed nothing" is exact."""

from __future__ import annotations

import json

import pytest
import requests
from hostile import assert_status, hostile
from integration_helpers import Serve

PODS = "/api/v1/namespaces/default/pods"
NODES = "/api/v1/nodes"
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
MERGE = {"Content-Type": "application/merge-patch+json"}
YAML = {"Content-Type": "application/yaml"}
JSON = {"Content-Type": "application/json"}


def pod(name: str, **resources) -> dict:
    container = {"name": "a", "image": "blink"}
    if resources:
        container["resources"] = {"requests": resources}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container]}}


def deployment(name: str, replicas: object = 1) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "a", "image": "blink"}]}}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    srv = Serve("--clock", "manual", data_dir=str(base / "data"), log_path=base / "serve.log").start()
    yield srv
    srv.stop()


def rv(server) -> int:
    return int(requests.get(server.url + PODS, timeout=30).json()["metadata"]["resourceVersion"])


def unchanged(server, method: str, path: str, **kwargs):
    """The hostile request, asserting the store's resourceVersion did not move."""
    before = rv(server)
    outcome = hostile(server.url, method, path, **kwargs)
    assert rv(server) == before, "a refused request changed the store"
    return outcome


# -- integers -------------------------------------------------------------------------------
@pytest.mark.parametrize("replicas, code, reason, fragment", [
    (2**70, 400, "BadRequest", "does not fit a signed 64-bit integer"),    # no JSON number field holds it
    (2**31, 400, "BadRequest", "spec.replicas of type int32"),
    (-5, 422, "Invalid", "spec.replicas: Invalid value: -5: must be greater than or equal to 0"),
])
def test_replicas_out_of_int32_or_negative(server, replicas, code, reason, fragment):
    body = json.dumps(deployment("poison", replicas))
    out = unchanged(server, "POST", DEPLOYS, data=body, headers=JSON)
    assert_status(out, code, reason, fragment)


LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


def lease(name: str, **spec) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 15, **spec}}


@pytest.mark.parametrize("spec, code, reason, fragment", [
    ({"leaseDurationSeconds": 0}, 422, "Invalid", "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"),
    ({"leaseDurationSeconds": -15}, 422, "Invalid", "Invalid value: -15: must be greater than 0"),
    ({"leaseDurationSeconds": 2**40}, 400, "BadRequest", "spec.leaseDurationSeconds of type int32"),
    ({"leaseTransitions": -1}, 422, "Invalid",
     "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"),
])
def test_lease_durations_and_transitions_as_upstream_validates_them(server, spec, code, reason, fragment):
    """Created or renewed (a renewal is answered below Flask when it is valid), the same refusal."""
    assert_status(unchanged(server, "POST", LEASES, data=json.dumps(lease("bad-lease", **spec)), headers=JSON),
                  code, reason, fragment)
    requests.post(server.url + LEASES, json=lease("renewed"), timeout=30)      # there from an earlier case
    current = requests.get(f"{server.url}{LEASES}/renewed", timeout=30).json()
    current["spec"].update(spec)
    assert_status(unchanged(server, "PUT", f"{LEASES}/renewed", data=json.dumps(current), headers=JSON),
                  code, reason, fragment)


def test_scale_subresource_is_bounded_too(server):
    requests.post(server.url + DEPLOYS, json=deployment("scaled"), timeout=30).raise_for_status()
    out = unchanged(server, "PATCH", f"{DEPLOYS}/scaled/scale", data=json.dumps({"spec": {"replicas": 2**40}}),
                    headers=MERGE)
    assert_status(out, 400, "BadRequest", "spec.replicas of type int32")


# -- quantities -----------------------------------------------------------------------------
@pytest.mark.parametrize("memory, fragment", [
    ("1e10000000", "exponent"), ("1" * 5000, "characters"), ("8Ei", "64-bit"), ("-16Ki", "greater than or equal to 0"),
])
def test_pod_quantities_are_bounded_before_arithmetic(server, memory, fragment):
    out = unchanged(server, "POST", PODS, data=json.dumps(pod("q", memory=memory)), headers=JSON)
    assert_status(out, 422, "Invalid", "resources.requests[memory]", fragment)
    # (that the size is decided before any arithmetic: tests/reference/api/test_limits.py)


def test_unknown_suffix_still_counts_zero(server):
    """The document's grammar stays: a number with an unknown suffix is accepted (and counts 0)."""
    resp = requests.post(server.url + PODS, json=pod("unknown-suffix", memory="5Xi"), timeout=30)
    assert resp.status_code == 201, resp.text


def test_node_allocatable_1e400_is_refused_and_pods_still_create(server):
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "poison-node"},
            "status": {"allocatable": {"memory": "1e400"}, "capacity": {"memory": "1e400"}}}
    out = unchanged(server, "POST", NODES, data=json.dumps(node), headers=JSON)
    assert_status(out, 422, "Invalid", "status.allocatable[memory]")
    resp = requests.post(server.url + PODS, json=pod("after-poison-node"), timeout=30)
    assert resp.status_code == 201, resp.text


# -- decoding -------------------------------------------------------------------------------
def _yaml_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(width))}]")
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: bomb\n  annotations: {}\nspec:\n  containers:\n"
            "  - name: a\n    image: blink\nbomb:\n" + "\n".join("  " + line for line in lines) + "\n")


@pytest.mark.parametrize("body, headers, fragment", [
    (_yaml_bomb(), YAML, "aliasing"),
    ("[" * 10000 + "]" * 10000, JSON, "nests deeper"),
    ("a: " + "[" * 10000 + "]" * 10000 + "\n", YAML, "nests deeper"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: s}\nspec: !!set {a, b}\n", YAML, "constructor"),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"s","annotations":{"a":"\\ud800"}}}', JSON, "surrogate"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: inf}\nspec: {activeDeadlineSeconds: .inf}\n", YAML, "finite"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: keys, labels: {1: a}}\n", YAML, "keys must be strings"),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big"},"spec":{"x":' + "9" * 30 + "}}", JSON, "64-bit"),
], ids=["yaml-alias-bomb", "deep-json", "deep-yaml", "yaml-set", "lone-surrogate", "inf", "int-keys", "big-int"])
def test_bodies_beyond_the_limits_are_400(server, body, headers, fragment):
    out = unchanged(server, "POST", PODS, data=body.encode("utf-8", "surrogatepass"), headers=headers)
    assert_status(out, 400, "BadRequest", fragment)


# -- metadata -------------------------------------------------------------------------------
@pytest.mark.parametrize("meta, field, fragment", [
    ({"generateName": "BAD_"}, "metadata.generateName", "RFC 1123"),
    ({"name": "a" * 254}, "metadata.name", "no more than 253 characters"),
    ({"name": "big-annotation", "annotations": {"x": "y" * 2_900_000}}, "metadata.annotations",
     "may not be more than 262144 bytes"),
    ({"name": "bad-label", "labels": {"a": "v" * 64}}, "metadata.labels", "valid label"),
], ids=["generateName", "long-name", "annotations-256KiB", "label-value"])
def test_metadata_limits_are_422(server, meta, field, fragment):
    body = pod("x")
    body["metadata"] = meta
    out = unchanged(server, "POST", PODS, data=json.dumps(body), headers=JSON)
    assert_status(out, 422, "Invalid", field, fragment)


# -- update rules ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bound_pod(server):
    body = pod("bound", memory="1Ki")
    body["spec"]["nodeName"] = "board-a"
    resp = requests.post(server.url + PODS, json=body, timeout=30)
    assert resp.status_code == 201, resp.text
    return f"{PODS}/bound"


@pytest.mark.parametrize("patch, field, fragment", [
    ({"spec": {"nodeName": "board-b"}}, "spec", "pod updates may not change fields"),
    ({"spec": {"containers": [{"name": "a", "image": "blink", "resources": {"requests": {"memory": "2Ki"}}}]}},
     "spec", "pod updates may not change fields"),
    ({"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}}, "metadata.deletionTimestamp", "field is immutable"),
    ({"metadata": {"deletionGracePeriodSeconds": 5}}, "metadata.deletionGracePeriodSeconds", "field is immutable"),
], ids=["nodeName", "resources", "deletionTimestamp", "deletionGracePeriodSeconds"])
def test_bound_pod_fields_are_immutable(server, bound_pod, patch, field, fragment):
    out = unchanged(server, "PATCH", bound_pod, data=json.dumps(patch), headers=MERGE)
    body = assert_status(out, 422, "Invalid", fragment)
    assert body["details"]["causes"][0]["field"] == field


def test_unbound_pod_cannot_be_bound_by_an_update(server):
    requests.post(server.url + PODS, json=pod("unbound"), timeout=30).raise_for_status()
    out = unchanged(server, "PATCH", f"{PODS}/unbound", data=json.dumps({"spec": {"nodeName": "board-b"}}),
                    headers=MERGE)
    assert_status(out, 422, "Invalid", "pod updates may not change fields")


def test_image_of_a_pod_may_change(server, bound_pod):
    resp = requests.patch(server.url + bound_pod, data=json.dumps({"spec": {"containers": [
        {"name": "a", "image": "blink:2", "resources": {"requests": {"memory": "1Ki"}}}]}}), headers=MERGE, timeout=30)
    assert resp.status_code == 200, resp.text


def test_deployment_selector_is_immutable(server):
    requests.post(server.url + DEPLOYS, json=deployment("sel"), timeout=30).raise_for_status()
    patch = {"spec": {"selector": {"matchLabels": {"app": "other"}},
                      "template": {"metadata": {"labels": {"app": "other"}}}}}
    out = unchanged(server, "PATCH", f"{DEPLOYS}/sel", data=json.dumps(patch), headers=MERGE)
    assert_status(out, 422, "Invalid", "spec.selector", "field is immutable")


# -- query parameters ---------------------------------------------------------------------
@pytest.mark.parametrize("query, fragment", [
    ("labelSelector=" + "+" * 60_000 + "%23", "the limit is"),          # 60,000 spaces and a '#'
    ("labelSelector=" + "+" * 4_000 + "%23", "unable to parse requirement"),
    ("fieldSelector=" + "a%3D" * 10_000, "the limit is"),
    ("labelSelector=" + "%2C".join(f"k{i}" for i in range(101)), "at most 100 requirements"),
], ids=["label-60000", "label-4000", "field-20000", "label-101-terms"])
def test_selectors_are_bounded_and_read_in_linear_time(server, query, fragment):
    for path in (PODS, "/api/v1/endpoints"):            # stored objects and a computed view
        for watch in ("", "&watch=true"):
            out = unchanged(server, "GET", f"{path}?{query}{watch}")
            assert_status(out, 400, "BadRequest", fragment)
    # linear time: the tokenizer reads each character once (tests/reference/api/test_selectors.py)


# -- watch and clock ------------------------------------------------------------------------
def test_watch_from_a_future_resource_version_is_an_error(server):
    ahead = rv(server) + 1000
    out = unchanged(server, "GET", f"{PODS}?watch=true&resourceVersion={ahead}")
    body = assert_status(out, 504, "Timeout", "Too large resource version")
    assert body["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"


@pytest.mark.parametrize("move", [{"advance": "1e400"}, {"advance": 1e308}, {"advance": -1}, {"set": 1e300},
                                  {"advance": "soon"}, {"advance": True}])
def test_clock_moves_only_finitely_and_boundedly(server, move):
    before = requests.get(server.url + "/debug/clock", timeout=30).json()["epoch"]
    out = hostile(server.url, "POST", "/debug/clock", data=json.dumps(move), headers=JSON)
    assert_status(out, 400, "BadRequest", "cannot move the clock")
    assert requests.get(server.url + "/debug/clock", timeout=30).json()["epoch"] == before
