"""RigTarget and BoardNode over a short-timeout virtual rig (vboard://, no runner subprocess)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from kube32.conformance.errors import CapabilityMissing
from kube32.conformance.kubelets.board import BoardNode
from kube32.conformance.targets.rig import BoardFailure, RigTarget
from kube32.harness.virtual.virtual_rig import VirtualRig
from kube32.spec import profiles
from tests.harness.rigrun import NODES, SHORT, TIMEOUTS, crash_is_seen


@pytest.fixture(scope="module")
def vrig(tmp_path_factory):
    with VirtualRig(tmp_path_factory.mktemp("rt") / "rig", NODES, transport="vboard", prefix="rt-",
                    overrides=SHORT, lease_interval=SHORT["lease_renew_interval"],
                    lease_duration=SHORT["lease_duration"], timeouts=TIMEOUTS) as vr:
        yield vr


@pytest.fixture(scope="module")
def target(vrig):
    t = RigTarget(str(vrig.rig_path), profiles.load("hardware"))   # timing from the rig file
    t.start()
    yield t
    t.stop()


@pytest.fixture
def scenario(target):
    target.begin_scenario()
    yield SimpleNamespace(api=target.api, profile=target.profile, tags=frozenset({"realtime"}))
    target.end_scenario()


def test_board_nodes_are_played_by_boards_and_other_names_by_fake_kubelets(target, scenario):
    node = target.node_driver("node-a", scenario)
    assert isinstance(node, BoardNode) and node.board == "rt-node-a"
    assert target.node_driver("node-z", scenario) is None


def test_register_waits_for_ready_applies_labels_and_detach_takes_them_back(target, scenario):
    node = target.node_driver("node-b", scenario)
    got = node.register(capacity={"memory": "1Ki"}, allocatable={"memory": "1Ki"}, labels={"zone": "z1"},
                        unschedulable=True)
    assert got["metadata"]["labels"]["zone"] == "z1" and got["spec"]["unschedulable"] is True
    assert got["status"]["capacity"]["memory"] == "192Ki"        # the board's figures, not the table's
    node.detach()
    after = target.api.get("Node", "node-b")
    assert "zone" not in after["metadata"]["labels"] and not after["spec"].get("unschedulable")


def test_silence_holds_the_board_and_resume_brings_it_back(target, scenario, vrig):
    node = target.node_driver("node-a", scenario)
    node.register(capacity={}, allocatable={}, labels={})
    node.silence()
    assert vrig.board("node-a").state == "reset" and "rt-node-a" in target.held
    assert node.due() is None
    node.resume()
    assert vrig.board("node-a").state == "running" and not target.held
    assert "kubelet: kubelet ready" in target.scenario_logs()["rt-node-a"]


def test_held_boards_are_released_at_the_end_of_the_scenario(target, vrig):
    target.begin_scenario()
    target.node_driver("node-b", SimpleNamespace(api=target.api, profile=target.profile)).silence()
    target.end_scenario()
    assert vrig.board("node-b").state == "running" and not target.held
    assert "rst:0x1 (POWERON_RESET)" in target.last_logs["rt-node-b"]


@pytest.mark.parametrize("call", [
    lambda n: n.report_status(),
    lambda n: n.set_pod_ready("p", "ns", True),
    lambda n: n.finish_pod("p", "ns", True),
    lambda n: n.restart_container("p", "ns"),
    lambda n: n.renew(),
    lambda n: n.register(capacity={}, allocatable={}, labels={}, with_status=False),
    lambda n: setattr(n, "hold_terminating", True),
], ids=["report", "ready", "finish", "restart", "renew", "no-status", "hold-terminating"])
def test_what_a_real_kubelet_decides_disables_the_scenario(target, scenario, call):
    node = target.node_driver("node-a", scenario)
    with pytest.raises(CapabilityMissing, match="played by rig board rt-node-a"):
        call(node)


def test_a_lease_of_another_duration_disables_the_scenario(target, scenario):
    with pytest.raises(CapabilityMissing, match="a Lease declaring 4 s"):
        target.node_driver("node-a", scenario, lease_duration=4)


def test_restart_keeps_the_api_client_object(target, scenario):
    api = target.api
    target.restart_control_plane()
    assert target.api is api and api.base_url == target.url.rstrip("/")
    assert api.get("Node", "node-a")["metadata"]["name"] == "node-a"


@pytest.mark.parametrize("fault, kind", [("abort", "abort"), ("brownout", "brownout"),
                                         ("restart", "unexpected_reboot"), ("panic", "panic")])
def test_a_crash_is_a_board_failure_once_and_the_next_scenario_starts_clean(target, vrig, fault, kind):
    target.begin_scenario()
    getattr(vrig.board("node-b"), fault)()
    deadline = time.monotonic() + 5
    with pytest.raises(BoardFailure) as info:
        while time.monotonic() < deadline:
            target.check_health()
            time.sleep(0.05)
    assert info.value.board == "rt-node-b" and f"crashed ({kind}" in str(info.value)
    assert "--- last console lines ---" in str(info.value)
    target.check_health()                          # reported once
    target.end_scenario()
    target.begin_scenario()                        # resets the crashed board, waits for its kubelet
    assert vrig.board("node-b").state == "running"
    target.check_health()
    target.end_scenario()


def test_the_rig_files_timing_applies_unless_the_runner_was_given_other_timing(target):
    assert target.profile.lease_duration == 2.0 and target.profile.name == "hardware"
    from_file = target.rig_profile(profiles.load("hardware"))
    assert from_file.lease_renew_interval == 0.5 and from_file.default_toleration_seconds == 3.0
    mine = profiles.load("simulator", lease_duration=7)
    assert target.rig_profile(mine) is mine                      # explicit runner timing wins


def test_a_control_plane_crash_is_a_board_failure_and_the_next_scenario_has_an_api(target, vrig):
    crash_is_seen(target, vrig, r"board rt-cp crashed \(panic: StoreProhibited\)", within=5)
    target.begin_scenario()                        # resets the control-plane board, waits for its API
    assert target.api.get("Node", "node-a")["metadata"]["name"] == "node-a"
    target.check_health()
    target.end_scenario()


def test_a_scenario_that_fixes_a_board_nodes_figures_is_disabled_unless_written_for_rigs(target):
    target.begin_scenario()
    try:
        plain = SimpleNamespace(api=target.api, profile=target.profile, tags=frozenset({"clause-SCHED-X"}))
        with pytest.raises(CapabilityMissing, match=r"scenario's own figures \(memory=100Ki\)"):
            target.node_driver("node-a", plain).register(capacity={"memory": "100Ki"},
                                                         allocatable={"memory": "100Ki"}, labels={})
        # without figures it runs; labels are fine
        target.node_driver("node-a", plain).register(capacity={}, allocatable={}, labels={"a": "b"})
        rig_written = SimpleNamespace(api=target.api, profile=target.profile,
                                      tags=frozenset({"needs-real-kubelet"}))
        node = target.node_driver("node-a", rig_written)
        node.register(capacity={"memory": "100Ki"}, allocatable={"memory": "100Ki"}, labels={})
        assert node.capacity["memory"] == "192Ki"
    finally:
        target.end_scenario()
