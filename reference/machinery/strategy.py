"""What the API server does to an object before storing it, per kind (upstream's REST strategies).

On create, users cannot set status: upstream resets it (a Pod starts ``Pending`` with its QoS
class, a Namespace ``Active``; Deployments, DaemonSets, Jobs and Services start with an empty
status). Nodes keep theirs, because the kubelet registers a Node with its status. Pods are deleted
gracefully only when bound to a node and not yet finished.
"""

from __future__ import annotations

from spec import quantities

TERMINAL_PHASES = ("Succeeded", "Failed")
QOS_RESOURCES = ("cpu", "memory")
STATUS_KEPT_ON_CREATE = ("Node",)


def _nonzero(resources: dict | None) -> dict[str, object]:
    out = {}
    for name, q in (resources or {}).items():
        if name not in QOS_RESOURCES:
            continue
        try:
            value = quantities.parse(q)
        except (ValueError, TypeError):
            continue
        if value != 0:
            out[name] = value
    return out


def qos_class(pod: dict) -> str:
    """Upstream's GetPodQOS: BestEffort without cpu/memory requests or limits; Guaranteed when
    every container limits both and requests (defaulting to the limits) equal them; else Burstable."""
    spec = pod.get("spec") or {}
    containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    any_set = False
    guaranteed = True
    for c in containers:
        res = (c.get("resources") or {}) if isinstance(c, dict) else {}
        limits = _nonzero(res.get("limits"))
        requests = {**limits, **_nonzero(res.get("requests"))}
        if requests or limits:
            any_set = True
        if set(limits) != set(QOS_RESOURCES) or requests != limits:
            guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def prepare_for_create(kind: str, obj: dict) -> dict:
    """Reset what a user may not set at create time (in place; returns ``obj``)."""
    if kind in STATUS_KEPT_ON_CREATE:
        return obj
    if kind == "Pod":
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj)}
    elif kind == "Namespace":
        obj["status"] = {"phase": "Active"}
    elif kind == "Service":
        obj["status"] = {"loadBalancer": {}}
    elif kind in ("Deployment", "DaemonSet", "Job"):
        obj["status"] = {}
    for key in ("deletionTimestamp", "deletionGracePeriodSeconds", "uid", "resourceVersion", "generation"):
        obj.get("metadata", {}).pop(key, None)
    return obj


def deletes_gracefully(pod: dict) -> bool:
    """A pod bound to a node and not finished waits for its kubelet; others go at once."""
    phase = (pod.get("status") or {}).get("phase")
    return bool((pod.get("spec") or {}).get("nodeName")) and phase not in TERMINAL_PHASES
