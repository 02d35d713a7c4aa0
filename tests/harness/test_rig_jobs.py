"""``run --rig FILE --jobs N``: one rig's node boards shared out over xdist workers (rig_jobs.py).

The default run checks the parts (about a second): which boards each worker gets, the scheduler that
holds the serial phase back, the board locks, the URL and crashes handed on from worker 0. ``tox -e
lab`` adds two RigTargets of one virtual rig as two workers would have them, and the whole real-time
set on a virtual rig with four node boards and ``--jobs 2``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from kube32.conformance.targets import rig_jobs
from kube32.conformance.targets.rig import RigTarget
from kube32.conformance.targets.rig_schedule import SerialTail
from kube32.harness.virtual.virtual_rig import VirtualRig
from kube32.spec import profiles
from tests.harness.rigrun import SHORT, TIMEOUTS, crash_is_seen, profile_args, scenario_results, short_rig

RIG4 = ["node-a", "node-b", "node-c", "node-d", "node-e"]


def test_worker_0_plays_the_feature_names_with_their_boards_and_the_others_with_groups_of_the_rest():
    played = rig_jobs.played_names(RIG4, rig_jobs.declared_in(['node "node-b" goes silent', 'nodes "node-a, x"']))
    assert played == ["node-a", "node-b"]
    assert rig_jobs.slots(RIG4, played) == 2       # node-e alone is not a pair
    assert rig_jobs.assign(RIG4, played, 2) == [{"node-a": "node-a", "node-b": "node-b"},
                                                {"node-a": "node-c", "node-b": "node-d"}]
    with pytest.raises(ValueError, match="room for 2 workers, not 3"):
        rig_jobs.assign(RIG4, played, 3)
    assert rig_jobs.slots(RIG4, ["node-a"]) == 5
    assert rig_jobs.assign(RIG4, ["node-a"], 3)[2] == {"node-a": "node-c"}


def test_the_cli_runs_no_more_workers_than_the_boards_have_room_for(tmp_path):
    rig = tmp_path / "rig.yaml"
    boards = {"cp": {"url": "loop://", "role": "control-plane", "api_url": {"fixed": "http://127.0.0.1:1"}}}
    boards |= {n: {"url": "loop://", "role": "node", "node_name": n} for n in RIG4[:3]}
    rig.write_text(json.dumps({"boards": boards}))
    texts = ['node "node-a" goes silent', 'node "node-b" takes the pod']
    assert rig_jobs.workers_for(str(rig), texts, 4) == 1          # three boards: one pair
    assert rig_jobs.workers_for(str(rig), texts[:1], 4) == 3      # one board a scenario: three at once
    assert rig_jobs.workers_for(str(rig), ['a pod "p" is created'], 4) == 4   # no board played


class Node:
    """The part of xdist's WorkerController a scheduler uses."""

    def __init__(self, name: str) -> None:
        self.name, self.sent, self.shutting_down = name, [], False
        self.gateway = type("Gateway", (), {"id": name})()

    def send_runtest_some(self, indices) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


class Config:
    def getoption(self, name):
        return 1 if name == "maxschedchunk" else None

    def getvalue(self, name):
        return ["2*popen"] if name == "tx" else None


def test_the_serial_phase_waits_until_every_other_scenario_is_handed_out_and_goes_to_one_worker(tmp_path):
    collection = [f"s{i}" for i in range(7)]          # the workers' order: the serial phase last
    rig_jobs.write_alone(str(tmp_path), ["s5", "s6"])
    sched = SerialTail(Config(), run_dir=str(tmp_path))
    a, b = Node("gw0"), Node("gw1")
    for node in (a, b):
        sched.add_node(node)
        sched.add_node_collection(node, collection)
    sched.schedule()
    assert (a.sent, b.sent) == ([0, 1], [2, 3])        # two each, as xdist's load scheduling
    sched.mark_test_complete(a, 0, 5.0)
    assert a.sent == [0, 1, 4] and not sched.tests_finished
    sched.mark_test_complete(b, 2, 5.0)                # nothing but the serial phase is left
    assert b.sent == [2, 3, 5, 6] and a.sent == [0, 1, 4]
    assert a.shutting_down and b.shutting_down         # each stops after what it has: b runs the tail alone
    for node, index in ((a, 1), (a, 4), (b, 3), (b, 5), (b, 6)):
        sched.mark_test_complete(node, index)
    assert sched.tests_finished


@pytest.mark.parametrize("alone, sent", [([], ([0, 2], [1])),          # no serial phase: xdist's own
                                         (["s2"], ([0, 2], [1]))])     # all handed out at once: the tail too
def test_few_scenarios_are_handed_out_at_once(tmp_path, alone, sent):
    rig_jobs.write_alone(str(tmp_path), alone)
    sched = SerialTail(Config(), run_dir=str(tmp_path))
    a, b = Node("gw0"), Node("gw1")
    for node in (a, b):
        sched.add_node(node)
        sched.add_node_collection(node, ["s0", "s1", "s2"])
    sched.schedule()
    assert (a.sent, b.sent) == sent
    assert a.shutting_down and b.shutting_down and not sched.tail


def test_a_board_is_held_by_one_process_at_a_time_and_worker_0_hands_on_the_url_and_crashes(tmp_path):
    first, second = rig_jobs.RunDir(str(tmp_path)), rig_jobs.RunDir(str(tmp_path))
    first.claim("q-node-a")
    got = threading.Event()
    waiter = threading.Thread(target=lambda: (second.claim("q-node-a"), got.set()), daemon=True)
    waiter.start()
    assert not got.wait(0.5)                           # the other holder waits ...
    first.release_all()
    assert got.wait(30)                                # ... until the first lets go
    second.release_all()
    with pytest.raises(RuntimeError, match="within 0.2 s"):
        second.wait_url(0.2)
    first.publish_url("failed: board q-cp did not boot")
    with pytest.raises(RuntimeError, match="worker 0 could not start the control plane: board q-cp did not boot"):
        second.wait_url(1)
    first.publish_url("http://127.0.0.1:6443")
    assert second.wait_url(1) == "http://127.0.0.1:6443"
    assert second.crashes() == []
    first.publish_crash("q-cp", "panic", "LoadProhibited", "Guru Meditation Error", 12.5)
    assert second.crashes() == [{"board": "q-cp", "kind": "panic", "reason": "LoadProhibited",
                                 "text": "Guru Meditation Error", "t": 12.5}]


@pytest.mark.lab
def test_two_workers_own_disjoint_boards_hear_of_control_plane_crashes_and_the_serial_one_takes_all(tmp_path):
    """Two RigTargets of one rig as two workers would have them (here in one process, over vboard://):
    worker 0 starts the control plane and publishes its URL, worker 1 waits for it and starts only its
    boards; a control-plane crash is worker 1's BoardFailure too; once worker 0 has stopped, worker
    1's unfenced scenario (the serial phase) takes every board over."""
    nodes = ("node-a", "node-b", "node-c", "node-d")
    with VirtualRig(tmp_path / "rig", nodes, transport="vboard", prefix="w-", overrides=SHORT,
                    lease_interval=SHORT["lease_renew_interval"], lease_duration=SHORT["lease_duration"],
                    timeouts=TIMEOUTS) as vrig:
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        shares = [rig_jobs.RigShare(i, 2, str(run_dir), names) for i, names in
                  enumerate(rig_jobs.assign(nodes, ["node-a", "node-b"], 2))]
        zero, one = (RigTarget(str(vrig.rig_path), profiles.load("hardware"), share=share) for share in shares)
        assert sorted(zero.rig.consoles) == ["w-cp", "w-node-a", "w-node-b"]
        assert sorted(one.rig.consoles) == ["w-node-c", "w-node-d"]
        starting = threading.Thread(target=one.start)
        starting.start()                               # waits for worker 0's control plane
        zero.start()
        starting.join(60)
        try:
            assert one.url == zero.url and one.shared
            assert one.own_names(["node-a", "node-x"], "3f2c") == {"node-a": "node-c", "node-x": "node-x-3f2c"}
            crash_is_seen(one, vrig, r"board w-cp crashed \(panic: StoreProhibited; seen by", within=10)
        finally:
            zero.stop()
        try:
            one.begin_scenario()
            one.prepare_scenario(SimpleNamespace(tags=frozenset(), fence_labels={}))
            assert sorted(one.rig.consoles) == ["w-cp", "w-node-a", "w-node-b", "w-node-c", "w-node-d"]
            assert one.scenario_where()["boards"] == sorted(one.rig.consoles)
            one.end_scenario()
        finally:
            one.stop()


@pytest.mark.lab
def test_one_rigs_four_node_boards_run_the_realtime_set_two_scenarios_at_a_time(tmp_path):
    """``run --rig R --jobs 2`` on a rig with four node boards: worker 0 plays node-a/node-b with
    boards node-a/node-b (and owns the control plane), worker 1 with node-c/node-d; the
    control-plane restart runs last on one worker holding every board; one report, all passed."""
    nodes = ("node-a", "node-b", "node-c", "node-d")
    with short_rig(tmp_path / "rig", prefix="q-", nodes=nodes) as vrig:
        report = tmp_path / "report"
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "kube32.conformance.cli", "run", "-q", "--report", str(report),
                               "--tags", "realtime or needs-real-kubelet", "--rig", str(vrig.rig_path), "--jobs", "2",
                               *profile_args()], capture_output=True, text=True, timeout=900)
        took = time.monotonic() - t0
    out = proc.stdout + proc.stderr
    doc = json.loads((report / "clauses.json").read_text())
    scenarios = scenario_results(doc)
    assert scenarios and proc.returncode == 0, out[-4000:]
    assert {s["status"] for s in scenarios.values()} == {"passed"}, out[-4000:]
    groups = {tuple(s["where"]["boards"]) for s in scenarios.values()}
    first, second = ("q-cp", "q-node-a", "q-node-b"), ("q-node-c", "q-node-d")
    restart = scenarios["after a restart node-a stays Ready while the silent node-b still times out"]
    assert restart["where"]["boards"] == ["q-cp", "q-node-a", "q-node-b", "q-node-c", "q-node-d"]
    assert groups == {first, second, tuple(restart["where"]["boards"])}, groups
    on_second = [s for s in scenarios.values() if tuple(s["where"]["boards"]) == second]
    assert on_second and all(set(s["logs"]) == set(second) for s in on_second)
    # node-a played by board node-c: the board ran the scenario's pod
    assert any("kubelet: started pod" in (report / s["logs"]["q-node-c"]).read_text() for s in on_second)
    assert doc["target"]["rigs"] == [str(vrig.rig_path)] and doc["target"]["workers"] == 2
    print(f"one rig, --jobs 2: {took:.1f} s")
