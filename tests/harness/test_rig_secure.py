"""Virtual boards on a secured control plane: the control-plane board serves https with client
certificates and node authorisation (``VirtualRig(pki=…)``), every node board speaks as its own node
(``system:node:<name>``), and the runner's rig target reaches the API with the admin's kubeconfig.
A board holding another node's certificate cannot register, so node authorisation is what the HIL
path runs through."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests
from cryptography import x509

from kube32.conformance import credentials, kubeconfig
from kube32.conformance.kubelets.board import BoardNode
from kube32.conformance.targets.rig import RigTarget
from kube32.harness import BoardConsole
from kube32.harness.virtual.node_firmware import NodeFirmware
from kube32.harness.virtual.virtual_rig import VirtualRig
from kube32.spec import profiles
from tests.harness.rigrun import NODES, SHORT, TIMEOUTS, run_suite

WAIT = 20.0      # a bound on waiting for boards, not an assertion on time


@pytest.fixture(scope="module")
def vrig(tmp_path_factory):
    work = tmp_path_factory.mktemp("secure-rig")
    with VirtualRig(work / "rig", NODES, transport="rfc2217", prefix="sec-", overrides=SHORT,
                    lease_interval=SHORT["lease_renew_interval"], lease_duration=SHORT["lease_duration"],
                    timeouts=TIMEOUTS, pki=work / "pki") as vr:
        yield vr


@pytest.fixture(scope="module")
def admin(vrig):
    """The runner's credentials: a kubeconfig with the admin's certificate, as serve --tls-self-signed writes."""
    pki = vrig.pki
    path = kubeconfig.write(pki / "admin.kubeconfig", vrig.api_url, certificate_authority=str(pki / "ca.crt"),
                            client_certificate=str(pki / "admin.crt"), client_key=str(pki / "admin.key"))
    return credentials.resolve(None, str(path), None)


def wait_for(what: str, check):
    deadline = time.monotonic() + WAIT
    while not (got := check()):
        assert time.monotonic() < deadline, f"{what} within {WAIT} s"
        time.sleep(0.1)
    return got


def test_boards_register_and_renew_as_their_own_nodes_over_https(vrig, admin):
    assert vrig.api_url.startswith("https://")
    assert requests.get(vrig.api_url + "/api/v1/nodes", verify=admin.verify, timeout=10).status_code == 401

    def ready_and_renewed():
        nodes = requests.get(vrig.api_url + "/api/v1/nodes", verify=admin.verify, cert=admin.cert, timeout=10).json()
        ready = {n["metadata"]["name"] for n in nodes["items"]
                 if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions", []))}
        return set(NODES) <= ready and all(vrig.board(n).firmware.renewals >= 2 for n in NODES)

    for node in NODES:     # each board holds its own node's certificate, not the admin's
        cert_file, _ = vrig.board(node).firmware.client_cert
        subject = x509.load_pem_x509_certificate(Path(cert_file).read_bytes()).subject.rfc4514_string()
        assert subject == f"CN=system:node:{node},O=system:nodes"
    wait_for("both boards Ready with renewed Leases", ready_and_renewed)
    leases = requests.get(vrig.api_url + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                          verify=admin.verify, cert=admin.cert, timeout=10).json()
    assert {lease["spec"]["holderIdentity"] for lease in leases["items"]} >= set(NODES)


def test_a_board_with_another_nodes_certificate_cannot_register(vrig, admin, make_board, tmp_path):
    """node-c's board carries node-a's certificate: NodeRestriction refuses the Node it registers."""
    stolen = (str(tmp_path / "c.crt"), str(tmp_path / "c.key"))
    shutil.copy(vrig.pki / "node-node-a.crt", stolen[0])
    shutil.copy(vrig.pki / "node-node-a.key", stolen[1])
    board = make_board(NodeFirmware("node-c", vrig.api_url, ca_file=str(vrig.pki / "ca.crt"), client_cert=stolen,
                                    lease_interval=SHORT["lease_renew_interval"]))
    console = BoardConsole(board.name, f"vboard://{board.name}").open(expect_boot=True)
    try:
        console.expect(r"api request failed.*POST /api/v1/nodes answered 403", WAIT)
    finally:
        console.close()
    resp = requests.get(vrig.api_url + "/api/v1/nodes/node-c", verify=admin.verify, cert=admin.cert, timeout=10)
    assert resp.status_code == 404


def test_the_rig_target_reaches_the_secured_api_with_the_admins_kubeconfig(vrig, admin):
    target = RigTarget(str(vrig.rig_path), profiles.load("hardware"), token=admin.token, access=admin)
    target.start()
    try:
        target.begin_scenario()
        scenario = SimpleNamespace(api=target.api, profile=target.profile, tags=frozenset({"realtime"}))
        node = target.node_driver("node-b", scenario)
        assert isinstance(node, BoardNode)
        got = node.register(capacity={"memory": "1Ki"}, allocatable={"memory": "1Ki"}, labels={"zone": "z1"},
                            unschedulable=False)
        assert got["metadata"]["labels"]["zone"] == "z1"      # the admin labels; the board keeps renewing
        node.detach()
        target.end_scenario()
    finally:
        target.stop()


@pytest.mark.long
def test_a_clause_through_the_rig_over_https(vrig, admin, tmp_path):
    """`run --rig … --kubeconfig admin.kubeconfig` end to end: boards and the runner's fake kubelets
    on a control plane with node authorisation (tox -e secure; real time)."""
    kubeconfig_path = vrig.pki / "admin.kubeconfig"
    done = run_suite(vrig.rig_path, tmp_path / "report", "--kubeconfig", str(kubeconfig_path),
                     "--clause", "NODE-RECOVERY-CLEARS-TAINTS")
    verdicts = {c["id"]: c["status"] for c in done.doc.get("clauses", []) if c["status"] != "not-selected"}
    assert done.returncode == 0 and verdicts == {"NODE-RECOVERY-CLEARS-TAINTS": "passed"}, (verdicts,
                                                                                            done.output[-3000:])
