"""Who may do what: anonymous, a bad token, the admin, a node and another identity, against the
writes that matter to a fleet (own/other Node, own/other Lease, a pod bound elsewhere, the clock).
Every refusal is a Status and changes nothing."""

from __future__ import annotations

import pytest

from kube32.reference.app import create_app
from kube32.reference.auth import tokens
from kube32.reference.config import Config

TOKENS = ('admin-token,admin,1,"system:masters"\n'
          'node-a-token,system:node:node-a,2,system:nodes\n'
          'viewer-token,viewer,3\n')
HEADERS = {"anonymous": {}, "bad token": {"Authorization": "Bearer nope"},
           "basic auth": {"Authorization": "Basic YWRtaW46YWRtaW4="},
           "admin": {"Authorization": "Bearer admin-token"}, "node-a": {"Authorization": "Bearer node-a-token"},
           "viewer": {"Authorization": "Bearer viewer-token"}}


@pytest.fixture
def api(tmp_path):
    path = tmp_path / "tokens.csv"
    path.write_text(TOKENS)
    app = create_app(Config(clock="manual", run_loops=False, token_auth_file=str(path)))
    client = app.test_client()
    admin = HEADERS["admin"]
    for name in ("node-a", "node-b"):
        assert client.post("/api/v1/nodes", headers=admin, json={
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"board": "s3"}}}).status_code == 201
        assert client.post("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", headers=admin, json={
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 15}}).status_code == 201
    assert client.post("/api/v1/namespaces/default/pods", headers=admin, json={
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "on-b"},
        "spec": {"nodeName": "node-b", "containers": [{"name": "c", "image": "x"}]}}).status_code == 201
    return client


MERGE = {"Content-Type": "application/merge-patch+json"}
ACTIONS = {
    "read nodes": ("GET", "/api/v1/nodes", None),
    "write own Node": ("PATCH", "/api/v1/nodes/node-a", {"metadata": {"labels": {"room": "lab"}}}),
    "write other Node": ("PATCH", "/api/v1/nodes/node-b", {"metadata": {"labels": {"room": "lab"}}}),
    "write own Lease": ("PATCH", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a",
                        {"spec": {"leaseDurationSeconds": 16}}),
    "write other Lease": ("PATCH", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-b",
                          {"spec": {"leaseDurationSeconds": 16}}),
    "pod bound elsewhere": ("PATCH", "/api/v1/namespaces/default/pods/on-b/status",
                            {"status": {"phase": "Running"}}),
    "debug clock": ("POST", "/debug/clock", {"advance": 1}),
}
EXPECTED = {   # identity -> action -> status code
    "anonymous": dict.fromkeys(ACTIONS, 401),
    "bad token": dict.fromkeys(ACTIONS, 401),
    "basic auth": dict.fromkeys(ACTIONS, 401),
    "admin": dict.fromkeys(ACTIONS, 200),
    "node-a": {"read nodes": 200, "write own Node": 200, "write other Node": 403, "write own Lease": 200,
               "write other Lease": 403, "pod bound elsewhere": 403, "debug clock": 403},
    "viewer": dict.fromkeys(ACTIONS, 403),
}


def snapshot(api) -> dict:
    admin = HEADERS["admin"]
    return {path: api.get(path, headers=admin).get_json() for path in (
        "/api/v1/nodes/node-a", "/api/v1/nodes/node-b", "/api/v1/namespaces/default/pods/on-b",
        "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a",
        "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-b", "/debug/clock")}


@pytest.mark.parametrize("identity", list(EXPECTED))
@pytest.mark.parametrize("action", list(ACTIONS))
def test_the_matrix(api, identity, action):
    method, path, body = ACTIONS[action]
    before = snapshot(api)
    resp = api.open(path, method=method, headers={**HEADERS[identity], **(MERGE if method == "PATCH" else {})},
                    json=body)
    want = EXPECTED[identity][action]
    assert resp.status_code == want, (identity, action, resp.get_json())
    if want != 200:
        status = resp.get_json()
        assert status["kind"] == "Status" and status["code"] == want
        assert status["reason"] == {401: "Unauthorized", 403: "Forbidden"}[want]
        assert snapshot(api) == before, "a refused request changed something"


def test_forbidden_messages_are_upstreams(api):
    resp = api.patch("/api/v1/nodes/node-b", headers={**HEADERS["node-a"], **MERGE}, json={"metadata": {}})
    assert resp.get_json()["message"] == ('nodes "node-b" is forbidden: User "system:node:node-a" cannot patch '
                                          'resource "nodes" in API group "" at the cluster scope: node \'node-a\' '
                                          "cannot modify node 'node-b'")
    resp = api.get("/api/v1/namespaces/default/pods", headers=HEADERS["viewer"])
    assert resp.get_json()["message"] == ('pods is forbidden: User "viewer" cannot list resource "pods" in API '
                                          'group "" in the namespace "default"')


def test_public_paths_need_no_credentials(api):
    assert api.get("/version").status_code == 200
    assert api.get("/api/v1/nodes").status_code == 401


def test_node_restriction_refuses_restricted_labels_and_foreign_creates(api):
    node = {**HEADERS["node-a"], **MERGE}
    resp = api.patch("/api/v1/nodes/node-a", headers=node,
                     json={"metadata": {"labels": {"node-restriction.kubernetes.io/trusted": "yes"}}})
    assert resp.status_code == 403 and "is not allowed to modify labels: node-restriction" in resp.get_json()["message"]
    resp = api.patch("/api/v1/nodes/node-a", headers=node,
                     json={"metadata": {"labels": {"kubernetes.io/hostname": "node-a", "node.kubernetes.io/x": "1"}}})
    assert resp.status_code == 200
    resp = api.post("/api/v1/nodes", headers=HEADERS["node-a"],
                    json={"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-c"}})
    assert resp.status_code == 403 and 'not allowed to create a node named "node-c"' in resp.get_json()["message"]
    assert api.get("/api/v1/nodes/node-c", headers=HEADERS["admin"]).status_code == 404


def test_a_node_confirms_only_its_own_pods_deletion(api):
    resp = api.delete("/api/v1/namespaces/default/pods/on-b?gracePeriodSeconds=0", headers=HEADERS["node-a"])
    assert resp.status_code == 403
    assert api.get("/api/v1/namespaces/default/pods/on-b", headers=HEADERS["admin"]).status_code == 200


def test_impersonation_needs_masters(api):
    resp = api.get("/api/v1/nodes", headers={**HEADERS["viewer"], "Impersonate-User": "admin"})
    assert resp.status_code == 403
    assert resp.get_json()["message"].startswith('users "admin" is forbidden: User "viewer" cannot impersonate')
    resp = api.patch("/api/v1/nodes/node-b", headers={**HEADERS["admin"], **MERGE, "Impersonate-User":
                     "system:node:node-a", "Impersonate-Group": "system:nodes"}, json={"metadata": {}})
    assert resp.status_code == 403 and 'User "system:node:node-a"' in resp.get_json()["message"]


@pytest.mark.parametrize("text, says", [
    ("tok,user\n", "tokens.csv:1: expected token,user,uid"),
    ("a,u,1\na,v,2\n", "tokens.csv:2: this token is already given to user 'u'"),
    ("\n", "tokens.csv: no tokens"),
])
def test_a_bad_token_file_names_the_line(tmp_path, text, says):
    path = tmp_path / "tokens.csv"
    path.write_text(text)
    with pytest.raises(tokens.TokenFileError) as err:
        tokens.load(str(path))
    assert says in str(err.value)
