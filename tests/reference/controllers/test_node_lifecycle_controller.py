"""The node lifecycle controller on a manual clock: thresholds at the check-interval boundary."""

from __future__ import annotations

import pytest
from lifecycle_helpers import (
    NO_EXECUTE,
    NO_SCHEDULE,
    add_node,
    add_pod,
    control_plane,
    events,
    node,
    pod,
    ready,
    renew,
    taints,
)

from kube32.spec import constants, reasons, timefmt


@pytest.fixture
def cp():
    cp = control_plane()
    yield cp
    cp.stop()


def step(cp) -> float:
    return cp.profile.lifecycle_check_interval


def test_ready_until_just_before_the_lease_duration(cp):
    add_node(cp, "n")
    cp.clock.advance(cp.profile.lease_duration - step(cp))
    assert ready(cp, "n")["status"] == "True"
    assert taints(cp, "n") == []
    assert events(cp, reasons.EVENT_NODE_NOT_READY, "n") == []


def test_unknown_at_the_lease_duration(cp):
    add_node(cp, "n")
    cp.clock.advance(cp.profile.lease_duration)
    cond = ready(cp, "n")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "Unknown", reasons.NODE_STATUS_UNKNOWN, reasons.NODE_STATUS_UNKNOWN_MESSAGE)
    assert cond["lastTransitionTime"] == timefmt.rfc3339(cp.clock.now())
    assert taints(cp, "n") == [NO_SCHEDULE]
    [event] = events(cp, reasons.EVENT_NODE_NOT_READY, "n")
    assert (event["type"], event["message"], event["source"]["component"]) == (
        "Normal", "Node n status is now: NodeNotReady", "node-controller")


def test_a_lease_declaring_4s_times_out_at_4s(cp):
    add_node(cp, "n", lease_duration=4)
    cp.clock.advance(4 - step(cp))
    assert ready(cp, "n")["status"] == "True"
    cp.clock.advance(step(cp))
    assert ready(cp, "n")["status"] == "Unknown"


def test_a_lease_without_duration_uses_not_ready_timeout():
    cp = control_plane(not_ready_timeout=6)
    try:
        add_node(cp, "n", lease_duration=None)
        cp.clock.advance(6 - step(cp))
        assert ready(cp, "n")["status"] == "True"
        cp.clock.advance(step(cp))
        assert ready(cp, "n")["status"] == "Unknown"
    finally:
        cp.stop()


def test_renewals_keep_the_node_ready(cp):
    add_node(cp, "n")
    for _ in range(10):
        cp.clock.advance(cp.profile.lease_renew_interval)
        renew(cp, "n")
    assert ready(cp, "n")["status"] == "True"
    assert taints(cp, "n") == []


def test_noexecute_at_lease_duration_plus_delay_with_time_added(cp):
    add_node(cp, "n")
    total = cp.profile.lease_duration + cp.profile.noexecute_delay
    cp.clock.advance(total - step(cp))
    assert taints(cp, "n") == [NO_SCHEDULE]
    cp.clock.advance(step(cp))
    assert taints(cp, "n") == [NO_SCHEDULE, NO_EXECUTE]
    taint = node(cp, "n")["spec"]["taints"][1]
    assert taint["timeAdded"] == timefmt.rfc3339(cp.clock.now())


def test_noexecute_follows_the_lease_own_duration(cp):
    add_node(cp, "n", lease_duration=4)
    cp.clock.advance(4 + cp.profile.noexecute_delay - step(cp))
    assert NO_EXECUTE not in taints(cp, "n")
    cp.clock.advance(step(cp))
    assert NO_EXECUTE in taints(cp, "n")


def test_default_toleration_evicts_at_330s(cp):
    add_node(cp, "n")
    add_pod(cp, "p", "n")
    due = cp.profile.noexecute_after + cp.profile.default_toleration_seconds
    cp.clock.advance(due - step(cp))
    assert pod(cp, "p")["spec"]["nodeName"] == "n"
    cp.clock.advance(step(cp))
    p = pod(cp, "p")
    assert "nodeName" not in p["spec"]
    assert p["status"]["phase"] == "Pending" and p["status"]["reason"] == "Evicted"
    [cond] = p["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("DisruptionTarget", "True", "DeletionByTaintManager")
    [event] = events(cp, "Evicted", "p")
    assert event["type"] == "Warning"
    assert event["involvedObject"]["kind"] == "Pod"


@pytest.mark.parametrize("tolerations, evicted_after", [
    ([], 0.0),                                                     # no matching toleration: at once
    ([{"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 0}], 0.0),
    ([{"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": -5}], 0.0),
    ([{"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 60}], 60.0),
    ([{"key": "other", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 600}], 0.0),
])
def test_eviction_time_after_noexecute(cp, tolerations, evicted_after):
    add_node(cp, "n")
    # admit=False: the tolerations are exactly these (no defaults appended)
    add_pod(cp, "p", "n", tolerations=tolerations, admit=False)
    at = cp.profile.noexecute_after + evicted_after
    cp.clock.advance(at - step(cp))
    assert pod(cp, "p")["spec"].get("nodeName") == "n"
    cp.clock.advance(step(cp))
    assert pod(cp, "p")["spec"].get("nodeName") is None


def test_omitted_toleration_seconds_tolerates_for_ever(cp):
    add_node(cp, "n")
    add_pod(cp, "p", "n", tolerations=[{"key": constants.TAINT_UNREACHABLE, "operator": "Exists",
                                        "effect": "NoExecute"}])
    cp.clock.advance(cp.profile.noexecute_after + 3600)
    assert pod(cp, "p")["spec"]["nodeName"] == "n"


@pytest.mark.parametrize("phase, owner", [("Succeeded", None), ("Failed", None), ("Running", "DaemonSet")])
def test_exempt_pods_stay(cp, phase, owner):
    add_node(cp, "n")
    add_pod(cp, "p", "n", tolerations=[], phase=phase, owner_kind=owner, admit=False)
    cp.clock.advance(cp.profile.noexecute_after + 1000)
    assert pod(cp, "p")["spec"]["nodeName"] == "n"
    assert pod(cp, "p")["status"]["phase"] == phase


def test_terminating_pod_removed_when_toleration_expires(cp):
    add_node(cp, "n")
    add_pod(cp, "p", "n", tolerations=[{"key": constants.TAINT_UNREACHABLE, "operator": "Exists",
                                        "effect": "NoExecute", "tolerationSeconds": 20}])
    with cp.store.lock:
        p = pod(cp, "p")
        p["metadata"]["deletionTimestamp"] = timefmt.rfc3339(cp.clock.now() + 30)
        cp.store.update("pods", p)
    cp.clock.advance(cp.profile.noexecute_after + 20 - step(cp))
    assert pod(cp, "p") is not None
    cp.clock.advance(step(cp))
    assert pod(cp, "p") is None


def test_renewal_before_expiry_recovers(cp):
    add_node(cp, "n")
    add_pod(cp, "p", "n")
    cp.clock.advance(cp.profile.noexecute_after + 10)
    assert taints(cp, "n") == [NO_SCHEDULE, NO_EXECUTE]
    renew(cp, "n")
    cp.clock.advance(step(cp))
    assert ready(cp, "n")["status"] == "True"
    assert taints(cp, "n") == []
    [event] = events(cp, reasons.EVENT_NODE_READY, "n")
    assert event["message"] == "Node n status is now: NodeReady"
    assert pod(cp, "p")["spec"]["nodeName"] == "n" and pod(cp, "p")["status"]["phase"] == "Running"


def test_not_ready_event_once(cp):
    add_node(cp, "n")
    cp.clock.advance(cp.profile.noexecute_after + 50)
    [event] = events(cp, reasons.EVENT_NODE_NOT_READY, "n")
    assert event["count"] == 1


def test_restart_gives_a_ready_node_a_full_lease_duration(tmp_path):
    cp = control_plane(str(tmp_path))
    add_node(cp, "n")
    cp.clock.advance(10)          # last renewal 10 s ago, still Ready
    now = cp.clock.now()
    cp.stop()
    cp = control_plane(str(tmp_path), start=now)
    try:
        cp.clock.advance(cp.profile.lease_duration - step(cp))
        assert ready(cp, "n")["status"] == "True"
        cp.clock.advance(step(cp))
        assert ready(cp, "n")["status"] == "Unknown"
        cp.clock.advance(cp.profile.noexecute_delay - step(cp))
        assert NO_EXECUTE not in taints(cp, "n")
        cp.clock.advance(step(cp))
        assert NO_EXECUTE in taints(cp, "n")
    finally:
        cp.stop()


def test_restart_keeps_counting_from_time_added(tmp_path):
    cp = control_plane(str(tmp_path))
    add_node(cp, "n")
    add_pod(cp, "p", "n", tolerations=[{"key": constants.TAINT_UNREACHABLE, "operator": "Exists",
                                        "effect": "NoExecute", "tolerationSeconds": 60}])
    cp.clock.advance(cp.profile.noexecute_after + 40)
    now = cp.clock.now()
    cp.stop()
    cp = control_plane(str(tmp_path), start=now)
    try:
        cp.clock.advance(20 - step(cp))
        assert pod(cp, "p")["spec"]["nodeName"] == "n"
        assert ready(cp, "n")["status"] == "Unknown"    # no grace for a node already timed out
        cp.clock.advance(step(cp))
        assert pod(cp, "p")["spec"].get("nodeName") is None
        assert len(events(cp, "Evicted", "p")) == 1
    finally:
        cp.stop()


def test_nodes_without_status_are_left_alone(cp):
    cp.store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "bare"}})
    cp.clock.advance(100)
    assert "status" not in node(cp, "bare")
    assert cp.loops.errors == []


def test_board_clock_skew_does_not_matter(cp):
    add_node(cp, "n")
    for _ in range(6):                 # a board whose clock is an hour behind keeps renewing
        cp.clock.advance(cp.profile.lease_renew_interval)
        with cp.store.lock:
            lease = cp.store.get("leases.coordination.k8s.io", constants.NODE_LEASE_NAMESPACE, "n")
            lease["spec"]["renewTime"] = timefmt.rfc3339_micro(cp.clock.now() - 3600)
            cp.store.update("leases.coordination.k8s.io", lease)
    assert ready(cp, "n")["status"] == "True"


def test_renewal_between_checks_is_timed_from_the_next_check(cp):
    add_node(cp, "n")
    cp.clock.advance(step(cp) / 2)
    renew(cp, "n")                     # seen by the check half an interval later
    cp.clock.advance(cp.profile.lease_duration)
    assert ready(cp, "n")["status"] == "True"
    cp.clock.advance(step(cp))
    assert ready(cp, "n")["status"] == "Unknown"


def test_a_user_not_ready_noexecute_taint_also_evicts(cp):
    add_node(cp, "n")
    add_pod(cp, "p", "n", tolerations=[], admit=False)
    with cp.store.lock:
        n = node(cp, "n")
        n.setdefault("spec", {})["taints"] = [{"key": constants.TAINT_NOT_READY, "effect": "NoExecute",
                                "timeAdded": timefmt.rfc3339(cp.clock.now())}]
        cp.store.update("nodes", n)
    cp.clock.advance(step(cp))
    assert pod(cp, "p")["spec"].get("nodeName") is None
    assert pod(cp, "p")["status"]["message"] == reasons.EVICTED_MESSAGE.format(
        node="n", taint=f"{constants.TAINT_NOT_READY}:NoExecute")
