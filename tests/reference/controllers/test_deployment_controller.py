"""The Deployment controller on a manual-clock control plane: passes, pods, status, conditions."""

from __future__ import annotations

import re

import deployment_helpers as h
import pytest

from kube32.reference.controllers import deployment_plan as dp
from kube32.spec import constants, reasons


@pytest.fixture
def cp():
    cp = h.control_plane()
    cp.scheduler = h.FirstNodeScheduler(cp)
    h.add_node(cp, "n1")
    yield cp
    cp.stop()


def cond(cp, type_, name="web"):
    d = cp.store.get(h.DEPLOY, "default", name)
    return next((c for c in d.get("status", {}).get("conditions", []) if c["type"] == type_), None)


def status(cp, name="web"):
    return cp.store.get(h.DEPLOY, "default", name).get("status") or {}


def test_registered_at_the_deployment_interval(cp):
    loop = next(c for c in cp.loops.controllers if c.NAME == "deployment")
    assert loop.interval() == cp.profile.deployment_interval


def test_nothing_happens_before_the_first_pass(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    cp.clock.advance(cp.profile.deployment_interval * 0.5)
    assert h.pods_of(cp) == []


def test_creates_bound_pods_named_after_the_hash(cp):
    d = h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp)
    pods = h.pods_of(cp)
    assert len(pods) == 2
    hsh = dp.template_hash(d["spec"]["template"])
    for p in pods:
        assert re.fullmatch(rf"web-{hsh}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", p["metadata"]["name"])
        assert p["spec"]["nodeName"] == "n1", "the controller hands new pods to the scheduler"
        assert [t["key"] for t in p["spec"]["tolerations"]] == [constants.TAINT_NOT_READY,
                                                               constants.TAINT_UNREACHABLE]
        assert p["spec"]["tolerations"][0]["tolerationSeconds"] == cp.profile.default_toleration_seconds


def test_toleration_seconds_follow_the_profile():
    cp = h.control_plane(default_toleration_seconds=42)
    try:
        h.create_deployment(cp, h.deployment(replicas=1))
        h.passes(cp)
        assert {t["tolerationSeconds"] for t in h.pods_of(cp)[0]["spec"]["tolerations"]} == {42}
    finally:
        cp.stop()


def test_level_triggered_repairs_a_pod_removed_behind_its_back(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp)
    victim = h.pods_of(cp)[0]["metadata"]["name"]
    cp.store.delete("pods", "default", victim)
    assert len(h.pods_of(cp)) == 1
    h.passes(cp)
    names = [p["metadata"]["name"] for p in h.pods_of(cp)]
    assert len(names) == 2 and victim not in names


def test_scale_down_deletes_bound_pods_gracefully_and_does_not_recount_them(cp):
    h.create_deployment(cp, h.deployment(replicas=3))
    h.passes(cp)
    h.start_all(cp)
    h.scale(cp, 1)
    h.passes(cp)
    assert len(h.pods_of(cp)) == 1
    assert len(h.pods_of(cp, include_terminating=True)) == 3
    h.passes(cp, 3)                                   # terminating pods are not deleted again
    assert len(h.pods_of(cp, include_terminating=True)) == 3
    assert status(cp)["replicas"] == 1
    h.confirm_deletions(cp)
    assert len(h.pods_of(cp, include_terminating=True)) == 1


def test_deleting_the_deployment_deletes_its_pods(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp)
    other = h.create_deployment(cp, h.deployment("other", replicas=1, uid="x"))
    h.passes(cp)
    cp.store.delete(h.DEPLOY, "default", "web")
    h.passes(cp)
    left = [p for p in cp.store.list("pods", "default") if not p["metadata"].get("deletionTimestamp")]
    assert [dp.controller_ref(p)["name"] for p in left] == ["other"]
    assert dp.owned_pods(other, left) == left


def test_one_stale_pod_replaced_per_pass(cp):
    h.create_deployment(cp, h.deployment(replicas=3, strategy=h.rolling(max_unavailable=3)))
    h.passes(cp)
    h.start_all(cp)
    h.update_template(cp, "v2")
    for n in (1, 2, 3):
        h.passes(cp)
        assert h.images(h.pods_of(cp)) == sorted(["v2"] * n + ["v1"] * (3 - n)), f"after pass {n}"


def test_rollout_honours_max_unavailable_until_new_pods_are_ready(cp):
    h.create_deployment(cp, h.deployment(replicas=4))        # maxUnavailable 1, maxSurge 1
    h.passes(cp)
    h.start_all(cp)
    h.update_template(cp, "v2")
    h.passes(cp, 5)
    assert h.images(h.pods_of(cp)).count("v1") == 3, "only one ready stale pod may go while new ones are not ready"
    h.start_all(cp)
    h.passes(cp)
    assert h.images(h.pods_of(cp)).count("v1") == 2


def test_default_three_replicas_roll_without_losing_availability(cp):
    h.create_deployment(cp, h.deployment(replicas=3))        # maxUnavailable 0, maxSurge 1
    h.passes(cp)
    h.start_all(cp)
    h.update_template(cp, "v2")
    for _ in range(20):
        h.passes(cp)
        ready = sum(1 for p in h.pods_of(cp) if dp.is_ready(p))
        assert ready >= 3
        h.start_all(cp)
        h.confirm_deletions(cp)
    assert h.images(h.pods_of(cp)) == ["v2"] * 3


def test_status_counts_and_generation(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp)
    s = status(cp)
    assert s["observedGeneration"] == 1
    assert (s["replicas"], s["updatedReplicas"], s["unavailableReplicas"]) == (2, 2, 2)
    assert "readyReplicas" not in s and "availableReplicas" not in s, "zero counts are omitted"
    h.start(cp, h.pods_of(cp)[0])
    h.passes(cp)
    s = status(cp)
    assert (s["readyReplicas"], s["availableReplicas"], s["unavailableReplicas"]) == (1, 1, 1)
    d = cp.store.get(h.DEPLOY, "default", "web")
    d["metadata"]["labels"] = {"x": "y"}
    assert cp.store.update(h.DEPLOY, d)["metadata"]["generation"] == 1
    assert h.update_template(cp, "v2")["metadata"]["generation"] == 2
    h.passes(cp)
    assert status(cp)["observedGeneration"] == 2
    assert cp.store.get(h.DEPLOY, "default", "web")["metadata"]["generation"] == 2


def test_min_ready_seconds_delays_availability(cp):
    h.create_deployment(cp, h.deployment(replicas=1, minReadySeconds=5))
    h.passes(cp)
    h.start_all(cp)
    h.passes(cp)
    assert status(cp)["readyReplicas"] == 1 and "availableReplicas" not in status(cp)
    h.passes(cp, 5)
    assert status(cp)["availableReplicas"] == 1


def test_available_condition(cp):
    h.create_deployment(cp, h.deployment(replicas=4))
    h.passes(cp)
    c = cond(cp, "Available")
    assert (c["status"], c["reason"], c["message"]) == ("False", reasons.DEPLOY_MIN_UNAVAILABLE,
                                                        reasons.DEPLOY_MIN_UNAVAILABLE_MSG)
    for p in h.pods_of(cp)[:3]:
        h.start(cp, p)
    h.passes(cp)
    c = cond(cp, "Available")
    assert (c["status"], c["reason"], c["message"]) == ("True", reasons.DEPLOY_MIN_AVAILABLE,
                                                        reasons.DEPLOY_MIN_AVAILABLE_MSG)


def test_progressing_condition_lifecycle(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp)
    c = cond(cp, "Progressing")
    assert (c["status"], c["reason"], c["message"]) == ("True", reasons.DEPLOY_PROGRESSING,
                                                        'Deployment "web" is progressing.')
    h.start_all(cp)
    h.passes(cp)
    c = cond(cp, "Progressing")
    assert (c["status"], c["reason"], c["message"]) == ("True", reasons.DEPLOY_COMPLETE,
                                                        'Deployment "web" has successfully progressed.')
    rv = cp.store.get(h.DEPLOY, "default", "web")["metadata"]["resourceVersion"]
    h.passes(cp, 3)
    assert cp.store.get(h.DEPLOY, "default", "web")["metadata"]["resourceVersion"] == rv, \
        "a steady Deployment is not rewritten every pass"


def test_progress_deadline_exceeded_without_nodes():
    cp = h.control_plane()
    try:
        h.create_deployment(cp, h.deployment(replicas=1, progressDeadlineSeconds=10))
        h.passes(cp)                                     # t=1: created (progress), cannot schedule
        assert cond(cp, "Progressing")["reason"] == reasons.DEPLOY_PROGRESSING
        h.passes(cp, 10)                                 # t=11: 1 + 10 is not before 11
        assert cond(cp, "Progressing")["reason"] == reasons.DEPLOY_PROGRESSING
        h.passes(cp)                                     # t=12
        c = cond(cp, "Progressing")
        assert (c["status"], c["reason"], c["message"]) == ("False", reasons.DEPLOY_TIMED_OUT,
                                                            'Deployment "web" has timed out progressing.')
    finally:
        cp.stop()


def test_replicasets_are_never_created(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp, 3)
    assert not [k for k in cp.store._objects if "replicaset" in k]


def test_a_template_change_of_a_complete_deployment_is_progress(cp):
    h.create_deployment(cp, h.deployment(replicas=2))        # budget 0: the first pass only surges
    h.passes(cp)
    h.start_all(cp)
    h.passes(cp)
    assert cond(cp, "Progressing")["reason"] == reasons.DEPLOY_COMPLETE
    h.update_template(cp, "v2")
    h.passes(cp)
    assert cond(cp, "Progressing")["reason"] == reasons.DEPLOY_PROGRESSING


def test_scaling_a_complete_deployment_keeps_it_complete(cp):
    h.create_deployment(cp, h.deployment(replicas=2))
    h.passes(cp)
    h.start_all(cp)
    h.passes(cp)
    h.scale(cp, 3)
    h.passes(cp)
    assert cond(cp, "Progressing")["reason"] == reasons.DEPLOY_COMPLETE


def test_a_broken_deployment_does_not_stop_the_others(cp):
    h.create_deployment(cp, h.deployment("bad", uid="b", replicas=2, strategy=h.rolling(max_unavailable="25")))
    h.create_deployment(cp, h.deployment("web", replicas=2))
    h.passes(cp)
    assert len(h.pods_of(cp, "web")) == 2
    h.update_template(cp, "v2", "bad")                   # the rollout needs the (invalid) budget
    h.passes(cp)
    assert len(h.pods_of(cp, "web")) == 2
