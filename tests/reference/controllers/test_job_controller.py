"""The workload loop on Jobs, against an in-memory control plane on a manual clock."""

from __future__ import annotations

import pytest
import workload_helpers as h

from kube32.reference import errors
from kube32.spec import reasons


@pytest.fixture
def cp():
    c = h.control_plane()
    h.add_node(c, "n1")
    yield c
    c.stop()


def active(cp, j):
    return [p for p in h.live(cp, j) if p["status"].get("phase") not in ("Succeeded", "Failed")]


def condition(cp, name, type_):
    for c in h.get(cp, h.JOBS, name).get("status", {}).get("conditions") or []:
        if c["type"] == type_:
            return c
    return None


def test_completions_and_parallelism(cp):
    j = h.create(cp, h.JOBS, h.job(completions=3, parallelism=2))
    seen_max = 0
    succeeded = 0
    for _ in range(10):
        h.passes(cp)
        h.start_all(cp, j)
        running = active(cp, j)
        seen_max = max(seen_max, len(running))
        if condition(cp, "j", "Complete"):
            break
        h.finish(cp, running[0], "Succeeded")
        succeeded += 1
    assert seen_max == 2
    assert succeeded == 3
    status = h.get(cp, h.JOBS, "j")["status"]
    assert status["succeeded"] == 3 and "active" not in status and status["completionTime"]
    assert condition(cp, "j", "Complete")["reason"] == reasons.JOB_COMPLETIONS_REACHED
    h.passes(cp, 5)
    assert len(h.owned(cp, j)) == 3                  # no pod after completion


@pytest.mark.parametrize("limit,failures_to_fail", [(2, 3), (None, 7), (0, 1)])
def test_backoff_limit(cp, limit, failures_to_fail):
    spec = {} if limit is None else {"backoffLimit": limit}
    j = h.create(cp, h.JOBS, h.job(parallelism=2, completions=5, **spec))
    failures = 0
    while not condition(cp, "j", "Failed"):
        h.passes(cp)
        h.start_all(cp, j)
        if condition(cp, "j", "Failed"):
            break
        h.finish(cp, active(cp, j)[0], "Failed")
        failures += 1
        assert failures <= failures_to_fail
    assert failures == failures_to_fail
    cond = condition(cp, "j", "Failed")
    assert (cond["reason"], cond["message"]) == (reasons.JOB_BACKOFF_LIMIT_EXCEEDED, reasons.JOB_BACKOFF_LIMIT_EXCEEDED_MSG)
    assert active(cp, j) == []
    assert len(h.terminating(cp, j)) == 1             # the other active pod is being stopped
    h.confirm_deletions(cp)
    h.passes(cp, 3)
    assert active(cp, j) == [] and h.get(cp, h.JOBS, "j")["status"]["failed"] == failures_to_fail


def test_on_failure_restarts_do_not_count(cp):
    j = h.create(cp, h.JOBS, h.job(policy="OnFailure", backoffLimit=1))
    h.passes(cp)
    h.start_all(cp, j)
    (pod,) = h.owned(cp, j)
    for _ in range(5):
        h.restart_container(cp, pod)
        h.passes(cp)
    assert condition(cp, "j", "Failed") is None
    assert len(h.owned(cp, j)) == 1
    h.finish(cp, pod, "Succeeded")
    h.passes(cp)
    assert condition(cp, "j", "Complete")


def test_job_pods_get_default_tolerations_with_seconds(cp):
    j = h.create(cp, h.JOBS, h.job())
    h.passes(cp)
    (pod,) = h.owned(cp, j)
    assert [t["tolerationSeconds"] for t in pod["spec"]["tolerations"]] == [cp.profile.default_toleration_seconds] * 2


def test_owner_deletion_deletes_pods(cp):
    j = h.create(cp, h.JOBS, h.job(parallelism=2, completions=2))
    h.passes(cp)
    pods = h.owned(cp, j)
    assert len(pods) == 2
    h.start(cp, pods[0])
    h.finish(cp, pods[1], "Succeeded")
    cp.store.delete(h.JOBS, "default", "j")
    h.passes(cp)
    assert [p["metadata"]["name"] for p in h.terminating(cp, j)] == [pods[0]["metadata"]["name"]]
    assert cp.store.try_get("pods", "default", pods[1]["metadata"]["name"]) is None


@pytest.mark.parametrize("policy", ["Always", None])
def test_admission_rejects_always(cp, policy):
    j = h.job()
    if policy is None:
        del j["spec"]["template"]["spec"]["restartPolicy"]
    else:
        j["spec"]["template"]["spec"]["restartPolicy"] = policy
    with pytest.raises(errors.Invalid) as info:
        cp.admit(h.JOBS, j, None, "CREATE")
    assert info.value.status()["message"] == ('Job.batch "j" is invalid: spec.template.spec.restartPolicy: '
                                              'Unsupported value: "Always": supported values: "OnFailure", "Never"')


@pytest.mark.parametrize("policy", ["Never", "OnFailure"])
def test_admission_accepts_never_and_on_failure(cp, policy):
    j = h.job(policy=policy)
    cp.admit(h.JOBS, j, None, "CREATE")
    assert (j["spec"]["completions"], j["spec"]["parallelism"], j["spec"]["backoffLimit"]) == (1, 1, 6)


def test_rejection_over_http():
    from kube32.reference.app import create_app
    from kube32.reference.config import Config

    app = create_app(Config(clock="manual", clock_start=h.START, run_loops=False))
    client = app.test_client()
    body = h.job(policy="Always")
    r = client.post("/apis/batch/v1/namespaces/default/jobs", json=body)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["reason"] == "Invalid"
    assert r.get_json()["details"]["causes"][0]["field"] == "spec.template.spec.restartPolicy"
    r = client.post("/apis/batch/v1/namespaces/default/jobs", json=h.job(policy="Never"))
    assert r.status_code == 201
    ds = h.daemonset()
    ds["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    r = client.post("/apis/apps/v1/namespaces/default/daemonsets", json=ds)
    assert r.status_code == 422 and r.get_json()["details"]["kind"] == "DaemonSet"
