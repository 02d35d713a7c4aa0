"""A Deployment's status after a pass: a pure function of the Deployment (with its previous status),
its pods and the time.

Counts (pods that are terminating or finished never count):
  replicas             pods of the Deployment
  updatedReplicas      of those, pods of the current template (pod-template-hash)
  readyReplicas        of those, pods whose Ready condition is True
  availableReplicas    of those, pods Ready for at least spec.minReadySeconds
  unavailableReplicas  replicas - availableReplicas, never below 0 (upstream calculateStatus)
  observedGeneration   metadata.generation of the Deployment the pass acted on
Zero counts are left out, as upstream's ``omitempty`` JSON does.

Conditions follow upstream's sync.go / progress.go, with the `Deployment "<name>"` message forms
because kube32 has no ReplicaSets:
  Available    True MinimumReplicasAvailable when availableReplicas >= replicas - maxUnavailable,
               else False MinimumReplicasUnavailable.
  Progressing  True NewReplicaSetAvailable once every desired pod is current and available;
               True ReplicaSetUpdated whenever the counts show progress (more updated, fewer old,
               more ready, more available) or the pass acted on a new generation (where upstream
               would create a new ReplicaSet); lastTransitionTime kept while True;
               False ProgressDeadlineExceeded when progressDeadlineSeconds pass without progress.
A condition whose status and reason do not change is left untouched (times included).
"""

from __future__ import annotations

from kube32.reference.controllers import deployment_plan as dp
from kube32.spec import reasons, timefmt

COUNT_FIELDS = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas")


def counts(deployment: dict, owned: list[dict], now: float) -> dict:
    current = dp.template_hash((deployment.get("spec") or {}).get("template") or {})
    active = dp.active_pods(owned)
    min_ready = dp.min_ready_seconds(deployment)
    available = sum(1 for p in active if dp.is_available(p, min_ready, now))
    return {
        "replicas": len(active),
        "updatedReplicas": sum(1 for p in active if dp.is_current(p, current)),
        "readyReplicas": sum(1 for p in active if dp.is_ready(p)),
        "availableReplicas": available,
        "unavailableReplicas": max(len(active) - available, 0),
    }


def condition(type_: str, status: str, reason: str, message: str, now: float) -> dict:
    t = timefmt.rfc3339(now)
    return {"type": type_, "status": status, "lastUpdateTime": t, "lastTransitionTime": t,
            "reason": reason, "message": message}


def get_condition(conditions: list[dict], type_: str) -> dict | None:
    return next((c for c in conditions if c.get("type") == type_), None)


def set_condition(conditions: list[dict], new: dict) -> list[dict]:
    """Upstream SetDeploymentCondition: unchanged status and reason leave the list as it is; the
    same status keeps lastTransitionTime; the new condition goes to the end."""
    old = get_condition(conditions, new["type"])
    if old is not None and old.get("status") == new["status"] and old.get("reason") == new["reason"]:
        return conditions
    if old is not None and old.get("status") == new["status"]:
        new = {**new, "lastTransitionTime": old.get("lastTransitionTime", new["lastTransitionTime"])}
    return [c for c in conditions if c.get("type") != new["type"]] + [new]


def available_condition(deployment: dict, status: dict, now: float) -> dict:
    desired = dp.desired_replicas(deployment)
    if status["availableReplicas"] >= desired - dp.max_unavailable(deployment):
        return condition("Available", "True", reasons.DEPLOY_MIN_AVAILABLE, reasons.DEPLOY_MIN_AVAILABLE_MSG, now)
    return condition("Available", "False", reasons.DEPLOY_MIN_UNAVAILABLE, reasons.DEPLOY_MIN_UNAVAILABLE_MSG, now)


def is_complete(deployment: dict, status: dict) -> bool:
    """Upstream DeploymentComplete."""
    desired = dp.desired_replicas(deployment)
    return (status["updatedReplicas"] == desired and status["replicas"] == desired
            and status["availableReplicas"] == desired
            and status["observedGeneration"] >= deployment["metadata"].get("generation", 1))


def made_progress(old: dict, new: dict) -> bool:
    """Upstream DeploymentProgressing: compares the stored status with the new one."""
    def n(s: dict, k: str) -> int:
        return int(s.get(k) or 0)
    return (n(new, "updatedReplicas") > n(old, "updatedReplicas")
            or n(new, "replicas") - n(new, "updatedReplicas") < n(old, "replicas") - n(old, "updatedReplicas")
            or n(new, "readyReplicas") > n(old, "readyReplicas")
            or n(new, "availableReplicas") > n(old, "availableReplicas"))


def new_spec(old: dict, new: dict) -> bool:
    """The pass acted on a spec it had not seen: kube32's stand-in for upstream's "created new
    ReplicaSet" sign of progress (a template change starts a rollout)."""
    return int(old.get("observedGeneration") or 0) < int(new.get("observedGeneration") or 0)


def timed_out(deployment: dict, conditions: list[dict], now: float) -> bool:
    """Upstream DeploymentTimedOut: no progress for progressDeadlineSeconds since lastUpdateTime."""
    cond = get_condition(conditions, "Progressing")
    if cond is None or cond.get("reason") == reasons.DEPLOY_COMPLETE:
        return False
    if cond.get("reason") == reasons.DEPLOY_TIMED_OUT:
        return True
    since = cond.get("lastUpdateTime")
    return since is not None and timefmt.parse(since) + dp.progress_deadline(deployment) < now


def progressing_conditions(deployment: dict, status: dict, conditions: list[dict], now: float) -> list[dict]:
    name = deployment["metadata"]["name"]
    old_status = deployment.get("status") or {}
    current = get_condition(conditions, "Progressing")
    if status["replicas"] == status["updatedReplicas"] and current is not None \
            and current.get("reason") == reasons.DEPLOY_COMPLETE:
        return conditions
    if is_complete(deployment, status):
        return set_condition(conditions, condition(
            "Progressing", "True", reasons.DEPLOY_COMPLETE, reasons.DEPLOY_COMPLETE_MSG.format(name=name), now))
    if made_progress(old_status, status) or new_spec(old_status, status):
        new = condition("Progressing", "True", reasons.DEPLOY_PROGRESSING,
                        reasons.DEPLOY_PROGRESSING_MSG.format(name=name), now)
        if current is not None and current.get("status") == "True":
            new["lastTransitionTime"] = current.get("lastTransitionTime", new["lastTransitionTime"])
        return [c for c in conditions if c.get("type") != "Progressing"] + [new]
    if timed_out(deployment, conditions, now):
        return set_condition(conditions, condition(
            "Progressing", "False", reasons.DEPLOY_TIMED_OUT, reasons.DEPLOY_TIMED_OUT_MSG.format(name=name), now))
    return conditions


def compute_status(deployment: dict, owned: list[dict], now: float) -> dict:
    """The whole new ``status`` of the Deployment."""
    status = counts(deployment, owned, now)
    status["observedGeneration"] = deployment["metadata"].get("generation", 1)
    conditions = list((deployment.get("status") or {}).get("conditions") or [])
    conditions = set_condition(conditions, available_condition(deployment, status, now))
    conditions = progressing_conditions(deployment, status, conditions, now)
    out = {"observedGeneration": status["observedGeneration"]}
    out.update({k: status[k] for k in COUNT_FIELDS if status[k]})
    out["conditions"] = conditions
    return out
