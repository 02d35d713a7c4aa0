"""The reference behind real TLS and authentication: `serve --tls-self-signed DIR --token-auth-file`,
then kubectl 1.27 / 1.33, the official client and the conformance runner over https, each with the
credentials the server wrote; client certificates through the authoriser; the safe default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
import requests
from integration_helpers import Serve, free_port, kubectl_binary

TOKENS = 'admin-token,admin,1,"system:masters"\nviewer-token,viewer,2\n'
NODES = ("node-a", "node-b", "node-c")   # node identities made for the fake kubelets


@pytest.fixture(scope="module")
def secure(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    (d / "tokens.csv").write_text(TOKENS)
    args = ["--clock", "manual", "--tls-self-signed", str(d / "pki"), "--token-auth-file", str(d / "tokens.csv")]
    for node in NODES:
        args += ["--node-identity", node]
    running = Serve(*args, https=True, ca=d / "pki" / "ca.crt").start()
    yield running, d / "pki"
    running.stop()


def test_anonymous_and_bad_credentials_get_401_over_https(secure):
    running, pki = secure
    ca = str(pki / "ca.crt")
    assert requests.get(running.url + "/version", verify=ca, timeout=10).status_code == 200
    for headers in ({}, {"Authorization": "Bearer nope"}):
        resp = requests.get(running.url + "/api/v1/nodes", headers=headers, verify=ca, timeout=10)
        assert resp.status_code == 401 and resp.json()["reason"] == "Unauthorized"
    ok = requests.get(running.url + "/api/v1/nodes", headers={"Authorization": "Bearer admin-token"}, verify=ca,
                      timeout=10)
    assert ok.status_code == 200


def test_client_certificates_name_the_user_and_its_groups(secure):
    running, pki = secure
    ca = str(pki / "ca.crt")
    admin = (str(pki / "admin.crt"), str(pki / "admin.key"))
    node_a = (str(pki / "node-node-a.crt"), str(pki / "node-node-a.key"))
    for name in ("node-a", "node-b"):
        resp = requests.post(running.url + "/api/v1/nodes", json={"apiVersion": "v1", "kind": "Node",
                             "metadata": {"name": f"cert-{name}"}}, cert=admin, verify=ca, timeout=10)
        assert resp.status_code == 201, resp.text
    merge = {"Content-Type": "application/merge-patch+json"}
    own = requests.patch(running.url + "/api/v1/nodes/cert-node-a", data=json.dumps({"metadata": {}}),
                         headers=merge, cert=node_a, verify=ca, timeout=10)
    assert own.status_code == 403     # node-a's identity is system:node:node-a, not cert-node-a
    other = requests.patch(running.url + "/api/v1/nodes/node-b", data="{}", headers=merge, cert=node_a, verify=ca,
                           timeout=10)
    assert other.status_code == 403
    assert 'User "system:node:node-a"' in other.json()["message"]
    clock = requests.post(running.url + "/debug/clock", json={"advance": 1}, cert=node_a, verify=ca, timeout=10)
    assert clock.status_code == 403
    assert requests.get(running.url + "/debug/clock", cert=admin, verify=ca, timeout=10).status_code == 200


@pytest.mark.kubectl
@pytest.mark.parametrize("version", ["kubectl.1.27", "kubectl.1.33"])
def test_kubectl_over_https_with_the_admin_kubeconfig(secure, version, tmp_path):
    binary = kubectl_binary(version)
    if binary is None:
        pytest.skip(f"{version} is not installed")
    _, pki = secure
    env = {**os.environ, "KUBECACHEDIR": str(tmp_path)}
    done = subprocess.run([binary, "--kubeconfig", str(pki / "admin.kubeconfig"), "get", "namespaces"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "kube-node-lease" in done.stdout
    done = subprocess.run([binary, "--kubeconfig", str(pki / "node-node-a.kubeconfig"), "delete", "namespace",
                           "default"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode != 0 and "forbidden" in done.stderr
    running, _ = secure
    for token, ok in (("admin-token", True), ("viewer-token", False)):   # the static token file's users
        done = subprocess.run([binary, "--kubeconfig", os.devnull, "--server", running.url, "--certificate-authority",
                               str(pki / "ca.crt"), "--token", token, "get", "nodes"], capture_output=True, text=True,
                              env=env, timeout=60)
        assert (done.returncode == 0) == ok, done.stderr
        assert ok or 'User "viewer" cannot list resource "nodes"' in done.stderr


def test_the_official_client_over_https(secure):
    pytest.importorskip("kubernetes")
    from kubernetes import client, config

    _, pki = secure
    api = config.new_client_from_config(config_file=str(pki / "admin.kubeconfig"))
    names = [n.metadata.name for n in client.CoreV1Api(api).list_namespace().items]
    assert "kube-node-lease" in names
    api.close()
    node = config.new_client_from_config(config_file=str(pki / "node-node-a.kubeconfig"))
    core = client.CoreV1Api(node)
    assert core.list_node() is not None                   # a kubelet reads Nodes
    with pytest.raises(client.ApiException) as refused:   # and writes no other node's
        core.patch_node("node-b", {"metadata": {"labels": {"x": "y"}}})
    assert refused.value.status == 403
    assert 'User "system:node:node-a"' in json.loads(refused.value.body)["message"]
    node.close()


FAST_CLAUSE = "NODE-RECOVERY-CLEARS-TAINTS"   # fake kubelets renew their own Lease and report their own Node


def test_a_clause_through_run_over_https_with_a_token_kubeconfig_and_node_identities(secure, tmp_path):
    """The default run's share of the whole-suite run (tox -e secure): the same path end to end,
    `run --target https://… --kubeconfig` (the admin by the static token file) with the fake kubelets
    speaking as their nodes, on one clause."""
    from kube32.conformance import kubeconfig

    running, pki = secure
    admin = kubeconfig.write(tmp_path / "token.kubeconfig", running.url, token="admin-token",
                             certificate_authority=str(pki / "ca.crt"))
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "run", "--target", running.url,
                           "--kubeconfig", str(admin), "--node-credentials", str(pki), "--clause", FAST_CLAUSE,
                           "--report", str(report), "-q"], capture_output=True, text=True, timeout=600)
    doc = json.loads((report / "clauses.json").read_text())
    verdicts = {c["id"]: c["status"] for c in doc["clauses"] if c["status"] != "not-selected"}
    assert done.returncode == 0 and verdicts == {FAST_CLAUSE: "passed"}, (verdicts, done.stdout[-3000:],
                                                                          done.stderr[-2000:])


def test_a_fake_kubelets_credentials_are_its_nodes(secure):
    """--node-credentials DIR gives the runner's client node-a's own certificate: node-a's Lease
    may be written, node-b's may not (so the run above really spoke as the nodes)."""
    from kube32.conformance import credentials
    from kube32.conformance.client import ApiClient

    running, pki = secure
    access = credentials.node_access(str(pki), "node-a")
    assert access is not None and access.cert is not None and access.token is None
    api = ApiClient(running.url, **access.client_kwargs())
    leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"

    def create(name: str) -> int:
        return api.request("POST", leases, json={"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                                 "metadata": {"name": name}, "spec": {"holderIdentity": name}}).status_code

    assert create("node-a") in (201, 409)       # 409: an earlier test's kubelet made it; authorised either way
    assert create("node-b") == 403
    assert credentials.node_access(str(pki), "node-z") is None     # no file: the runner's own credentials


@pytest.mark.long
def test_the_conformance_suite_over_https_with_node_identities(secure, tmp_path):
    running, pki = secure
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "run", "--target", running.url, "--kubeconfig",
                           str(pki / "admin.kubeconfig"), "--node-credentials", str(pki), "--report", str(report),
                           "-q"], capture_output=True, text=True, timeout=1800)
    doc = json.loads((report / "clauses.json").read_text())
    failed = [c["id"] for c in doc["clauses"] if c["status"] in ("failed", "error")]
    assert done.returncode == 0 and not failed, (failed, done.stdout[-3000:], done.stderr[-2000:])
    # what an https URL cannot do (restart the server, with other flags too; real kubelets) is
    # disabled; everything else ran
    assert {c["status"] for c in doc["clauses"]} <= {"passed", "reference-only", "disabled"}
    disabled = {s["message"] for c in doc["clauses"] for s in c["scenarios"] if s["status"] == "disabled"}
    cannot_restart = {m for m in disabled if m.startswith("disabled: the target runs with the document's ")
                      and "cannot restart with --" in m}
    assert disabled - cannot_restart <= {"disabled: target lacks capability restart",
                                         "disabled: target lacks capability real-kubelet"}


def test_an_open_address_without_authentication_is_refused():
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "serve", "--listen", f"0.0.0.0:{free_port()}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refusing to serve 0.0.0.0 with no authenticator" in lines[0]


def test_tls_flags_that_do_not_go_together_are_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "serve", "--client-ca-file", "x.crt"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--client-ca-file needs TLS" in done.stderr




def test_a_wildcard_listen_address_gets_a_certificate_for_this_machines_names(tmp_path):
    """serve --listen 0.0.0.0 --tls-self-signed: boards and kubectl elsewhere on the bench reach the
    server by this machine's hostname or address, so the serving certificate names them too."""
    import argparse
    import socket

    from cryptography import x509

    from kube32.conformance import secure_serve
    from kube32.reference.config import Config

    parser = argparse.ArgumentParser()
    secure_serve.add_flags(parser)
    args = parser.parse_args(["--tls-self-signed", str(tmp_path / "pki")])
    assert secure_serve.prepare(args, Config(), "0.0.0.0", free_port(), []) is not None
    cert = x509.load_pem_x509_certificate((tmp_path / "pki" / "server.crt").read_bytes())
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    names = {*sans.get_values_for_type(x509.DNSName), *map(str, sans.get_values_for_type(x509.IPAddress))}
    assert {socket.gethostname(), "localhost", "127.0.0.1"} <= names
    assert set(secure_serve.serving_names("0.0.0.0")) <= names
    assert secure_serve.serving_names("10.1.2.3") == ["10.1.2.3"]


def wait_for_file(path, running: Serve, what: str):
    deadline = time.monotonic() + 60        # a bound on waiting, not an assertion on time
    while not path.exists():
        assert running.proc.poll() is None and time.monotonic() < deadline, (what, running.output()[-2000:])
        time.sleep(0.1)


def test_simulated_boards_speak_as_their_nodes(tmp_path):
    """serve --nodes 2 --tls-self-signed: each simulated board registers and renews with its own
    node certificate; one board's kubeconfig may not write the other's Node."""
    pki, kc = tmp_path / "pki", tmp_path / "admin.kubeconfig"
    running = Serve("--nodes", "2", "--tls-self-signed", str(pki), "--kubeconfig", str(kc), https=True,
                    ca=pki / "ca.crt").start()
    try:
        wait_for_file(kc, running, "the boards did not register")
        ca, admin = str(pki / "ca.crt"), (str(pki / "admin.crt"), str(pki / "admin.key"))
        nodes = requests.get(running.url + "/api/v1/nodes", verify=ca, cert=admin, timeout=10).json()["items"]
        assert sorted(n["metadata"]["name"] for n in nodes) == ["node-0", "node-1"]
        node_0 = (str(pki / "node-node-0.crt"), str(pki / "node-node-0.key"))
        resp = requests.patch(running.url + "/api/v1/nodes/node-1", data="{}", verify=ca, cert=node_0, timeout=10,
                              headers={"Content-Type": "application/merge-patch+json"})
        assert resp.status_code == 403
    finally:
        running.stop()


@pytest.mark.long
def test_a_simulated_board_with_another_nodes_certificate_cannot_register(tmp_path):
    """The proof that the boards above used their own certificates: node-1 holding node-0's is refused."""
    from kube32.reference.auth import tls

    pki = tmp_path / "pki"
    tls.self_signed(pki, [], ["node-0", "node-1"])          # serve keeps what is there
    for ext in ("crt", "key"):
        (pki / f"node-node-1.{ext}").write_bytes((pki / f"node-node-0.{ext}").read_bytes())
    running = Serve("--nodes", "2", "--tls-self-signed", str(pki), https=True, ca=pki / "ca.crt").start()
    try:
        deadline = time.monotonic() + 60
        while "could not register" not in running.output():
            assert time.monotonic() < deadline, running.output()[-2000:]
            time.sleep(0.2)
        assert 'node \\"node-0\\" is not allowed to create a node named \\"node-1\\"' in running.output()
        resp = requests.get(running.url + "/api/v1/nodes/node-1", verify=str(pki / "ca.crt"),
                            cert=(str(pki / "admin.crt"), str(pki / "admin.key")), timeout=10)
        assert resp.status_code == 404
    finally:
        running.stop()
