"""Faults of the DaemonSet and Job controller: each gets one documented rule wrong; and fair
variants, each another reasonable reading where the document is silent."""

from __future__ import annotations

import math

from kube32.reference import errors
from kube32.reference.controllers import daemonset_plan, job_plan, workload
from kube32.spec import constants, reasons
from tests.sensitivity.registry import fair, fault

# -- DaemonSet ---------------------------------------------------------------------------------


@fault("ds-ignores-node-selector", breaks=["DS-ONE-POD-PER-NODE"])
def _(mp):
    mp.setattr(daemonset_plan, "should_run", lambda template, node: True)


@fault("ds-pins-with-node-name", breaks=["DS-HOSTNAME-SELECTOR"])
def _(mp):
    def pin(spec, node):
        spec["nodeName"] = node
    mp.setattr(daemonset_plan, "pin", pin)


@fault("ds-hash-ignores-template", breaks=["DS-REVISION-HASH-LABEL"])
def _(mp):
    mp.setattr(daemonset_plan, "template_hash", lambda template: "5c4b8d9f6")


@fault("ds-keeps-pods-of-deleted-nodes", breaks=["DS-DELETE-ON-NODE-GONE"])
def _(mp):
    mp.setattr(daemonset_plan, "pods_on_missing_nodes", lambda known, by_node: [])


@fault("ds-keeps-pods-on-mismatched-nodes", breaks=["DS-DELETE-ON-NODE-MISMATCH"])
def _(mp):
    mp.setattr(daemonset_plan, "pods_on_mismatched_node", lambda name, live: [])


@fault("ds-only-ready-nodes-run-pods", breaks=["DS-STAY-ON-UNREACHABLE"])
def _(mp):
    real = daemonset_plan.should_run

    def should_run(template, node):
        ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                    for c in (node.get("status") or {}).get("conditions") or [])
        return ready and real(template, node)
    mp.setattr(daemonset_plan, "should_run", should_run)


@fault("ds-pods-get-toleration-seconds", breaks=["NODE-DAEMONSET-TOLERATIONS"])
def _(mp):
    real = daemonset_plan.add_default_tolerations
    mp.setattr(daemonset_plan, "add_default_tolerations", lambda pod, seconds: real(pod, 300))


@fault("ds-rolls-all-nodes-at-once", breaks=["DS-ROLLING-NODE-BY-NODE"])
def _(mp):
    mp.setattr(daemonset_plan, "resolve_max_unavailable", lambda value, desired: desired)


@fault("ds-rolls-in-reverse-name-order", breaks=["DS-ROLLING-NODE-BY-NODE"], level="reference")
def _(mp):
    mp.setattr(daemonset_plan, "rollout_order",
               lambda nodes: sorted(nodes, key=daemonset_plan.node_name, reverse=True))


@fault("ds-max-unavailable-percent-rounds-down", breaks=["DS-ROLLING-MAX-UNAVAILABLE"], level="reference")
def _(mp):
    def floor(value, desired):
        if isinstance(value, str) and value.strip().endswith("%"):
            return math.floor(float(value.strip()[:-1]) * desired / 100)
        return int(value)
    mp.setattr(daemonset_plan, "resolve_max_unavailable", floor)


@fault("ds-default-max-unavailable-2", breaks=["DS-ROLLING-MAX-UNAVAILABLE"])
def _(mp):
    mp.setattr(constants, "DAEMONSET_DEFAULT_MAX_UNAVAILABLE", 2)


@fault("ds-not-ready-pods-wait-their-turn", breaks=["DS-ROLLING-NOT-READY-FIRST"])
def _(mp):
    mp.setattr(daemonset_plan, "replace_regardless_of_budget", lambda pod: False)


@fault("ds-replaces-before-old-pod-leaves", breaks=["DS-ROLLING-WAIT-TERMINATING"])
def _(mp):
    mp.setattr(daemonset_plan, "node_needs_pod",
               lambda here: not [p for p in here if not daemonset_plan.is_terminating(p)])


@fault("ds-ondelete-rolls-anyway", breaks=["DS-ONDELETE"])
def _(mp):
    mp.setattr(daemonset_plan, "strategy_type", lambda ds: daemonset_plan.ROLLING_UPDATE)


@fault("ds-accepts-any-restart-policy", breaks=["DS-RESTART-POLICY-ALWAYS"])
def _(mp):
    mp.setattr(constants, "DAEMONSET_RESTART_POLICIES", ("Always", "OnFailure", "Never"))


@fault("ds-refuses-restart-policy-always-when-written", breaks=["DS-RESTART-POLICY-ALWAYS"])
def _(mp):
    """A template that writes restartPolicy Always is refused (only a template leaving it out passes)."""
    real = workload.admit

    def admit(cp, res, obj, old, operation):
        spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
        if res == workload.DAEMONSETS and spec.get("restartPolicy") == "Always":
            raise errors.Invalid.fields("DaemonSet", obj["metadata"].get("name", ""), [errors.field_cause(
                "spec.template.spec.restartPolicy", "Always may not be written")], "apps")
        real(cp, res, obj, old, operation)
    mp.setattr(workload, "admit", admit)


@fault("workload-no-owner-gc", breaks=["DS-GC-ON-DELETE", "JOB-GC-ON-DELETE"])
def _(mp):
    mp.setattr(workload, "delete_orphans", lambda cp, owners, by_owner, now: None)


@fault("workload-owner-gc-takes-every-owned-pod", breaks=["DS-GC-ON-DELETE", "JOB-GC-ON-DELETE"])
def _(mp):
    """When any DaemonSet or Job is gone, every pod owned by a DaemonSet or Job is deleted."""
    def sweep(cp, owners, by_owner, now):
        if any(uid not in owners for uid in by_owner):
            workload.remove_pods(cp, None, [(p, "owner deleted") for pods in by_owner.values() for p in pods], now, "")
    mp.setattr(workload, "delete_orphans", sweep)


@fair("workload-restart-policy-refused-as-bad-request", passes=["JOB-RESTART-POLICY", "DS-RESTART-POLICY-ALWAYS"],
      differs=["JOB-RESTART-POLICY", "DS-RESTART-POLICY-ALWAYS"])
def _(mp):
    """A template with a restartPolicy the kind does not allow is refused 400 BadRequest without
    causes (the document says only "rejects")."""
    real = workload.admit

    def admit(cp, res, obj, old, operation):
        try:
            real(cp, res, obj, old, operation)
        except errors.Invalid as exc:
            raise errors.BadRequest(f"{obj.get('kind', 'object')}: this restartPolicy is not allowed") from exc
    mp.setattr(workload, "admit", admit)


# -- Job ---------------------------------------------------------------------------------------


@fault("job-pods-not-from-the-template", breaks=["JOB-RUN-TO-COMPLETIONS"])
def _(mp):
    """The Job's pods run a stock image, whatever the template says."""
    real = job_plan.build_pod

    def build(job, toleration_seconds):
        pod = real(job, toleration_seconds)
        pod["spec"] = {**pod["spec"], "containers": [{"name": "main", "image": "kube32/stock:1"}]}
        return pod
    mp.setattr(job_plan, "build_pod", build)


@fault("job-ignores-completions", breaks=["JOB-RUN-TO-COMPLETIONS"])
def _(mp):
    mp.setattr(job_plan, "completions", lambda job: 1)


@fault("job-completes-one-success-late", breaks=["JOB-RUN-TO-COMPLETIONS"])
def _(mp):
    real = job_plan.completions
    mp.setattr(job_plan, "completions", lambda job: real(job) + 1)


@fault("job-ignores-parallelism", breaks=["JOB-PARALLELISM"])
def _(mp):
    mp.setattr(job_plan, "parallelism", lambda job: 10)


@fault("job-default-parallelism-2", breaks=["JOB-PARALLELISM"])
def _(mp):
    mp.setattr(constants, "JOB_DEFAULT_PARALLELISM", 2)


@fault("job-fills-parallelism-past-completions", breaks=["JOB-PARALLELISM"])
def _(mp):
    mp.setattr(job_plan, "wanted_active", lambda job, succeeded: job_plan.parallelism(job))


@fault("job-complete-condition-misnamed", breaks=["JOB-COMPLETE-CONDITION"])
def _(mp):
    mp.setattr(job_plan, "COMPLETE", "Succeeded")


@fault("job-complete-reason-empty", breaks=["JOB-COMPLETE-CONDITION"], level="reference")
def _(mp):
    mp.setattr(reasons, "JOB_COMPLETIONS_REACHED", "")


@fault("job-status-never-ready", breaks=["JOB-STATUS-COUNTS"], level="reference")
def _(mp):
    mp.setattr(job_plan, "is_ready", lambda pod: False)


@fault("job-failed-pods-stay-active", breaks=["JOB-FAILED-POD-REPLACED"])
def _(mp):
    mp.setattr(job_plan, "is_active", lambda pod: not daemonset_plan.is_terminating(pod)
               and job_plan.phase(pod) != "Succeeded")


@fault("job-fails-when-failures-reach-the-limit", breaks=["JOB-BACKOFF-LIMIT"])
def _(mp):
    mp.setattr(job_plan, "exceeds_backoff", lambda failed, limit: failed >= limit)


@fault("job-counts-successes-as-failures", breaks=["JOB-BACKOFF-LIMIT"])
def _(mp):
    """Every finished pod counts against backoffLimit, Succeeded ones too."""
    mp.setattr(job_plan, "failed_pods", lambda pods: [p for p in pods if job_plan.phase(p) in ("Failed", "Succeeded")])


@fault("job-default-backoff-limit-5", breaks=["JOB-BACKOFF-LIMIT-DEFAULT"])
def _(mp):
    mp.setattr(constants, "JOB_DEFAULT_BACKOFF_LIMIT", 5)


@fault("job-failure-keeps-active-pods", breaks=["JOB-FAILED-DELETES-ACTIVE"])
def _(mp):
    real = job_plan.decide

    def decide(job, pods, now):
        plan = real(job, pods, now)
        failed = (plan.new_condition or {}).get("type") == job_plan.FAILED or \
            job_plan.finished_condition(job) == job_plan.FAILED
        if failed:
            plan.delete = []
        return plan
    mp.setattr(job_plan, "decide", decide)


@fault("job-counts-restarts-as-failures", breaks=["JOB-ONFAILURE-RESTARTS-NOT-FAILURES"])
def _(mp):
    def failed_pods(pods):
        restarts = [p for p in pods for c in (p.get("status") or {}).get("containerStatuses") or []
                    for _ in range(c.get("restartCount", 0))]
        return [p for p in pods if job_plan.phase(p) == "Failed"] + restarts
    mp.setattr(job_plan, "failed_pods", failed_pods)


@fault("job-refuses-restart-policy-on-failure", breaks=["JOB-RESTART-POLICY"])
def _(mp):
    mp.setattr(constants, "JOB_RESTART_POLICIES", ("Never",))


@fault("job-accepts-restart-policy-always", breaks=["JOB-RESTART-POLICY"])
def _(mp):
    mp.setattr(constants, "JOB_RESTART_POLICIES", ("Always", "OnFailure", "Never"))


DS_DOCUMENT_CLAUSES = ["DS-ONE-POD-PER-NODE", "DS-HOSTNAME-SELECTOR", "DS-REVISION-HASH-LABEL", "DS-DELETE-ON-NODE-GONE",
                       "DS-DELETE-ON-NODE-MISMATCH", "DS-ROLLING-NODE-BY-NODE", "DS-ROLLING-MAX-UNAVAILABLE",
                       "DS-ROLLING-NOT-READY-FIRST", "DS-ROLLING-WAIT-TERMINATING", "DS-ONDELETE",
                       "DS-RESTART-POLICY-ALWAYS", "DS-GC-ON-DELETE"]


@fair("ds-default-strategy-ondelete", passes=DS_DOCUMENT_CLAUSES, differs=["DS-ROLLING-NODE-BY-NODE"])
def _(mp):
    """A DaemonSet that names no update strategy gets OnDelete (the document names both, not the default)."""
    real = workload.default_daemonset

    def default(ds):
        if not ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type"):
            ds.setdefault("spec", {})["updateStrategy"] = {"type": daemonset_plan.ON_DELETE}
        real(ds)
    mp.setattr(workload, "default_daemonset", default)


JOB_DOCUMENT_CLAUSES = ["JOB-RUN-TO-COMPLETIONS", "JOB-PARALLELISM", "JOB-COMPLETE-CONDITION", "JOB-FAILED-POD-REPLACED",
                        "JOB-BACKOFF-LIMIT", "JOB-BACKOFF-LIMIT-DEFAULT", "JOB-FAILED-DELETES-ACTIVE",
                        "JOB-RESTART-POLICY", "JOB-ONFAILURE-RESTARTS-NOT-FAILURES", "JOB-GC-ON-DELETE"]


@fair("job-status-names-only-conditions", passes=JOB_DOCUMENT_CLAUSES,
      differs=["JOB-STATUS-COUNTS", "JOB-COMPLETE-CONDITION"])
def _(mp):
    """The Job's status holds the Complete / Failed conditions the document names and nothing else
    (no pod counters, no startTime or completionTime)."""
    real = job_plan.compute_status

    def compute(job, pods, now, new_condition):
        return {k: v for k, v in real(job, pods, now, new_condition).items() if k == "conditions"}
    mp.setattr(job_plan, "compute_status", compute)


@fair("job-status-lags-a-pass", passes=JOB_DOCUMENT_CLAUSES,
      differs=["JOB-COMPLETE-CONDITION", "JOB-BACKOFF-LIMIT"])
def _(mp):
    """Each pass writes the status the previous pass computed (a status may lag its pass)."""
    real = job_plan.compute_status
    computed: dict[str, dict] = {}

    def compute(job, pods, now, new_condition):
        uid = job["metadata"]["uid"]
        earlier = computed.get(uid, job.get("status") or {})
        computed[uid] = real(job, pods, now, new_condition)
        return earlier
    mp.setattr(job_plan, "compute_status", compute)
