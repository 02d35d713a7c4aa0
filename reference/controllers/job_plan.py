"""What the workload controller should do for one Job: a pure function of the Job and its pods.

Rules (kube32 document, "Job"):
- pods are started from the template until ``completions`` (default 1) pods have Succeeded, with at
  most ``parallelism`` (default 1) active at once; active = neither finished nor terminating. Like
  upstream, no more pods run than completions still missing (``min(parallelism, completions -
  succeeded)``);
- then the Job gets ``Complete=True`` (reason CompletionsReached, as current upstream) and
  ``completionTime``;
- pods in phase Failed count against ``backoffLimit`` (default 6); the Job fails when the count
  EXCEEDS the limit (so the default fails on the 7th failure): active pods are deleted and the Job
  gets ``Failed=True`` with reason BackoffLimitExceeded;
- a container restarted in place (restartPolicy OnFailure, restartCount going up, pod still
  Running) is not a failure: kube32 counts Failed pods only (upstream also counts restarts);
- the counters are recomputed from the Job's pods on every pass; a finished Job keeps its counters.
"""

from __future__ import annotations

import copy
import dataclasses

from kube32.reference.controllers.daemonset_plan import is_finished, is_ready, is_terminating, pod_name
from kube32.reference.machinery import limits
from kube32.reference.machinery.defaults import add_default_tolerations
from kube32.spec import constants, reasons, timefmt

COMPLETE = "Complete"
FAILED = "Failed"
# Labels upstream's Job API puts on every pod (batch/v1 and the legacy short forms).
JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
CONTROLLER_UID_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid")


def _spec(job: dict) -> dict:
    return job.get("spec") or {}


def completions(job: dict) -> int:
    value = _spec(job).get("completions")
    return constants.JOB_DEFAULT_COMPLETIONS if value is None else int(value)


def parallelism(job: dict) -> int:
    value = _spec(job).get("parallelism")
    return constants.JOB_DEFAULT_PARALLELISM if value is None else int(value)


def backoff_limit(job: dict) -> int:
    value = _spec(job).get("backoffLimit")
    return constants.JOB_DEFAULT_BACKOFF_LIMIT if value is None else int(value)


# -- pod classes ---------------------------------------------------------------------------------
def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def is_active(pod: dict) -> bool:
    return not is_finished(pod) and not is_terminating(pod)


def succeeded_pods(pods: list[dict]) -> list[dict]:
    return [p for p in pods if phase(p) == "Succeeded"]


def failed_pods(pods: list[dict]) -> list[dict]:
    """Pods that count against backoffLimit: phase Failed. Restarts in place do not count."""
    return [p for p in pods if phase(p) == "Failed"]


def active_pods(pods: list[dict]) -> list[dict]:
    return [p for p in pods if is_active(p)]


def exceeds_backoff(failed: int, limit: int) -> bool:
    """Upstream: ``failed > backoffLimit``."""
    return failed > limit


def wanted_active(job: dict, succeeded: int) -> int:
    """How many pods should be active: parallelism, but never more than the completions missing."""
    return max(0, min(parallelism(job), completions(job) - succeeded))


def finished_condition(job: dict) -> str | None:
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("type") in (COMPLETE, FAILED) and c.get("status") == "True":
            return c["type"]
    return None


def condition(type_: str, reason: str, message: str, now: float) -> dict:
    t = timefmt.rfc3339(now)
    return {"type": type_, "status": "True", "lastProbeTime": t, "lastTransitionTime": t,
            "reason": reason, "message": message}


# -- building a pod ------------------------------------------------------------------------------
def owner_reference(job: dict) -> dict:
    meta = job["metadata"]
    return {"apiVersion": "batch/v1", "kind": "Job", "name": meta["name"], "uid": meta["uid"],
            "controller": True, "blockOwnerDeletion": True}


def build_pod(job: dict, toleration_seconds: float | None) -> dict:
    """A pod from the Job's template (not yet stored), with the default NoExecute tolerations."""
    template = copy.deepcopy(_spec(job).get("template") or {})
    tmeta = template.get("metadata") or {}
    jmeta = job["metadata"]
    labels = dict(tmeta.get("labels") or {})
    for key in JOB_NAME_LABELS:
        labels[key] = jmeta["name"]
    for key in CONTROLLER_UID_LABELS:
        labels[key] = jmeta["uid"]
    meta = {"generateName": f"{jmeta['name']}-", "namespace": jmeta.get("namespace"), "labels": labels,
            "ownerReferences": [owner_reference(job)]}
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": template.get("spec") or {}}
    add_default_tolerations(pod, toleration_seconds)
    return pod


# -- the plan ------------------------------------------------------------------------------------
@dataclasses.dataclass
class JobPlan:
    create: int = 0
    delete: list[tuple[dict, str]] = dataclasses.field(default_factory=list)
    new_condition: dict | None = None          # Complete or Failed, when this pass finishes the Job


def decide(job: dict, pods: list[dict], now: float) -> JobPlan:
    """Pods to start and delete, and the finishing condition if the Job finishes now."""
    active = active_pods(pods)
    newest_first = sorted(active, key=lambda p: (p["metadata"].get("creationTimestamp", ""), pod_name(p)),
                          reverse=True)
    done = finished_condition(job)
    if done == FAILED:
        return JobPlan(delete=[(p, "the Job has failed") for p in newest_first])
    if done == COMPLETE:
        return JobPlan()
    failed = len(failed_pods(pods))
    if exceeds_backoff(failed, backoff_limit(job)):
        return JobPlan(delete=[(p, "backoff limit exceeded") for p in newest_first],
                       new_condition=condition(FAILED, reasons.JOB_BACKOFF_LIMIT_EXCEEDED,
                                               reasons.JOB_BACKOFF_LIMIT_EXCEEDED_MSG, now))
    succeeded = len(succeeded_pods(pods))
    if succeeded >= completions(job):
        return JobPlan(delete=[(p, "completions reached") for p in newest_first],
                       new_condition=condition(COMPLETE, reasons.JOB_COMPLETIONS_REACHED,
                                               reasons.JOB_COMPLETIONS_REACHED_MSG, now))
    want = wanted_active(job, succeeded)
    if len(active) < want:
        return JobPlan(create=min(want - len(active), limits.BURST_REPLICAS))   # upstream's burst per pass
    return JobPlan(delete=[(p, "too many active pods") for p in newest_first[:len(active) - want]])


def compute_status(job: dict, pods: list[dict], now: float, new_condition: dict | None) -> dict:
    """The Job's status after this pass; ``pods`` are the Job's pods after the pass's writes."""
    old = job.get("status") or {}
    status: dict = {}
    conditions = list(old.get("conditions") or [])
    if new_condition is not None:
        conditions.append(new_condition)
    done = finished_condition({"status": {"conditions": conditions}})
    active = active_pods(pods)
    counts = {"active": len(active)}
    if done is not None and old.get("conditions") == conditions:
        # A finished Job keeps the counters it finished with.
        counts["succeeded"], counts["failed"] = old.get("succeeded", 0), old.get("failed", 0)
    else:
        counts["succeeded"], counts["failed"] = len(succeeded_pods(pods)), len(failed_pods(pods))
    for key in ("active", "succeeded", "failed"):
        if counts[key]:
            status[key] = counts[key]      # omitempty, as upstream
    status["ready"] = sum(1 for p in active if is_ready(p))
    status["terminating"] = sum(1 for p in pods if is_terminating(p) and not is_finished(p))
    status["startTime"] = old.get("startTime") or timefmt.rfc3339(now)
    completion = old.get("completionTime")
    if completion is None and new_condition is not None and new_condition["type"] == COMPLETE:
        completion = new_condition["lastTransitionTime"]
    if completion is not None:
        status["completionTime"] = completion
    if conditions:
        status["conditions"] = conditions
    return status
