"""Who may do what, over real TLS: anonymous, a bad token, basic auth, the admin's token and client
certificate, a node's token and client certificate (``system:node:node-a`` in ``system:nodes``, as
upstream), and identities with no rights, against the writes that matter to a fleet (own/other Node,
own/other Lease, a pod bound elsewhere, the clock). Every refusal is a Status and changes nothing (the
stored objects are read back after it). The finer points (messages, NodeRestriction, impersonation)
use the in-process app."""

from __future__ import annotations

import pytest
import requests
import trustme

from kube32.reference.app import create_app
from kube32.reference.auth import tls, tokens
from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread

TOKENS = ('admin-token,admin,1,"system:masters"\n'
          'node-a-token,system:node:node-a,2,system:nodes\n'
          'viewer-token,viewer,3\n')
HEADERS = {"anonymous": {}, "bad token": {"Authorization": "Bearer nope"},
           "basic auth": {"Authorization": "Basic YWRtaW46YWRtaW4="},
           "admin": {"Authorization": "Bearer admin-token"}, "node-a": {"Authorization": "Bearer node-a-token"},
           "viewer": {"Authorization": "Bearer viewer-token"}}
# client certificates: subject CN = user, O = group (one O each; None: no group)
CERTS = {"admin cert": ("kube32-admin", "system:masters"), "node-a cert": ("system:node:node-a", "system:nodes"),
         "viewer cert": ("viewer", None),
         "node-a cert without system:nodes": ("system:node:node-a", "kube32:boards")}
TIMEOUT = 10      # a bound on waiting, not an assertion on time


def seed(call) -> None:
    """Two Nodes with their Leases and a pod bound to node-b; ``call(method, path, body)`` -> code."""
    for name in ("node-a", "node-b"):
        assert call("POST", "/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"board": "s3"}}}) == 201
        assert call("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 15}}) == 201
    assert call("POST", "/api/v1/namespaces/default/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "on-b"},
        "spec": {"nodeName": "node-b", "containers": [{"name": "c", "image": "x"}]}}) == 201


@pytest.fixture
def api(tmp_path):
    path = tmp_path / "tokens.csv"
    path.write_text(TOKENS)
    app = create_app(Config(clock="manual", run_loops=False, token_auth_file=str(path)))
    client = app.test_client()
    seed(lambda method, url, body: client.open(url, method=method, headers=HEADERS["admin"],
                                               json=body).status_code)
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
NODE_A = {"read nodes": 200, "write own Node": 200, "write other Node": 403, "write own Lease": 200,
          "write other Lease": 403, "pod bound elsewhere": 403, "debug clock": 403}
EXPECTED = {   # identity -> action -> status code
    "anonymous": dict.fromkeys(ACTIONS, 401),
    "bad token": dict.fromkeys(ACTIONS, 401),
    "basic auth": dict.fromkeys(ACTIONS, 401),
    "admin": dict.fromkeys(ACTIONS, 200),
    "admin cert": dict.fromkeys(ACTIONS, 200),
    "node-a": NODE_A,
    "node-a cert": NODE_A,
    "viewer": dict.fromkeys(ACTIONS, 403),
    "viewer cert": dict.fromkeys(ACTIONS, 403),
    "node-a cert without system:nodes": dict.fromkeys(ACTIONS, 403),   # the Node authorizer needs the group
}
SNAPSHOT = ("/api/v1/nodes/node-a", "/api/v1/nodes/node-b", "/api/v1/namespaces/default/pods/on-b",
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a",
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-b", "/debug/clock")


class Secure:
    """The reference served over TLS (``tls.server_context``, client certificates checked against
    the CA) with the static token file; one requests session per identity."""

    def __init__(self, tmp, ca: trustme.CA) -> None:
        (tmp / "tokens.csv").write_text(TOKENS)
        ca.cert_pem.write_to_path(str(tmp / "ca.crt"))
        served = ca.issue_cert("127.0.0.1", "localhost")
        served.cert_chain_pems[0].write_to_path(str(tmp / "server.crt"))
        served.private_key_pem.write_to_path(str(tmp / "server.key"))
        config = Config(listen="127.0.0.1:0", clock="manual", run_loops=False, token_auth_file=str(tmp / "tokens.csv"),
                        client_ca_file=str(tmp / "ca.crt"), tls_cert_file=str(tmp / "server.crt"),
                        tls_private_key_file=str(tmp / "server.key"))
        ctx = tls.server_context(config.tls_cert_file, config.tls_private_key_file, config.client_ca_file)
        self.running = start_in_thread(config, ssl_context=ctx)
        self.ca_file = str(tmp / "ca.crt")
        self.certs = {}
        for identity, (cn, group) in CERTS.items():
            leaf = ca.issue_cert(f"{identity.replace(' ', '-').replace(':', '-')}.kube32.test", common_name=cn,
                                 organization_name=group)
            path = tmp / f"{identity.replace(' ', '-').replace(':', '-')}.pem"
            leaf.private_key_and_cert_chain_pem.write_to_path(str(path))
            self.certs[identity] = str(path)
        self.sessions = {name: requests.Session() for name in [*HEADERS, *CERTS]}

    def call(self, identity: str, method: str, path: str, body=None) -> requests.Response:
        headers = {**HEADERS.get(identity, {}), **(MERGE if method == "PATCH" else {})}
        # verify/cert per request: a session's are overridden by REQUESTS_CA_BUNDLE
        return self.sessions[identity].request(method, self.running.url + path, json=body, headers=headers,
                                               verify=self.ca_file, cert=self.certs.get(identity), timeout=TIMEOUT)

    def snapshot(self) -> dict:
        return {path: self.call("admin", "GET", path).json() for path in SNAPSHOT}

    def close(self) -> None:
        for session in self.sessions.values():
            session.close()
        self.running.stop()


@pytest.fixture(scope="module")
def secure(tmp_path_factory):
    served = Secure(tmp_path_factory.mktemp("matrix"), trustme.CA())
    seed(lambda method, path, body: served.call("admin", method, path, body).status_code)
    yield served
    served.close()


@pytest.mark.parametrize("identity", list(EXPECTED))
@pytest.mark.parametrize("action", list(ACTIONS))
def test_the_matrix_over_tls(secure, identity, action):
    method, path, body = ACTIONS[action]
    before = secure.snapshot()
    resp = secure.call(identity, method, path, body)
    want = EXPECTED[identity][action]
    assert resp.status_code == want, (identity, action, resp.text)
    if want != 200:
        status = resp.json()
        assert status["kind"] == "Status" and status["code"] == want
        assert status["reason"] == {401: "Unauthorized", 403: "Forbidden"}[want]
        assert secure.snapshot() == before, "a refused request changed something"


def test_a_certificate_from_another_ca_is_refused_at_the_handshake(secure, tmp_path):
    """Python's ssl verifies a certificate the client offers (CERT_OPTIONAL): one the CA did not sign
    ends the handshake, before any request is read (upstream answers 401; either way nothing changes)."""
    stranger = trustme.CA().issue_cert("x.kube32.test", common_name="kube32-admin", organization_name="system:masters")
    path = tmp_path / "stranger.pem"
    stranger.private_key_and_cert_chain_pem.write_to_path(str(path))
    before = secure.snapshot()
    with pytest.raises((requests.exceptions.SSLError, requests.exceptions.ConnectionError)):
        requests.post(secure.running.url + "/debug/clock", json={"advance": 1}, verify=secure.ca_file,
                      cert=str(path), timeout=TIMEOUT)
    assert secure.snapshot() == before


def test_a_token_wins_over_the_certificate_it_comes_with(secure):
    """One identity per request: a bad token with a good admin certificate is still 401."""
    resp = requests.post(secure.running.url + "/debug/clock", json={"advance": 1}, verify=secure.ca_file,
                         cert=secure.certs["admin cert"], headers=HEADERS["bad token"], timeout=TIMEOUT)
    assert resp.status_code == 401


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
