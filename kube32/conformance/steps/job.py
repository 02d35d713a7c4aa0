"""Job steps: creating Jobs, driving their pods to success or failure through the fake kubelets,
and judging completions, parallelism, backoff and conditions. Every phrase starts with "the Job"."""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from kube32.conformance.steps._util import assert_made_from, rows, status_written, step
from kube32.conformance.steps.workloads import (
    MAX_ROUNDS,
    active,
    create_or_fail,
    delete_owner,
    describe,
    job_manifest,
    notes,
    owned_pods,
    start_if_pending,
)


# == Job: creating and driving ===================================================================
@given(step('the Job "{name}" is created'))
@when(step('the Job "{name}" is created'))
def job_created(k32, name):
    create_or_fail(k32, name, job_manifest(k32, name, {}))


@given(step('the Job "{name}" is created with:'))
@when(step('the Job "{name}" is created with:'))
def job_created_with(k32, name, datatable):
    """One-row table; columns completions | parallelism | backoffLimit | restartPolicy, "unset" to omit."""
    (fields,) = rows(datatable)
    create_or_fail(k32, name, job_manifest(k32, name, fields))


@when(step('the Job "{name}" is created with restartPolicy "{policy}"'))
def job_created_policy(k32, name, policy):
    create_or_fail(k32, name, job_manifest(k32, name, {"restartPolicy": policy}))


@when(step('the Job "{name}" is deleted'))
def job_deleted(k32, name):
    delete_owner(k32, "Job", name)


def job_active(k32, name: str) -> list[dict]:
    pods = [p for p in owned_pods(k32, "Job", name) if active(p)]
    return sorted(pods, key=lambda p: (p["metadata"].get("creationTimestamp", ""), p["metadata"]["name"]))


def job_active_waiting(k32, name: str) -> list[dict]:
    """The Job's active pods; when there are none yet, up to three workload intervals pass."""
    for _ in range(3):
        pods = [p for p in job_active(k32, name) if (p.get("spec") or {}).get("nodeName")]
        if pods:
            return pods
        k32.timeline.advance(k32.profile.workload_interval)
    raise AssertionError(f'the Job "{name}" has no bound active pod: {describe(owned_pods(k32, "Job", name))}')


def finish(k32, pod: dict, succeeded: bool) -> None:
    pod = start_if_pending(k32, pod)
    k32.kubelet_of(pod).finish_pod(pod["metadata"]["name"], k32.ns, succeeded=succeeded, known=pod)


@given(step('the Job "{name}" pods start'))
@when(step('the Job "{name}" pods start'))
def job_pods_start(k32, name):
    for pod in job_active_waiting(k32, name):
        start_if_pending(k32, pod)


@when(parsers.re(r'the Job "(?P<name>[^"]+)" pods (?P<outcome>succeed|fail)'))
def job_pods_finish(k32, name, outcome):
    for pod in job_active_waiting(k32, name):
        finish(k32, pod, outcome == "succeed")


@when(parsers.re(r'the Job "(?P<name>[^"]+)" has one pod (?P<outcome>succeed|fail)'))
def job_one_pod_finishes(k32, name, outcome):
    finish(k32, job_active_waiting(k32, name)[0], outcome == "succeed")


@when(parsers.re(r'the Job "(?P<name>[^"]+)" has (?P<n>\d+) pods? fail one after another'))
def job_pods_fail_in_turn(k32, name, n):
    """Each time: let one workload interval pass, then fail the oldest active pod."""
    for i in range(int(n)):
        k32.timeline.advance(k32.profile.workload_interval)
        pods = job_active_waiting(k32, name)
        assert pods, f"no active pod to fail after {i} failures"
        finish(k32, pods[0], False)


@when(parsers.re(r'the Job "(?P<name>[^"]+)" pod containers restart (?P<n>\d+) times?'))
def job_containers_restart(k32, name, n):
    for pod in job_active_waiting(k32, name):
        pod = start_if_pending(k32, pod)
        for _ in range(int(n)):
            pod = k32.kubelet_of(pod).restart_container(pod["metadata"]["name"], k32.ns, known=pod)


@when(step('the Job "{name}" pods keep succeeding until it is Complete'))
def job_run_to_complete(k32, name):
    """Round after round: one workload interval passes, then every active pod succeeds; records the
    most pods seen active at once. Gives up after ``MAX_ROUNDS`` rounds (the Thens then fail)."""
    record = {"max_active": 0, "rounds": 0}
    for _ in range(MAX_ROUNDS):
        k32.timeline.advance(k32.profile.workload_interval)
        record["rounds"] += 1
        pods = job_active(k32, name)
        record["max_active"] = max(record["max_active"], len(pods))
        cond = job_condition(k32, name, "Complete")
        if cond is not None and cond.get("status") == "True":
            break
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName"):
                finish(k32, pod, True)
    notes(k32, "job-run")[name] = record


@then(parsers.re(r'the Job "(?P<name>[^"]+)" never had more than (?P<n>\d+) active pods? at once'))
def job_never_more_active(k32, name, n):
    record = notes(k32, "job-run").get(name)
    assert record is not None, f'the Job "{name}" was not run to completion in this scenario'
    assert record["max_active"] <= int(n), f"up to {record['max_active']} pods were active at once"


@then(parsers.re(r'the Job "(?P<name>[^"]+)" had (?P<n>\d+) active pods? at once'))
def job_had_active(k32, name, n):
    record = notes(k32, "job-run").get(name)
    assert record is not None, f'the Job "{name}" was not run to completion in this scenario'
    assert record["max_active"] == int(n), f"the most pods active at once was {record['max_active']}"


# == Job: assertions =============================================================================
@then(parsers.re(r'the Job "(?P<name>[^"]+)" has (?P<n>\d+) active pods?'))
def job_has_active(k32, name, n):
    def check():
        pods = job_active(k32, name)
        assert len(pods) == int(n), f"{len(pods)} active: {describe(owned_pods(k32, 'Job', name))}"
    k32.eventually(check, f'Job "{name}" with {n} active pods')


@then(parsers.re(r'the Job "(?P<name>[^"]+)" has (?P<n>\d+) pods? in total'))
def job_has_total(k32, name, n):
    def check():
        pods = owned_pods(k32, "Job", name)
        assert len(pods) == int(n), f"{len(pods)} pods: {describe(pods)}"
    k32.eventually(check, f'Job "{name}" with {n} pods')


@then(step('the Job "{name}" pods are made from its template'))
def job_pods_from_template(k32, name):
    pods = owned_pods(k32, "Job", name)
    assert pods, f'the Job "{name}" has no pods'
    assert_made_from(pods, k32.api.get("Job", k32.name(name), k32.ns)["spec"]["template"])


@then(step('the Job "{name}" status shows:'))
def job_status_shows(k32, name, datatable):
    """One-row table of status counters (active, ready, succeeded, failed); absent counts as 0. The
    document never names these fields (JOB-STATUS-COUNTS is a reading): judged at reference level."""
    (wanted,) = rows(datatable)

    def check():
        status = k32.api.get("Job", k32.name(name), k32.ns).get("status") or {}
        got = {k: str(status.get(k) or 0) for k in wanted}   # absent (or null) counts as 0
        assert got == wanted, f"status counters are {got}"
    with k32.reference("JOB-STATUS-COUNTS"):
        k32.eventually(check, f'Job "{name}" status {wanted}')


def job_condition(k32, name: str, ctype: str) -> dict | None:
    status = k32.api.get("Job", k32.name(name), k32.ns).get("status") or {}
    return next((c for c in status.get("conditions") or [] if c.get("type") == ctype), None)


@then(step('the Job "{name}" has condition "{ctype}" "{status}"'))
def job_has_condition(k32, name, ctype, status):
    """Written by the pass that saw the Job finish, or the next one (a status may lag its pass)."""
    def check():
        cond = job_condition(k32, name, ctype)
        assert cond is not None and cond.get("status") == status, f"{ctype} condition is {cond}"
    status_written(k32, check, f'Job "{name}" condition {ctype}={status}', k32.profile.workload_interval)


@then(step('the Job "{name}" has condition "{ctype}" "{status}" with reason "{reason}" and message:'))
def job_condition_reason(k32, name, ctype, status, reason, docstring):
    """Status and reason (the document names BackoffLimitExceeded) at document level, written by the
    pass that saw the Job finish or the next one; the message, which the document never quotes, and
    the condition in that same pass, at reference level."""
    def check():
        cond = job_condition(k32, name, ctype)
        assert cond is not None, f"no {ctype} condition"
        got = (cond.get("status"), cond.get("reason"))
        assert got == (status, reason), f"{ctype} condition is {got} ({cond.get('message')!r})"
        return cond.get("message")
    message = status_written(k32, check, f'Job "{name}" condition {ctype}={status} ({reason})',
                             k32.profile.workload_interval)
    with k32.reference():
        assert message == docstring.strip(), f"the {ctype} condition says {message!r}, expected {docstring.strip()!r}"


@then(step('the Job "{name}" has no condition "{ctype}"'))
def job_no_condition(k32, name, ctype):
    def check():
        cond = job_condition(k32, name, ctype)
        assert cond is None, f"the Job has {cond}"
    k32.consistently(check, f'Job "{name}" without condition {ctype}')


@then(parsers.re(r'the Job "(?P<name>[^"]+)" has an? (?P<which>start|completion) time'))
def job_has_time(k32, name, which):
    field = {"start": "startTime", "completion": "completionTime"}[which]

    def check():
        status = k32.api.get("Job", k32.name(name), k32.ns).get("status") or {}
        assert status.get(field), f"status.{field} is {status.get(field)!r}"
    with k32.reference():   # upstream's startTime / completionTime; the document names neither
        k32.eventually(check, f'Job "{name}" {field}')


@then(step('the Job "{name}" pods tolerate "{taint}" for the default toleration seconds'))
def job_pods_tolerate(k32, name, taint):
    key, _, effect = taint.partition(":")
    seconds = int(k32.profile.default_toleration_seconds)

    def check():
        pods = owned_pods(k32, "Job", name)
        assert pods, "the Job has no pods"
        for pod in pods:
            tolerations = pod["spec"].get("tolerations") or []
            match = [t for t in tolerations if t.get("key") == key and t.get("effect") == effect]
            assert [(t.get("operator"), t.get("tolerationSeconds")) for t in match] == [("Exists", seconds)], \
                f"pod {pod['metadata']['name']} tolerations are {tolerations}"
    k32.eventually(check, f'Job "{name}" pods tolerate {taint} for {seconds} s')
