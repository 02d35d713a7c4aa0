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

import functools
import json

from kube32.spec import quantities

TERMINAL_PHASES = ("Succeeded", "Failed")
DEFAULT_PROTOCOL = "TCP"
DEFAULT_SERVICE_TYPE = "ClusterIP"
TEMPLATED_KINDS = ("Deployment", "DaemonSet", "Job")
QOS_RESOURCES = ("cpu", "memory")
STATUS_KEPT_ON_CREATE = ("Node",)


# a fleet's pods repeat a few quantities; typed: 1, 1.0 and True are read apart
_parse = functools.lru_cache(maxsize=4096, typed=True)(quantities.parse)


def _nonzero(resources: dict | None) -> dict[str, object]:
    out = {}
    for name, q in (resources or {}).items():
        if name not in QOS_RESOURCES:
            continue
        try:
            value = _parse(q)
        except (ValueError, TypeError):     # (TypeError also: unhashable, not a quantity)
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


# Status fields upstream's OpenAPI marks required, which a board's kubelet may not know (it has no
# machine-id, no image registry): served as empty strings so typed clients (the official kubernetes
# client's models) can read every object.
NODE_INFO_REQUIRED = ("architecture", "bootID", "containerRuntimeVersion", "kernelVersion", "kubeProxyVersion",
                      "kubeletVersion", "machineID", "operatingSystem", "osImage", "systemUUID")


def _default_status(kind: str, obj: dict) -> None:
    status = obj.get("status")
    if not isinstance(status, dict):
        return
    if kind == "Node" and isinstance(status.get("nodeInfo"), dict):
        for key in NODE_INFO_REQUIRED:
            status["nodeInfo"].setdefault(key, "")
    elif kind == "Pod":
        images = {c.get("name"): c.get("image", "") for c in (obj.get("spec") or {}).get("containers") or []
                  if isinstance(c, dict)}
        for key in ("initContainerStatuses", "containerStatuses"):
            for cs in status.get(key) or []:
                if isinstance(cs, dict):
                    cs.setdefault("image", images.get(cs.get("name"), ""))
                    cs.setdefault("imageID", "")


def apply_defaults(kind: str, obj: dict) -> dict:
    """Upstream defaults for port protocols and the Service type, and the required status fields a
    kubelet may leave out (in place; returns ``obj``)."""
    _default_status(kind, obj)
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


# -- updates: upstream's ValidateUpdate of each registry strategy, in one table --------------
# kind -> fields that never change once the object exists ("field is immutable").
IMMUTABLE_FIELDS: dict[str, tuple[str, ...]] = {
    "*": ("metadata.deletionTimestamp", "metadata.deletionGracePeriodSeconds"),   # only DELETE sets them
    "Deployment": ("spec.selector",),                     # apps/v1
    "DaemonSet": ("spec.selector",),
    "Job": ("spec.selector", "spec.template", "spec.completions"),
}
# A pod's spec is immutable but for these (upstream ValidatePodUpdate); spec.nodeName is set only
# by binding (the scheduler), container resources only by a resize, neither of which is an update.
POD_MUTABLE_MESSAGE = ("pod updates may not change fields other than `spec.containers[*].image`,"
                       "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
                       "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
                       "(allow it to be set to 1 if it was previously negative)")


def _at(obj: dict, path: str) -> object:
    node: object = obj
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _pod_spec_masked(spec: object, old_spec: dict) -> object:
    """The spec with the fields an update may change replaced by the old spec's values."""
    if not isinstance(spec, dict):
        return spec
    masked = dict(spec)
    for key in ("containers", "initContainers"):
        new_list, old_list = masked.get(key), old_spec.get(key)
        if isinstance(new_list, list) and isinstance(old_list, list) and len(new_list) == len(old_list):
            masked[key] = [({**c, "image": o.get("image")} if isinstance(c, dict) and isinstance(o, dict) else c)
                           for c, o in zip(new_list, old_list, strict=True)]
    for key in ("activeDeadlineSeconds",):
        masked.pop(key, None)
        if key in old_spec:
            masked[key] = old_spec[key]
    old_tol = old_spec.get("tolerations") or []
    new_tol = masked.get("tolerations") or []
    if isinstance(new_tol, list) and all(t in new_tol for t in old_tol):   # additions only
        masked["tolerations"] = old_spec.get("tolerations")
        if "tolerations" not in old_spec:
            masked.pop("tolerations", None)
    grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0 and masked.get("terminationGracePeriodSeconds") == 1:
        masked["terminationGracePeriodSeconds"] = grace
    return masked


def update_causes(kind: str, old: dict, new: dict) -> list[dict]:
    """Why an update (PUT/PATCH of the main resource) may not change ``old`` into ``new``."""
    out = []
    for path in (*IMMUTABLE_FIELDS["*"], *IMMUTABLE_FIELDS.get(kind, ())):
        before, after = _at(old, path), _at(new, path)
        if path.startswith("metadata.deletion") and after is None:
            continue                      # left out: the stored value is kept
        if before != after:
            shown = json.dumps(after, separators=(",", ":"), sort_keys=True)
            out.append({"reason": "FieldValueInvalid", "field": path,
                        "message": f"Invalid value: {shown}: field is immutable"})
    if kind == "Pod":
        old_spec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
        if _pod_spec_masked(new.get("spec"), old_spec) != old_spec:
            out.append({"reason": "FieldValueForbidden", "field": "spec",
                        "message": f"Forbidden: {POD_MUTABLE_MESSAGE}"})
    return out
