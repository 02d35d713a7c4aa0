"""Pure rules: (Service, its namespace's selected pods) -> core/v1 Endpoints and discovery.k8s.io/v1 EndpointSlices.

No store, no clock: every function takes plain wire-format dicts and returns new ones, so the
view (``reference.views.endpoints``) can call them on every read and the sensitivity suite can
replace any single rule by patching this module's attributes. Functions call each other through
module globals on purpose (a patched ``is_ready`` changes both Endpoints and EndpointSlices).

kube32 rules (the document's "Endpoints and EndpointSlices" section), where they differ from upstream:
- terminating pods (metadata.deletionTimestamp set) never appear, in EndpointSlices too (upstream
  slices keep them with ``terminating: true``);
- a pod is "ready" only when Running AND its Ready condition is True (upstream looks at the
  condition only), and slice ``serving`` equals ``ready`` (upstream: the Ready condition alone) —
  catalogue EP-NOT-READY-ADDRESSES;
- finished pods (Succeeded / Failed) that still have a podIP are not terminating, so they are
  listed as not ready (upstream drops terminal pods) — catalogue EP-EXCLUDES-TERMINATING;
- ``spec.publishNotReadyAddresses`` is not honoured (the document's placement rule has no exception);
- a Service whose selector is missing or empty gets nothing computed (no Endpoints, no slices).
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid

from kube32.reference.machinery import conditions, hashing
from kube32.spec import constants

_UID_NAMESPACE = uuid.UUID("6f1c3d0e-8a52-4c1b-9c1e-32e5b0c0e532")
DEFAULT_PROTOCOL = "TCP"


# -- which services, which pods ------------------------------------------------------------
def service_selector(service: dict) -> dict[str, str] | None:
    """The label equalities the Service selects pods by, or None when nothing is computed for it
    (selector missing or empty)."""
    selector = (service.get("spec") or {}).get("selector")
    if not selector:
        return None
    return {str(k): str(v) for k, v in selector.items()}


def labels_match(selector: dict[str, str], pod: dict) -> bool:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return all(k in labels and str(labels[k]) == v for k, v in selector.items())


def is_terminating(pod: dict) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def pod_ip(pod: dict) -> str | None:
    status = pod.get("status") or {}
    if status.get("podIP"):
        return status["podIP"]
    for entry in status.get("podIPs") or []:
        if isinstance(entry, dict) and entry.get("ip"):
            return entry["ip"]
    return None


def is_candidate(pod: dict) -> bool:
    """A selected pod appears at all: it has an IP and is not terminating (whatever its phase)."""
    return pod_ip(pod) is not None and not is_terminating(pod)


def is_ready(pod: dict) -> bool:
    """Endpoints ``addresses`` / EndpointSlice ``ready``: Running and Ready."""
    return (pod.get("status") or {}).get("phase") == "Running" and conditions.is_ready(pod)


def is_serving(pod: dict) -> bool:
    """EndpointSlice ``serving``: kube32 makes it equal to ``ready`` (EP-NOT-READY-ADDRESSES)."""
    return is_ready(pod)


# -- ports ---------------------------------------------------------------------------------
def _protocol(port: dict) -> str:
    return port.get("protocol") or DEFAULT_PROTOCOL


def _port_containers(pod: dict) -> list[dict]:
    """Regular containers first, then sidecar init containers (restartPolicy Always), as upstream."""
    spec = pod.get("spec") or {}
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    return list(spec.get("containers") or []) + sidecars


def find_port(pod: dict, service_port: dict) -> int | None:
    """Upstream FindPort: an integer targetPort is used as is (a missing one means ``port``); a
    named one resolves to the first container port with that name AND the service port's protocol.
    None when the pod has no such port."""
    target = service_port.get("targetPort")
    if target is None or target == "" or target == 0:
        return service_port.get("port")
    if isinstance(target, int) and not isinstance(target, bool):
        return target
    want = _protocol(service_port)
    for container in _port_containers(pod):
        for cp in container.get("ports") or []:
            if cp.get("name") == target and _protocol(cp) == want:
                return cp.get("containerPort")
    return None


def resolved_ports(service: dict, pod: dict) -> tuple[tuple[str, int, str, str | None], ...]:
    """(name, port, protocol, appProtocol) for every service port this pod can serve, in service order."""
    out = []
    for sp in (service.get("spec") or {}).get("ports") or []:
        number = find_port(pod, sp)
        if number is None:
            continue
        out.append((sp.get("name") or "", number, _protocol(sp), sp.get("appProtocol")))
    return tuple(out)


def endpoint_port(name: str, port: int, protocol: str, app_protocol: str | None, *, slice_form: bool) -> dict:
    """core/v1 EndpointPort omits an empty name; discovery/v1 always carries it (upstream's pointer)."""
    out: dict = {}
    if name or slice_form:
        out["name"] = name
    out["port"] = port
    out["protocol"] = protocol
    if app_protocol:
        out["appProtocol"] = app_protocol
    return out


# -- addresses -----------------------------------------------------------------------------
def target_ref(pod: dict) -> dict:
    meta = pod["metadata"]
    return {"kind": "Pod", "namespace": meta.get("namespace", ""), "name": meta["name"], "uid": meta.get("uid", "")}


def hostname_for(service: dict, pod: dict) -> str | None:
    """Upstream: only when the pod names a hostname and its subdomain is the service's name."""
    spec = pod.get("spec") or {}
    if spec.get("hostname") and spec.get("subdomain") == service["metadata"]["name"]:
        return spec["hostname"]
    return None


def endpoint_address(service: dict, pod: dict) -> dict:
    out: dict = {"ip": pod_ip(pod)}
    host = hostname_for(service, pod)
    if host:
        out["hostname"] = host
    node = (pod.get("spec") or {}).get("nodeName")
    if node:
        out["nodeName"] = node
    out["targetRef"] = target_ref(pod)
    return out


def address_family(ip: str) -> str:
    return "IPv6" if ":" in ip else "IPv4"


def _address_order(addr: dict) -> tuple[str, str]:
    """Upstream sorts by IP as a byte string ("10.0.0.10" < "10.0.0.9"), then by targetRef uid."""
    return addr["ip"], addr["targetRef"]["uid"]


# -- metadata ------------------------------------------------------------------------------
def derived_uid(service: dict, what: str) -> str:
    """A stable uid for a computed object: the same Service and role always give the same uid."""
    return _uid5(f"{service['metadata'].get('uid', '')}/{what}")


@functools.lru_cache(maxsize=4096)
def _uid5(text: str) -> str:
    return str(uuid.uuid5(_UID_NAMESPACE, text))


def content_version(service: dict, pods: list[dict]) -> str:
    """The newest resourceVersion among the Service and the pods the object was computed from."""
    versions = [int(service["metadata"].get("resourceVersion") or 0)]
    versions += [int(p["metadata"].get("resourceVersion") or 0) for p in pods]
    return str(max(versions))


def _is_headless(service: dict) -> bool:
    return (service.get("spec") or {}).get("clusterIP") == "None"


def _service_labels(service: dict, reserved: tuple[str, ...]) -> dict:
    labels = {k: v for k, v in ((service["metadata"].get("labels") or {}).items()) if k not in reserved}
    if _is_headless(service):
        labels[constants.LABEL_HEADLESS_SERVICE] = ""
    return labels


def _base_meta(service: dict, name: str, uid_role: str, pods: list[dict]) -> dict:
    smeta = service["metadata"]
    meta = {"name": name, "namespace": smeta.get("namespace", "")}
    if smeta.get("creationTimestamp"):
        meta["creationTimestamp"] = smeta["creationTimestamp"]
    meta["uid"] = derived_uid(service, uid_role)
    meta["resourceVersion"] = content_version(service, pods)
    return meta


# -- Endpoints -----------------------------------------------------------------------------
def selected_pods(service: dict, pods: list[dict]) -> list[dict]:
    """The pods of ``pods`` (already in the Service's namespace) that the Service computes from."""
    selector = service_selector(service)
    if selector is None:
        return []
    return [p for p in pods if labels_match(selector, p) and is_candidate(p)]


def endpoint_subsets(service: dict, pods: list[dict]) -> list[dict]:
    """One subset per distinct set of resolved ports (upstream RepackSubsets), addresses split by readiness."""
    has_ports = bool((service.get("spec") or {}).get("ports"))
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for pod in pods:
        ports = resolved_ports(service, pod)
        if has_ports and not ports:
            continue          # upstream: no (pod, port) pair at all, so the pod is in no subset
        if not has_ports and not _is_headless(service):
            continue          # upstream builds no subsets for a non-headless service without ports
        bucket = groups.setdefault(ports, {"addresses": [], "notReadyAddresses": []})
        bucket["addresses" if is_ready(pod) else "notReadyAddresses"].append(endpoint_address(service, pod))
    subsets = []
    for ports in sorted(groups, key=_ports_order):
        bucket = groups[ports]
        subset: dict = {}
        for key in ("addresses", "notReadyAddresses"):
            if bucket[key]:
                subset[key] = sorted(bucket[key], key=_address_order)
        if ports:
            subset["ports"] = [endpoint_port(*p, slice_form=False) for p in ports]
        subsets.append(subset)
    return subsets


def build_endpoints(service: dict, pods: list[dict]) -> dict | None:
    """The core/v1 Endpoints for ``service`` given its namespace's pods (or the label-matched
    subset of them); None when the Service has no (or an empty) selector."""
    if service_selector(service) is None:
        return None
    chosen = selected_pods(service, pods)
    meta = _base_meta(service, service["metadata"]["name"], "endpoints", chosen)
    labels = _service_labels(service, (constants.LABEL_ENDPOINTS_MANAGED_BY,))
    labels[constants.LABEL_ENDPOINTS_MANAGED_BY] = constants.ENDPOINTS_CONTROLLER_NAME
    meta["labels"] = labels
    out = {"kind": "Endpoints", "apiVersion": "v1", "metadata": meta}
    subsets = endpoint_subsets(service, chosen)
    if subsets:
        out["subsets"] = subsets
    return out


# -- EndpointSlices ------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def slice_name(service_name: str, key: tuple) -> str:
    """``<service>-<5 characters>``: shaped like upstream's generateName result, but derived from
    the slice's (address type, port mapping, chunk number) so it is the same on every read."""
    digest = hashlib.sha256(json.dumps(key, separators=(",", ":")).encode()).digest()
    return f"{service_name}-{hashing.safe_encode(digest[:constants.GENERATED_SUFFIX_LENGTH])}"


def slice_endpoint(service: dict, pod: dict, zone: str | None) -> dict:
    ready = is_ready(pod)
    out: dict = {
        "addresses": [pod_ip(pod)],
        "conditions": {"ready": ready, "serving": is_serving(pod), "terminating": is_terminating(pod)},
    }
    host = hostname_for(service, pod)
    if host:
        out["hostname"] = host
    node = (pod.get("spec") or {}).get("nodeName")
    if node:
        out["nodeName"] = node
    out["targetRef"] = target_ref(pod)
    if zone:
        out["zone"] = zone
    return out


def owner_reference(service: dict) -> dict:
    meta = service["metadata"]
    return {"apiVersion": "v1", "kind": "Service", "name": meta["name"], "uid": meta.get("uid", ""),
            "controller": True, "blockOwnerDeletion": True}


def _slice(service: dict, name: str, address_type: str, ports: tuple, endpoints: list[dict],
           pods: list[dict]) -> dict:
    meta = _base_meta(service, name, f"endpointslice/{name}", pods)
    meta["generateName"] = f"{service['metadata']['name']}-"
    reserved = (constants.LABEL_SERVICE_NAME, constants.LABEL_ENDPOINTSLICE_MANAGED_BY)
    labels = _service_labels(service, reserved)
    labels[constants.LABEL_ENDPOINTSLICE_MANAGED_BY] = constants.ENDPOINTSLICE_CONTROLLER_NAME
    labels[constants.LABEL_SERVICE_NAME] = service["metadata"]["name"]
    meta["labels"] = labels
    meta["ownerReferences"] = [owner_reference(service)]
    return {"kind": "EndpointSlice", "apiVersion": "discovery.k8s.io/v1", "metadata": meta,
            "addressType": address_type, "endpoints": endpoints,
            "ports": [endpoint_port(*p, slice_form=True) for p in ports]}


def build_slices(service: dict, pods: list[dict], zone_of=lambda node_name: None) -> list[dict]:
    """The EndpointSlices for ``service``: one per (address type, resolved port mapping), split
    every ``constants.MAX_ENDPOINTS_PER_SLICE`` endpoints; a single empty placeholder slice when
    nothing matches; [] when the Service has no (or an empty) selector or is ExternalName.
    ``zone_of(node name)`` gives the node's topology zone label (or None)."""
    spec = service.get("spec") or {}
    if service_selector(service) is None or spec.get("type") == "ExternalName":
        return []
    name = service["metadata"]["name"]
    groups: dict[tuple, list[tuple[dict, dict]]] = {}
    for pod in selected_pods(service, pods):
        ports = resolved_ports(service, pod)
        endpoint = slice_endpoint(service, pod, zone_of((pod.get("spec") or {}).get("nodeName")))
        groups.setdefault((address_family(pod_ip(pod)), ports), []).append((endpoint, pod))
    if not groups:
        family = (spec.get("ipFamilies") or ["IPv4"])[0]
        return [_slice(service, slice_name(name, (family, (), 0)), family, (), [], [])]
    slices = []
    size = max(1, constants.MAX_ENDPOINTS_PER_SLICE)
    for (family, ports), members in sorted(groups.items(), key=lambda kv: (kv[0][0], _ports_order(kv[0][1]))):
        members.sort(key=lambda m: (m[0]["addresses"][0], m[0]["targetRef"]["uid"]))
        for chunk_no, start in enumerate(range(0, len(members), size)):
            chunk = members[start:start + size]
            slices.append(_slice(service, slice_name(name, (family, ports, chunk_no)), family, ports,
                                 [e for e, _ in chunk], [p for _, p in chunk]))
    return slices


def _ports_order(ports: tuple) -> list:
    return [(n, p, proto) for n, p, proto, _ in ports]
