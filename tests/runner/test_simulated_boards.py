"""Simulated boards (kubelets/simulated.py) against a real in-process reference server on the wall
clock: registration and Leases, the capability firewall, the pod stages, nodes files, the nodes CLI."""

from __future__ import annotations

import time

import pytest

from kube32.conformance import cli
from kube32.conformance.client import ApiClient
from kube32.conformance.kubelets import simulated
from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread

WAIT = 30.0     # a bound on waiting, not an assertion on speed


@pytest.fixture(scope="module")
def server():
    running = start_in_thread(Config(listen="127.0.0.1:0"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def fleet(server):
    boards = [simulated.Board(name="sim-a", hardware=["hardware.kube32.io/camera"], pins=[4, 5]),
              simulated.Board(name="sim-b", labels={"board": "esp32"}, capacity={"memory": "192Ki"})]
    running = simulated.Fleet(server.url, boards).start()
    yield running
    running.stop()


def api(server) -> ApiClient:
    return ApiClient(server.url, validate=False)


def eventually(read, pred, what: str):
    deadline = time.monotonic() + WAIT
    while True:
        value = read()
        if pred(value):
            return value
        assert time.monotonic() < deadline, f"{what}: last seen {value!r}"
        time.sleep(0.1)


def pod(name: str, node: str, annotations: dict | None = None, resources: dict | None = None) -> dict:
    container = {"name": "app", "image": "blink:1"}
    if resources:
        container["resources"] = {"limits": resources}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
            "spec": {"nodeName": node, "containers": [container]}}


def status_of(server, name: str) -> dict:
    return api(server).get("Pod", name, "default").get("status") or {}


def test_boards_register_ready_and_renew_their_leases(server, fleet):
    a = api(server)
    node = eventually(lambda: a.try_get("Node", "sim-a"), lambda n: n and n.get("status"), "sim-a registered")
    assert node["metadata"]["labels"] == {"kubernetes.io/hostname": "sim-a", "board": "esp32-s3"}
    assert node["status"]["capacity"]["esp32.io/psram"] == "8Mi"
    assert [c["status"] for c in node["status"]["conditions"] if c["type"] == "Ready"] == ["True"]
    lease = eventually(lambda: a.try_get("Lease", "sim-a", "kube-node-lease"), bool, "sim-a's Lease")
    assert lease["spec"]["leaseDurationSeconds"] == 15
    first = lease["spec"]["renewTime"]
    eventually(lambda: a.get("Lease", "sim-a", "kube-node-lease")["spec"]["renewTime"], lambda t: t != first,
               "a second renewal")


@pytest.mark.parametrize("claim, why", [
    ({"hardware.kube32.io/lidar": "1"}, "the board has no hardware.kube32.io/lidar"),
    ({"esp32.io/gpio-9": "1"}, "no pin esp32.io/gpio-9"),
])
def test_the_capability_firewall_refuses_what_the_board_cannot_serve(server, fleet, claim, why):
    name = "refused-" + next(iter(claim)).rsplit("/", 1)[1]
    api(server).create(pod(name, "sim-a", resources=claim))
    status = eventually(lambda: status_of(server, name), lambda s: s.get("phase") == "Failed", "refused")
    assert status["reason"] == "UnexpectedAdmissionError" and why in status["message"]


def test_a_claim_the_board_can_serve_runs_ready_with_an_ip(server, fleet):
    api(server).create(pod("camera", "sim-a", resources={"hardware.kube32.io/camera": "1", "esp32.io/gpio-4": "1"}))
    status = eventually(lambda: status_of(server, "camera"), lambda s: s.get("phase") == "Running", "running")
    assert status["podIP"].startswith("10.32.")
    assert {c["type"]: c["status"] for c in status["conditions"]}["Ready"] == "True"


@pytest.mark.parametrize("annotation, phase", [
    ("sim.kube32.io/succeed-after", "Succeeded"), ("sim.kube32.io/fail-after", "Failed")])
def test_stages_finish_a_pod_after_the_annotated_seconds(server, fleet, annotation, phase):
    name = phase.lower()
    api(server).create(pod(name, "sim-b", {annotation: "1"}))
    status = eventually(lambda: status_of(server, name), lambda s: s.get("phase") in ("Succeeded", "Failed"),
                        "finished")
    assert status["phase"] == phase
    code = status["containerStatuses"][0]["state"]["terminated"]["exitCode"]
    assert (code == 0) == (phase == "Succeeded")


def test_restart_and_never_ready_stages(server, fleet):
    api(server).create(pod("flappy", "sim-b", {"sim.kube32.io/restart-every": "1"}))
    api(server).create(pod("shy", "sim-b", {"sim.kube32.io/never-ready": "true"}))
    eventually(lambda: status_of(server, "flappy"),
               lambda s: (s.get("containerStatuses") or [{}])[0].get("restartCount", 0) >= 2, "two restarts")
    shy = eventually(lambda: status_of(server, "shy"), lambda s: s.get("phase") == "Running", "running")
    assert {c["type"]: c["status"] for c in shy["conditions"]}["Ready"] == "False"


def test_job_pods_complete_by_default(server, fleet):
    a = api(server)
    a.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once", "namespace": "default"},
              "spec": {"template": {"spec": {"restartPolicy": "Never", "nodeSelector": {"board": "esp32"},
                                             "containers": [{"name": "c", "image": "x"}]}}}})
    eventually(lambda: a.get("Job", "once", "default").get("status", {}).get("succeeded"), lambda n: n == 1,
               "the Job's pod succeeded")


def test_a_terminating_pod_is_confirmed(server, fleet):
    a = api(server)
    a.create(pod("gone", "sim-b"))
    eventually(lambda: status_of(server, "gone"), lambda s: s.get("phase") == "Running", "running")
    a.delete("Pod", "gone", "default")
    eventually(lambda: a.try_get("Pod", "gone", "default"), lambda p: p is None, "deleted")


@pytest.mark.parametrize("text, says", [
    ("nodes:\n- name: a\n  colour: blue\n", "nodes.0.colour: Extra inputs are not permitted"),
    ("nodes:\n- name: a\n- name: a\n", "node names appear twice: a"),
    ("nodes:\n- name: a\n  taints: [{key: k, effect: Never}]\n", "nodes.0.taints.0.effect"),
    ("- just a list\n", "expected a mapping `nodes:"),
])
def test_a_bad_nodes_file_names_the_problem(tmp_path, text, says):
    path = tmp_path / "nodes.yaml"
    path.write_text(text)
    with pytest.raises(simulated.SimulationError) as err:
        simulated.load_nodes_file(path)
    assert says in str(err.value) and str(path) in str(err.value)


def test_a_bad_stages_file_names_the_problem(tmp_path):
    path = tmp_path / "stages.yaml"
    path.write_text("- name: x\n  outcome: explode\n  delay: 1\n")
    with pytest.raises(simulated.SimulationError, match="0.outcome"):
        simulated.load_stages(path)
    assert [s.name for s in simulated.load_stages()][-1] == "job-pod-completes"


def test_nodes_cli_list_and_remove(server, fleet, capsys):
    assert cli.main(["nodes", "list", "--server", server.url]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["NAME", "READY", "LEASE-AGE", "PODS"]
    assert any(row.split()[:2] == ["sim-a", "True"] for row in table[1:])
    api(server).create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "stray"}})
    capsys.readouterr()
    assert cli.main(["nodes", "remove", "stray", "--server", server.url]) == 0
    assert capsys.readouterr().out.strip() == 'node "stray" deleted'
    assert api(server).try_get("Node", "stray") is None
    assert cli.main(["nodes", "remove", "stray", "--server", server.url]) == 1
    assert capsys.readouterr().err.strip() == 'node "stray" not found'


def test_a_board_whose_node_is_deleted_stops_once_and_says_so(server, caplog):
    """``nodes remove`` on a board that ``serve --nodes`` plays: the board stops instead of failing
    every renewal forever."""
    running = simulated.Fleet(server.url, [simulated.Board(name="sim-gone")])
    running.tick(time.time())
    assert api(server).try_get("Node", "sim-gone") is not None
    assert simulated.remove_nodes(api(server), ["sim-gone"]) == []
    with caplog.at_level("WARNING"):
        running.tick(time.time() + 6)        # its Lease is due: the PUT finds nothing
        running.tick(time.time() + 12)
    assert running.boards == []
    assert [r.getMessage() for r in caplog.records] == \
        ["simulated board sim-gone: its Node was deleted, so the board stops"]
    assert api(server).try_get("Node", "sim-gone") is None


def test_nodes_add_counts_past_the_nodes_the_server_has_and_refuses_a_played_name(server, fleet, capsys):
    """Against ``serve --nodes 3`` (node-0..node-2 played), ``nodes add --count 2`` plays node-3 and
    node-4; naming a Node another kubelet renews is refused in one line."""
    from argparse import Namespace

    from kube32.conformance import nodes_cli

    names = [b.name for b in nodes_cli.boards_from(Namespace(nodes_file=None, names=["x"], count=2),
                                                   {"node-0", "node-1", "node-2", "node-4"})]
    assert names == ["x", "node-3", "node-5"]
    eventually(lambda: api(server).try_get("Lease", "sim-a", "kube-node-lease"), bool, "sim-a renews")
    capsys.readouterr()
    assert cli.main(["nodes", "add", "sim-a", "--server", server.url]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kube32-conformance nodes add: another kubelet plays sim-a (renewed")


def test_nodes_cli_against_nothing_is_one_line(capsys):
    with pytest.raises(SystemExit) as code:
        cli.main(["nodes", "list", "--server", "http://127.0.0.1:1"])
    assert code.value.code == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "GET /version: connection failed" in err[0]
