"""The pure lifecycle rules: toleration matching, eviction deadlines, node plans."""

from __future__ import annotations

import pytest

from kube32.reference.controllers import lifecycle_rules as rules
from kube32.spec import constants, reasons

TAINT = {"key": constants.TAINT_UNREACHABLE, "effect": "NoExecute"}
ADDED = 1000.0


@pytest.mark.parametrize("toleration, expected", [
    ({"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute"}, True),
    ({"key": constants.TAINT_UNREACHABLE, "operator": "Exists"}, True),            # empty effect: any
    ({"operator": "Exists"}, True),                                                 # empty key: any
    ({"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoSchedule"}, False),
    ({"key": constants.TAINT_NOT_READY, "operator": "Exists", "effect": "NoExecute"}, False),
    ({"key": constants.TAINT_UNREACHABLE, "operator": "Equal", "value": "", "effect": "NoExecute"}, True),
    ({"key": constants.TAINT_UNREACHABLE, "value": "x", "effect": "NoExecute"}, False),  # Equal by default
])
def test_toleration_matches(toleration, expected):
    assert rules.toleration_matches(toleration, TAINT) is expected


def tol(seconds=None, key=constants.TAINT_UNREACHABLE):
    t = {"key": key, "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t


@pytest.mark.parametrize("tolerations, deadline", [
    ([], float("-inf")),
    ([tol(key="other", seconds=50)], float("-inf")),
    ([tol(0)], float("-inf")),
    ([tol(-5)], float("-inf")),
    ([tol()], None),
    ([tol(60)], ADDED + 60),
    ([tol(), tol(60)], ADDED + 60),           # upstream: the smallest declared seconds wins
    ([tol(300), tol(60)], ADDED + 60),
    ([tol(60), tol(0)], float("-inf")),
])
def test_eviction_deadline(tolerations, deadline):
    assert rules.eviction_deadline(tolerations, TAINT, ADDED) == deadline


def test_health_boundaries_and_until_when_it_holds():
    fresh, unreachable, no_execute = rules.Health.FRESH, rules.Health.UNREACHABLE, rules.Health.NO_EXECUTE
    assert rules.health(0, 15, 15, 14.5) == rules.Timed(fresh, 15)
    assert rules.health(0, 15, 15, 15) == rules.Timed(unreachable, 30)
    assert rules.health(0, 15, 15, 29.5) == rules.Timed(unreachable, 30)
    assert rules.health(0, 15, 15, 30) == rules.Timed(no_execute, rules.NEVER)


def test_pod_verdict_until_its_deadline_and_for_which_taint():
    not_ready = {"key": constants.TAINT_NOT_READY, "effect": "NoExecute"}
    pod = {"metadata": {"name": "p"}, "spec": {"tolerations": [tol(60), tol(20, key=constants.TAINT_NOT_READY)]}}
    taints = [(TAINT, ADDED), (not_ready, ADDED + 30)]
    assert rules.pod_verdict(pod, taints, ADDED + 49) == rules.Timed(rules.PodVerdict.KEEP, ADDED + 50)
    assert rules.pod_verdict(pod, taints, ADDED + 50) == rules.Timed(rules.PodVerdict.EVICT, cause=not_ready)
    assert rules.pod_verdict({**pod, "spec": {"tolerations": [tol()]}}, taints[:1], ADDED + 1e9) \
        == rules.Timed(rules.PodVerdict.KEEP)
    leaving = {**pod, "metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:00:00Z"}}
    assert rules.pod_verdict(leaving, taints, ADDED + 60).value is rules.PodVerdict.REMOVE


def test_lease_threshold_and_fallback():
    assert rules.lease_threshold({"spec": {"leaseDurationSeconds": 4}}, 15) == 4
    assert rules.lease_threshold({"spec": {}}, 15) == 15
    assert rules.lease_threshold(None, 7) == 7


def test_first_sight_and_observe():
    node = _node()
    seen = rules.first_sight(node, "2026-01-01T00:00:00.000000Z", 15, 500.0)
    assert seen.at == 500.0
    assert rules.observe(seen, "2026-01-01T00:00:00.000000Z", 600.0) is seen          # no change
    assert rules.observe(seen, "2026-01-01T00:00:05.000000Z", 600.0).at == 600.0      # observed now
    assert rules.observe(seen, None, 600.0) is seen


def test_first_sight_of_a_timed_out_node_keeps_it_timed_out():
    node = _node(status="Unknown", reason=reasons.NODE_STATUS_UNKNOWN)
    node["status"]["conditions"][0]["lastTransitionTime"] = "1970-01-01T00:01:40Z"   # 100
    seen = rules.first_sight(node, None, 15, 500.0)
    assert seen.at == 85.0


def test_clamp_renewal():
    assert rules.clamp_renewal("1970-01-01T00:01:40.250000Z", 100.0, 100.5) == 100.25
    assert rules.clamp_renewal("1970-01-01T00:00:10Z", 100.0, 100.5) == 100.0     # board clock behind
    assert rules.clamp_renewal("1971-01-01T00:00:10Z", 100.0, 100.5) == 100.5     # board clock ahead
    assert rules.clamp_renewal(None, 100.0, 100.5) == 100.0


def _node(status="True", reason="KubeletReady", taints=None):
    node = {"metadata": {"name": "n"}, "spec": {},
            "status": {"conditions": [{"type": "Ready", "status": status, "reason": reason}]}}
    if taints:
        node["spec"]["taints"] = taints
    return node


def test_plan_fresh_ready_node_changes_nothing():
    plan = rules.plan_node(_node(), rules.Health.FRESH, 10.0)
    assert not plan.changed and plan.events == []


def test_plan_unreachable_from_false_has_no_not_ready_event():
    plan = rules.plan_node(_node(status="False", reason="KubeletNotReady"), rules.Health.UNREACHABLE, 10.0)
    assert plan.changed and plan.events == []
    assert rules.marked_unknown(plan.node)


def test_plan_recovery_from_taints_only():
    node = _node(taints=[{"key": constants.TAINT_UNREACHABLE, "effect": "NoSchedule"},
                         {"key": "user", "effect": "NoSchedule"}])
    plan = rules.plan_node(node, rules.Health.FRESH, 10.0)
    assert plan.node["spec"]["taints"] == [{"key": "user", "effect": "NoSchedule"}]
    assert plan.events == [("Normal", "NodeReady", "Node n status is now: NodeReady")]


def test_evicted_pod_shape():
    pod = {"metadata": {"name": "p"}, "spec": {"nodeName": "n"},
           "status": {"phase": "Running", "podIP": "10.0.0.1", "qosClass": "BestEffort"}}
    new = rules.evicted(pod, "n", TAINT, 3600.0)
    assert "nodeName" not in new["spec"]
    assert new["status"]["phase"] == "Pending" and new["status"]["reason"] == reasons.POD_REASON_EVICTED
    assert "podIP" not in new["status"] and new["status"]["qosClass"] == "BestEffort"
    assert new["status"]["conditions"][0]["type"] == "DisruptionTarget"
    assert pod["spec"]["nodeName"] == "n"          # the input is not mutated
