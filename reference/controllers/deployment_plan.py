"""What the Deployment controller should do for one Deployment: a pure function of the Deployment,
the pods in its namespace and the time (no store, no clock).

Rules (kube32 document, "Deployment controller"), with our reading where it is silent:

- A pod belongs to a Deployment when it carries an ownerReference with ``controller: true``,
  ``kind: Deployment`` and the Deployment's uid. No ReplicaSets: the Deployment owns pods directly.
- Pods that are terminating (``deletionTimestamp`` set) are never counted, never deleted again and
  never block a replacement. Pods that have finished (phase Succeeded/Failed) are not counted and
  are deleted (kube32 has no pod garbage collector).
- Missing pods are created from ``spec.template`` with the label ``pod-template-hash=<hash>``, a
  stable hash of the template (FNV-32a over its canonical JSON, written with upstream's
  SafeEncodeString alphabet, so the value uses only ``[4-9bcdf]``), named
  ``<deployment>-<hash>-<5 random chars>`` and given the default NoExecute tolerations.
- Surplus pods are deleted in this order (DELETION ORDER): not ready before ready; then stale
  (another hash) before current; then newest creationTimestamp first; then name descending.
- A changed template is rolled out by replacing stale pods, at most
  ``constants.DEPLOYMENT_STALE_REPLACEMENTS_PER_PASS`` (one) per pass: the stale pod first in the
  deletion order is deleted and a pod from the new template created in the same pass. A READY stale
  pod is deleted only while at least ``replicas - maxUnavailable`` pods stay ready afterwards; a
  not-ready one always may go. A pass that creates no pod to refill spec.replicas creates one extra
  pod from the new template (a surge) while the pods number fewer than ``replicas + maxSurge`` and
  fewer than spec.replicas are current; so with maxUnavailable 0 a stale pod goes once its
  surge replacement is ready, and the next surge starts in that same pass.
- maxUnavailable / maxSurge resolve as upstream's ResolveFenceposts: a percentage of spec.replicas,
  maxSurge rounded UP, maxUnavailable rounded DOWN (float64 arithmetic), and when both come out 0,
  maxUnavailable is 1. Defaults 25 % / 25 %.
"""

from __future__ import annotations

import copy
import dataclasses
import math

from kube32.reference.machinery import limits
from kube32.reference.machinery.conditions import is_ready, ready_condition
from kube32.reference.machinery.defaults import add_default_tolerations
from kube32.reference.machinery.hashing import fnv32a, safe_encode, template_hash  # noqa: F401 (faults patch these names here)
from kube32.spec import constants, timefmt

ROLLING_UPDATE = "RollingUpdate"
RECREATE = "Recreate"


# -- actions ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class CreatePod:
    """Create this pod manifest (metadata.generateName set, no name)."""
    manifest: dict
    reason: str          # "missing" | "replacement" | "surge"


@dataclasses.dataclass(frozen=True)
class DeletePod:
    """Delete this pod (gracefully when it is bound, as the API does)."""
    pod: dict
    reason: str          # "surplus" | "stale" | "finished" | "orphan"

    @property
    def name(self) -> str:
        return self.pod["metadata"]["name"]








# -- int-or-percent and the fenceposts ----------------------------------------------------------
def scaled_value(value: int | str | None, total: int, round_up: bool, default: str) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is; "N%" of ``total`` rounded up or down
    (float64 arithmetic, as upstream)."""
    if value is None:
        value = default
    if isinstance(value, bool):
        raise ValueError(f"expected an int or a percentage string, saw {value!r}")
    if isinstance(value, int):
        return value
    if not isinstance(value, str) or not value.endswith("%"):
        raise ValueError(f"invalid type: string is not a percentage: {value!r}")
    try:
        pct = int(value[:-1])
    except ValueError:
        raise ValueError(f"invalid value for IntOrString: invalid value {value!r}") from None
    scaled = float(pct) * float(total) / 100.0
    return int(math.ceil(scaled)) if round_up else int(math.floor(scaled))


def resolve_fenceposts(max_surge, max_unavailable, desired: int) -> tuple[int, int]:
    """(surge, unavailable) as upstream's deploymentutil.ResolveFenceposts."""
    surge = scaled_value(max_surge, desired, True, constants.DEPLOYMENT_DEFAULT_MAX_SURGE)
    unavailable = scaled_value(max_unavailable, desired, False, constants.DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


# -- reading a Deployment ---------------------------------------------------------------------
def desired_replicas(deployment: dict) -> int:
    replicas = (deployment.get("spec") or {}).get("replicas")
    return constants.DEPLOYMENT_DEFAULT_REPLICAS if replicas is None else int(replicas)


def strategy(deployment: dict) -> tuple[str, dict]:
    s = (deployment.get("spec") or {}).get("strategy") or {}
    return s.get("type") or ROLLING_UPDATE, s.get("rollingUpdate") or {}


def max_unavailable(deployment: dict) -> int:
    """Upstream's deploymentutil.MaxUnavailable: 0 for Recreate or 0 replicas; otherwise the
    resolved maxUnavailable, capped at spec.replicas. Used by the Available condition."""
    kind, rolling = strategy(deployment)
    desired = desired_replicas(deployment)
    if kind != ROLLING_UPDATE or desired == 0:
        return 0
    _, unavailable = resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), desired)
    return min(unavailable, desired)


def rollout_limits(deployment: dict) -> tuple[int, int]:
    """(surge, unavailable) the rollout honours. Recreate: no surge and no availability gate
    (stale pods still go one per pass)."""
    kind, rolling = strategy(deployment)
    desired = desired_replicas(deployment)
    if kind != ROLLING_UPDATE:
        return 0, desired
    surge, unavailable = resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), desired)
    return surge, min(unavailable, desired)


def progress_deadline(deployment: dict) -> float:
    value = (deployment.get("spec") or {}).get("progressDeadlineSeconds")
    return float(constants.DEPLOYMENT_DEFAULT_PROGRESS_DEADLINE_SECONDS if value is None else value)


def min_ready_seconds(deployment: dict) -> float:
    return float((deployment.get("spec") or {}).get("minReadySeconds") or 0)


# -- reading pods -----------------------------------------------------------------------------
def controller_ref(pod: dict) -> dict | None:
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def is_owned_by(pod: dict, deployment: dict) -> bool:
    ref = controller_ref(pod)
    return (ref is not None and ref.get("kind") == "Deployment"
            and ref.get("uid") == deployment["metadata"].get("uid"))


def owned_pods(deployment: dict, pods: list[dict]) -> list[dict]:
    ns = deployment["metadata"].get("namespace") or "default"
    return [p for p in pods if (p["metadata"].get("namespace") or "default") == ns and is_owned_by(p, deployment)]


def is_terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def is_finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def is_bound(pod: dict) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


def is_available(pod: dict, min_ready: float, now: float) -> bool:
    """Ready, and Ready for at least minReadySeconds (upstream podutil.IsPodAvailable)."""
    if not is_ready(pod):
        return False
    if min_ready <= 0:
        return True
    since = ready_condition(pod).get("lastTransitionTime")
    return since is not None and timefmt.parse(since) + min_ready <= now


def pod_hash(pod: dict) -> str | None:
    return (pod["metadata"].get("labels") or {}).get(constants.POD_TEMPLATE_HASH_LABEL)


def is_current(pod: dict, current_hash: str) -> bool:
    return pod_hash(pod) == current_hash


def active_pods(owned: list[dict]) -> list[dict]:
    """The pods that count: not terminating and not finished."""
    return [p for p in owned if not is_terminating(p) and not is_finished(p)]


def deletion_key(current_hash: str):
    """Primary sort key of the deletion order: not ready first, then stale, then newest."""
    def key(pod: dict) -> tuple:
        created = pod["metadata"].get("creationTimestamp")
        t = timefmt.parse(created) if created else 0.0
        return (is_ready(pod), is_current(pod, current_hash), -t)
    return key


def deletion_order(pods: list[dict], current_hash: str) -> list[dict]:
    """Pods in the order they are deleted: not ready before ready; then stale before current;
    then newest creationTimestamp first; then name descending."""
    by_name = sorted(pods, key=lambda p: p["metadata"]["name"], reverse=True)
    return sorted(by_name, key=deletion_key(current_hash))


# -- building a pod ---------------------------------------------------------------------------
def pod_from_template(deployment: dict, current_hash: str, toleration_seconds: float | None) -> dict:
    """A pod manifest from the Deployment's template: hash label, owner reference, generateName
    ``<deployment>-<hash>-`` and the default NoExecute tolerations."""
    meta = deployment["metadata"]
    template = copy.deepcopy((deployment.get("spec") or {}).get("template") or {})
    tmeta = template.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    labels[constants.POD_TEMPLATE_HASH_LABEL] = current_hash
    pod_meta = {
        "generateName": f"{meta['name']}-{current_hash}-",
        "namespace": meta.get("namespace") or "default",
        "labels": labels,
        "ownerReferences": [{
            "apiVersion": deployment.get("apiVersion") or "apps/v1",
            "kind": "Deployment",
            "name": meta["name"],
            "uid": meta["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }],
    }
    if tmeta.get("annotations"):
        pod_meta["annotations"] = dict(tmeta["annotations"])
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta,
           "spec": template.get("spec") or {}, "status": {"phase": "Pending"}}
    add_default_tolerations(pod, toleration_seconds)
    return pod


# -- the plan ---------------------------------------------------------------------------------
def plan(deployment: dict, pods: list[dict], now: float, toleration_seconds: float | None) -> list:
    """The actions of one pass for one Deployment, given every pod of its namespace."""
    desired = desired_replicas(deployment)
    current = template_hash((deployment.get("spec") or {}).get("template") or {})
    owned = owned_pods(deployment, pods)
    actions: list = [DeletePod(p, "finished") for p in owned if not is_terminating(p) and is_finished(p)]
    active = active_pods(owned)
    surge, unavailable = rollout_limits(deployment)

    # 1. scale down: beyond spec.replicas (beyond replicas + maxSurge while a rollout runs)
    rolling = any(not is_current(p, current) for p in active)
    ceiling = desired + (surge if rolling else 0)
    if len(active) > ceiling:
        victims = deletion_order(active, current)[: len(active) - ceiling]
        actions += [DeletePod(p, "surplus") for p in victims]
        gone = {p["metadata"]["name"] for p in victims}
        active = [p for p in active if p["metadata"]["name"] not in gone]

    # 2. replace stale pods, a bounded number per pass, keeping replicas - maxUnavailable ready
    replaced = 0
    stale = deletion_order([p for p in active if not is_current(p, current)], current)
    ready = sum(1 for p in active if is_ready(p))
    for victim in stale:
        if replaced >= constants.DEPLOYMENT_STALE_REPLACEMENTS_PER_PASS:
            break
        if is_ready(victim) and ready - 1 < desired - unavailable:
            break
        actions.append(DeletePod(victim, "stale"))
        active = [p for p in active if p is not victim]
        ready -= 1 if is_ready(victim) else 0
        replaced += 1

    # 3. create: refill spec.replicas; otherwise one surge pod while stale pods remain
    missing = max(desired - len(active), 0)
    reason = "replacement" if replaced else "missing"
    stale_left = any(not is_current(p, current) for p in active)
    current_count = sum(1 for p in active if is_current(p, current))
    if missing == 0 and stale_left and len(active) < desired + surge and current_count < desired:
        missing, reason = 1, "surge"
    for _ in range(min(missing, limits.BURST_REPLICAS)):     # upstream's burst per pass
        actions.append(CreatePod(pod_from_template(deployment, current, toleration_seconds), reason))
    return actions


def orphans(pods: list[dict], deployments: list[dict]) -> list[DeletePod]:
    """Pods whose controlling owner is a Deployment that no longer exists (same namespace, uid)."""
    live = {((d["metadata"].get("namespace") or "default"), d["metadata"].get("uid")) for d in deployments}
    out = []
    for p in pods:
        ref = controller_ref(p)
        if ref is None or ref.get("kind") != "Deployment" or is_terminating(p):
            continue
        if ((p["metadata"].get("namespace") or "default"), ref.get("uid")) not in live:
            out.append(DeletePod(p, "orphan"))
    return out
