"""The pure Job planner: how many pods to start, when the Job completes or fails."""

from __future__ import annotations

import pytest

from kube32.reference.controllers import job_plan as jp
from kube32.spec import constants, reasons

NOW = 1_767_225_600.0


def job(**spec) -> dict:
    return {"metadata": {"name": "j", "namespace": "default", "uid": "job-uid"},
            "spec": {"template": {"spec": {"containers": [{"name": "c"}], "restartPolicy": "Never"}}, **spec}}


def pod(name, phase="Running", terminating=False, restarts=0) -> dict:
    meta = {"name": name, "creationTimestamp": f"2026-01-01T00:00:{name[-1:].zfill(2)}Z"}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:01:00Z"
    return {"metadata": meta, "spec": {"nodeName": "n"},
            "status": {"phase": phase, "containerStatuses": [{"name": "c", "restartCount": restarts}]}}


def test_defaults_come_from_constants():
    j = job()
    assert (jp.completions(j), jp.parallelism(j), jp.backoff_limit(j)) == (
        constants.JOB_DEFAULT_COMPLETIONS, constants.JOB_DEFAULT_PARALLELISM, constants.JOB_DEFAULT_BACKOFF_LIMIT)


@pytest.mark.parametrize("completions,parallelism,succeeded,active,expected_create", [
    (3, 2, 0, 0, 2),     # parallelism caps
    (3, 2, 2, 0, 1),     # only the missing completion
    (3, 2, 1, 1, 1),
    (3, 2, 0, 2, 0),
    (1, 5, 0, 0, 1),     # never more than completions
    (5, 0, 0, 0, 0),     # parallelism 0 pauses
])
def test_how_many_pods_start(completions, parallelism, succeeded, active, expected_create):
    pods = [pod(f"s{i}", "Succeeded") for i in range(succeeded)] + [pod(f"a{i}") for i in range(active)]
    plan = jp.decide(job(completions=completions, parallelism=parallelism), pods, NOW)
    assert plan.create == expected_create and plan.new_condition is None


def test_terminating_pods_are_not_active():
    plan = jp.decide(job(), [pod("a1", terminating=True)], NOW)
    assert plan.create == 1


def test_completes_when_completions_succeeded():
    plan = jp.decide(job(completions=2), [pod("s1", "Succeeded"), pod("s2", "Succeeded")], NOW)
    cond = plan.new_condition
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        "Complete", "True", reasons.JOB_COMPLETIONS_REACHED, reasons.JOB_COMPLETIONS_REACHED_MSG)
    status = jp.compute_status(job(completions=2), [pod("s1", "Succeeded"), pod("s2", "Succeeded")], NOW, cond)
    assert status["succeeded"] == 2 and "active" not in status and status["completionTime"] == cond["lastTransitionTime"]


@pytest.mark.parametrize("limit,failures,fails", [(2, 2, False), (2, 3, True), (0, 1, True), (None, 6, False),
                                                  (None, 7, True)])
def test_fails_only_when_failures_exceed_the_backoff_limit(limit, failures, fails):
    spec = {} if limit is None else {"backoffLimit": limit}
    pods = [pod(f"f{i}", "Failed") for i in range(failures)] + [pod("a9")]
    plan = jp.decide(job(**spec), pods, NOW)
    if fails:
        assert plan.new_condition["type"] == "Failed"
        assert plan.new_condition["reason"] == reasons.JOB_BACKOFF_LIMIT_EXCEEDED
        assert plan.new_condition["message"] == reasons.JOB_BACKOFF_LIMIT_EXCEEDED_MSG
        assert [jp.pod_name(p) for p, _ in plan.delete] == ["a9"]
        assert plan.create == 0
    else:
        assert plan.new_condition is None and plan.delete == []


def test_container_restarts_in_place_are_not_failures():
    pods = [pod("a1", restarts=10)]
    assert jp.decide(job(backoffLimit=0, template={"spec": {"restartPolicy": "OnFailure"}}), pods, NOW).new_condition is None


def test_a_failed_job_keeps_deleting_active_pods_and_starts_none():
    j = job()
    j["status"] = {"conditions": [jp.condition("Failed", "BackoffLimitExceeded", "m", NOW)]}
    plan = jp.decide(j, [pod("a1")], NOW)
    assert plan.create == 0 and [jp.pod_name(p) for p, _ in plan.delete] == ["a1"]


def test_status_omits_zero_counters_and_keeps_start_time():
    status = jp.compute_status(job(), [pod("a1")], NOW, None)
    assert status["active"] == 1 and "succeeded" not in status and "failed" not in status
    assert status["startTime"] == "2026-01-01T00:00:00Z"
    again = jp.compute_status({**job(), "status": status}, [pod("a1")], NOW + 50, None)
    assert again["startTime"] == status["startTime"]


def test_build_pod_tolerations_labels_owner():
    p = jp.build_pod(job(), 300)
    assert p["metadata"]["generateName"] == "j-"
    assert p["metadata"]["labels"]["job-name"] == "j" and p["metadata"]["labels"]["controller-uid"] == "job-uid"
    assert [t.get("tolerationSeconds") for t in p["spec"]["tolerations"]] == [300, 300]
    assert p["metadata"]["ownerReferences"][0]["kind"] == "Job"
