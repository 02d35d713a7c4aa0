"""What the API server does to an object before storing it, per kind (upstream's REST strategies
and the few upstream defaults kubectl output relies on).

On create, users cannot set status: upstream resets it (a Pod starts ``Pending`` with its QoS
class, a Namespace ``Active``; Deployments, DaemonSets, Jobs and Services start with an empty
status). Nodes keep theirs, because the kubelet registers a Node with its status. Pods are deleted
gracefully only when bound to a node and not yet finished. ``apply_defaults`` fills what upstream's
defaulting fills and ``kubectl describe``/``get`` print: the protocol of container and Service ports
(``TCP``) and a Service's type (``ClusterIP``).
"""

from __future__ import annotations

from kube32.spec import quantities

TERMINAL_PHASES = ("Succeeded", "Failed")
DEFAULT_PROTOCOL = "TCP"
DEFAULT_SERVICE_TYPE = "ClusterIP"
TEMPLATED_KINDS = ("Deployment", "DaemonSet", "Job")
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


def _default_ports(ports: object) -> None:
    for port in ports if isinstance(ports, list) else []:
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = DEFAULT_PROTOCOL


def _default_pod_spec(spec: object) -> None:
    if not isinstance(spec, dict):
        return
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                _default_ports(c.get("ports"))


def apply_defaults(kind: str, obj: dict) -> dict:
    """Upstream defaults for port protocols and the Service type (in place; returns ``obj``)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    if kind == "Pod":
        _default_pod_spec(spec)
    elif kind in TEMPLATED_KINDS:
        _default_pod_spec((spec.get("template") or {}).get("spec") if isinstance(spec.get("template"), dict) else None)
    elif kind == "Service":
        spec.setdefault("type", DEFAULT_SERVICE_TYPE)
        _default_ports(spec.get("ports"))
    return obj
