"""The workload controller: ONE loop that reconciles every DaemonSet and every Job each
``profile.workload_interval`` (1 s), plus the admission check on their templates' restartPolicy.

Level-triggered: each pass re-reads nodes, DaemonSets, Jobs and pods from the store, asks the pure
planners (``daemonset_plan.plan``, ``job_plan.decide``) what to do, writes the pods, then writes
the owner's status. Pods whose owner (by controller ownerReference uid) no longer exists are deleted.

Pod deletion follows the API server: a pod bound to an existing node is marked terminating
(deletionTimestamp) and leaves when its kubelet confirms; unbound or finished pods, and pods on a
node that is gone, are removed at once.
"""

from __future__ import annotations

import logging

from kube32.reference import errors
from kube32.reference.controllers import daemonset_plan, job_plan, loop
from kube32.reference.controllers.daemonset_plan import is_finished, is_terminating, pod_name
from kube32.spec import constants, reasons, timefmt

log = logging.getLogger(__name__)

DAEMONSETS = "daemonsets.apps"
JOBS = "jobs.batch"
PODS = "pods"
OWNER_KINDS = {"DaemonSet": DAEMONSETS, "Job": JOBS}
DEFAULT_GRACE_SECONDS = 30


# -- ownership -----------------------------------------------------------------------------------
def controller_of(pod: dict) -> dict | None:
    """The pod's controller ownerReference when it is a DaemonSet or a Job."""
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller") and ref.get("kind") in OWNER_KINDS:
            return ref
    return None


def pods_by_owner(pods: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for pod in pods:
        ref = controller_of(pod)
        if ref is not None:
            out.setdefault(ref.get("uid", ""), []).append(pod)
    return out


# -- pod writes ----------------------------------------------------------------------------------
def delete_pod(cp, pod: dict, now: float) -> None:
    """Delete as the API would: gracefully when bound to a live node and not finished."""
    meta = pod["metadata"]
    ns, name = meta.get("namespace", ""), meta["name"]
    node = (pod.get("spec") or {}).get("nodeName")
    if is_terminating(pod):
        return
    if not node or is_finished(pod) or cp.store.head.peek("nodes", "", node) is None:
        cp.store.delete(PODS, ns, name)
        return
    current = cp.store.head.get(PODS, ns, name)
    grace = int((current.get("spec") or {}).get("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS))
    current["metadata"]["deletionTimestamp"] = timefmt.rfc3339(now + grace)
    current["metadata"]["deletionGracePeriodSeconds"] = grace
    cp.store.update(PODS, current, check_rv=False)


def create_pod(cp, owner: dict, pod: dict, component: str) -> dict | None:
    """Store a pod through the pod admission chain, then let the scheduler bind it."""
    try:
        cp.admit(PODS, pod, None, "CREATE")
        created = cp.store.create(PODS, pod)
    except errors.ApiError as exc:
        cp.events.record(owner, "Warning", reasons.EVENT_FAILED_CREATE,
                         reasons.EVENT_FAILED_CREATE_MSG.format(error=exc.message), component)
        return None
    cp.events.record(owner, "Normal", reasons.EVENT_SUCCESSFUL_CREATE,
                     reasons.EVENT_SUCCESSFUL_CREATE_MSG.format(name=pod_name(created)), component)
    if cp.scheduler is not None and not (created.get("spec") or {}).get("nodeName"):
        cp.scheduler.schedule(created)
    return created


def remove_pods(cp, owner: dict | None, victims: list[tuple[dict, str]], now: float, component: str) -> None:
    for pod, why in victims:
        try:
            delete_pod(cp, pod, now)
        except errors.NotFound:
            continue
        log.debug("deleted pod %s: %s", pod_name(pod), why)
        if owner is not None:
            cp.events.record(owner, "Normal", reasons.EVENT_SUCCESSFUL_DELETE,
                             reasons.EVENT_SUCCESSFUL_DELETE_MSG.format(name=pod_name(pod)), component)


def write_status(cp, res: str, obj: dict, status: dict) -> None:
    if obj.get("status") == status:
        return
    current = cp.store.head.try_get(res, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
    if current is None or current["metadata"]["uid"] != obj["metadata"]["uid"]:
        return
    current["status"] = status
    cp.store.update(res, current, check_rv=False)


# -- the passes ----------------------------------------------------------------------------------
def sync_daemonset(cp, ds: dict, nodes: list[dict], pods: list[dict], now: float) -> None:
    component = reasons.DAEMONSET_CONTROLLER_COMPONENT
    plan = daemonset_plan.plan(ds, nodes, pods)
    remove_pods(cp, ds, plan.delete, now, component)
    for node in plan.create_on:
        create_pod(cp, ds, daemonset_plan.build_pod(ds, node, plan.revision), component)
    after = [p for p in cp.store.head.list(PODS, ds["metadata"].get("namespace"))
             if (controller_of(p) or {}).get("uid") == ds["metadata"]["uid"]]
    status = daemonset_plan.compute_status(ds, plan.revision, nodes, daemonset_plan.pods_by_node(after))
    write_status(cp, DAEMONSETS, ds, status)


def sync_job(cp, job: dict, pods: list[dict], now: float) -> None:
    component = reasons.JOB_CONTROLLER_COMPONENT
    plan = job_plan.decide(job, pods, now)
    remove_pods(cp, job, plan.delete, now, component)
    for _ in range(plan.create):
        create_pod(cp, job, job_plan.build_pod(job, cp.profile.default_toleration_seconds), component)
    after = [p for p in cp.store.head.list(PODS, job["metadata"].get("namespace"))
             if (controller_of(p) or {}).get("uid") == job["metadata"]["uid"]]
    write_status(cp, JOBS, job, job_plan.compute_status(job, after, now, plan.new_condition))
    cond = plan.new_condition
    if cond is not None and cond["type"] == job_plan.COMPLETE:
        cp.events.record(job, "Normal", reasons.JOB_COMPLETED_EVENT, reasons.JOB_COMPLETED_EVENT_MSG, component)
    elif cond is not None:
        cp.events.record(job, "Warning", cond["reason"], cond["message"], component)


def delete_orphans(cp, owners: set[str], by_owner: dict[str, list[dict]], now: float) -> None:
    """Pods whose DaemonSet or Job is gone follow their owner (background propagation)."""
    for uid, pods in by_owner.items():
        if uid not in owners:
            remove_pods(cp, None, [(p, "owner deleted") for p in pods], now, "")


class WorkloadController:
    """DaemonSets and Jobs, one pass every ``profile.workload_interval``."""

    NAME = "workload"

    def __init__(self, cp) -> None:
        self.cp = cp

    def interval(self) -> float:
        return self.cp.profile.workload_interval

    def reconcile(self, now: float) -> None:
        store = self.cp.store
        with store.lock:
            nodes = list(store.head.list("nodes"))
            daemonsets = list(store.head.list(DAEMONSETS))
            jobs = list(store.head.list(JOBS))
            by_owner = pods_by_owner(list(store.head.list(PODS)))
            delete_orphans(self.cp, {o["metadata"]["uid"] for o in daemonsets + jobs}, by_owner, now)
            for ds in daemonsets:
                self._isolated(sync_daemonset, ds, nodes, by_owner.get(ds["metadata"]["uid"], []), now)
            for job in jobs:
                self._isolated(sync_job, job, by_owner.get(job["metadata"]["uid"], []), now)

    def _isolated(self, sync, owner: dict, *args) -> None:
        """One broken object must not stop the others (``loop.isolated``)."""
        loop.isolated(self.cp, self.NAME, owner, sync, self.cp, owner, *args)


# -- admission -----------------------------------------------------------------------------------
def _template_spec(obj: dict) -> dict:
    spec = obj.setdefault("spec", {})
    template = spec.setdefault("template", {}) if isinstance(spec, dict) else {}
    return template.setdefault("spec", {}) if isinstance(template, dict) else {}


# Upstream lists supported restart policies in this order in its NotSupported messages.
UPSTREAM_POLICY_ORDER = ("Always", "OnFailure", "Never")


def restart_policy_cause(policy: str, supported: tuple[str, ...]) -> dict | None:
    """A FieldValueNotSupported cause when ``policy`` is not one of ``supported``."""
    if policy in supported:
        return None
    ordered = sorted(supported, key=lambda v: UPSTREAM_POLICY_ORDER.index(v) if v in UPSTREAM_POLICY_ORDER else 9)
    listed = ", ".join(f'"{v}"' for v in ordered)
    return errors.field_cause("spec.template.spec.restartPolicy",
                              reasons.UNSUPPORTED_VALUE_MSG.format(value=policy, supported=listed),
                              reasons.REASON_FIELD_NOT_SUPPORTED)


def default_daemonset(ds: dict) -> None:
    """apps/v1 defaults: template restartPolicy Always, RollingUpdate with maxUnavailable 1."""
    _template_spec(ds).setdefault("restartPolicy", "Always")
    strategy = ds["spec"].setdefault("updateStrategy", {})
    strategy.setdefault("type", daemonset_plan.ROLLING_UPDATE)
    if strategy["type"] == daemonset_plan.ROLLING_UPDATE:
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", constants.DAEMONSET_DEFAULT_MAX_UNAVAILABLE)


def max_unavailable_causes(ds: dict) -> list[dict]:
    """rollingUpdate.maxUnavailable must be a non-negative integer or a percentage (upstream wording)."""
    path = "spec.updateStrategy.rollingUpdate.maxUnavailable"
    value = (((ds["spec"].get("updateStrategy") or {}).get("rollingUpdate")) or {}).get("maxUnavailable")
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return [errors.field_cause(path, f"Invalid value: {value!r}: must be an integer or percentage (e.g '5%')")]
    if isinstance(value, str):
        number = value[:-1] if value.endswith("%") else None
        if number is None or not number.isdigit():
            return [errors.field_cause(path, f'Invalid value: "{value}": must be an integer or percentage '
                                             "(e.g '5%')")]
        return []
    if value < 0:
        return [errors.field_cause(path, f"Invalid value: {value}: must be greater than or equal to 0")]
    return []


def validate_daemonset(ds: dict) -> list[dict]:
    causes = []
    cause = restart_policy_cause(_template_spec(ds).get("restartPolicy"), constants.DAEMONSET_RESTART_POLICIES)
    if cause:
        causes.append(cause)
    causes += max_unavailable_causes(ds)
    kind = (ds["spec"].get("updateStrategy") or {}).get("type")
    if kind not in daemonset_plan.UPDATE_STRATEGIES:
        listed = ", ".join(f'"{v}"' for v in daemonset_plan.UPDATE_STRATEGIES)
        causes.append(errors.field_cause("spec.updateStrategy.type",
                                         reasons.UNSUPPORTED_VALUE_MSG.format(value=kind, supported=listed),
                                         reasons.REASON_FIELD_NOT_SUPPORTED))
    return causes


def default_job(job: dict) -> None:
    """batch/v1 defaults: the template's restartPolicy defaults to Always (and is then rejected),
    completions and parallelism 1, backoffLimit 6."""
    _template_spec(job).setdefault("restartPolicy", "Always")
    spec = job["spec"]
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = constants.JOB_DEFAULT_COMPLETIONS
    if spec.get("parallelism") is None:
        spec["parallelism"] = constants.JOB_DEFAULT_PARALLELISM
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = constants.JOB_DEFAULT_BACKOFF_LIMIT


def validate_job(job: dict) -> list[dict]:
    cause = restart_policy_cause(_template_spec(job).get("restartPolicy"), constants.JOB_RESTART_POLICIES)
    return [cause] if cause else []


def admit(cp, res: str, obj: dict, old: dict | None, operation: str) -> None:
    """Default, then reject (422 Invalid) templates whose restartPolicy the kind does not allow."""
    if res == DAEMONSETS:
        default_daemonset(obj)
        causes, kind, group = validate_daemonset(obj), "DaemonSet", "apps"
    elif res == JOBS:
        default_job(obj)
        causes, kind, group = validate_job(obj), "Job", "batch"
    else:
        return
    if causes:
        raise errors.Invalid.fields(kind, obj["metadata"].get("name", ""), causes, group)


def install(cp) -> None:
    """Register the workload loop and the DaemonSet/Job admission check."""
    cp.loops.register(WorkloadController(cp))
    cp.admission.append(admit)
