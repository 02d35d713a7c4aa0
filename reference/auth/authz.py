"""Authorisation: a small fixed policy, upstream's shapes (no RBAC objects).

- ``system:masters``: everything.
- Node identities (``system:node:<name>`` in ``system:nodes``), as upstream's Node authorizer and
  NodeRestriction admission: read what a kubelet reads; write only their own Node (and its status),
  their own Lease in ``kube-node-lease``, the status of pods bound to them (and confirm their
  deletion), and events. Label changes a node may not make are refused at admission
  (``restricted_labels``).
- Anyone else: refused.
Refusals are 403 Forbidden Status objects worded as upstream's.
"""

from __future__ import annotations

import dataclasses

from kube32.reference.auth.identity import User
from kube32.spec import constants

READ_VERBS = ("get", "list", "watch")
# what a kubelet reads (upstream's system:node role, for the kinds kube32 serves)
NODE_READS = {("", "nodes"), ("", "pods"), ("", "services"), ("", "endpoints"), ("", "namespaces"),
              ("discovery.k8s.io", "endpointslices"), ("coordination.k8s.io", "leases"), ("", "events")}
EVENT_WRITES = ("create", "update", "patch")
# NodeRestriction: labels a kubelet may set on its own Node under kubernetes.io / k8s.io
KUBELET_LABELS = frozenset({
    "kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os", "beta.kubernetes.io/arch",
    "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/region", "topology.kubernetes.io/zone"})
KUBELET_LABEL_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")


@dataclasses.dataclass(frozen=True)
class RequestInfo:
    """Upstream's RequestInfo: what a request does to which resource."""
    verb: str                 # get list watch create update patch delete deletecollection (or a debug verb)
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""

    @property
    def is_resource(self) -> bool:
        return bool(self.resource)


def request_info(method: str, path: str, query: dict) -> RequestInfo:
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"] and len(parts) >= 2:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 3:
        group, rest = parts[1], parts[3:]
    else:
        return RequestInfo(verb=method.lower(), path=path)
    namespace = ""
    if len(rest) >= 2 and rest[0] == "namespaces" and len(rest) > 2:
        namespace, rest = rest[1], rest[2:]
    elif len(rest) == 2 and rest[0] == "namespaces":   # the Namespace object itself
        pass
    resource = rest[0] if rest else ""
    name = rest[1] if len(rest) > 1 else ""
    sub = rest[2] if len(rest) > 2 else ""
    if resource == "namespaces" and name and not namespace:
        namespace = name
    m = method.upper()
    if m == "GET":
        verb = "watch" if query.get("watch") in ("1", "true", "True") else ("get" if name else "list")
    else:
        verb = {"POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete" if name else "deletecollection"}.get(m, m.lower())
    return RequestInfo(verb, group, resource, sub, namespace, name, path)


def forbidden_message(user: User, info: RequestInfo, reason: str = "") -> str:
    """Upstream's wording: `pods "p" is forbidden: User "u" cannot get resource "pods" in API group ""
    in the namespace "ns": reason`."""
    if not info.is_resource:
        text = f'forbidden: User "{user.name}" cannot {info.verb} path "{info.path}"'
    else:
        res = info.resource + (f"/{info.subresource}" if info.subresource else "")
        head = f'{res} "{info.name}" is forbidden' if info.name else f"{res} is forbidden"
        scope = f'in the namespace "{info.namespace}"' if info.namespace and info.resource != "namespaces" \
            else "at the cluster scope"
        text = (f'{head}: User "{user.name}" cannot {info.verb} resource "{info.resource}" '
                f'in API group "{info.group}" {scope}')
    return f"{text}: {reason}" if reason else text


def authorize(user: User, info: RequestInfo, stored_pod) -> str | None:
    """None when allowed, else the refusal's reason ("" for a plain no). ``stored_pod(ns, name)``
    reads a pod as stored (the Node authorizer's graph, reduced to a lookup)."""
    if user.is_master:
        return None
    node = user.node_name
    if node is None:
        return ""
    return _node(node, info, stored_pod)


def _node(node: str, info: RequestInfo, stored_pod) -> str | None:
    key = (info.group, info.resource)
    if not info.is_resource:     # discovery and OpenAPI documents; never /debug
        reads_discovery = info.verb == "get" and info.path.startswith(("/api", "/openapi", "/version"))
        return None if reads_discovery else ""
    if info.verb in READ_VERBS:
        return None if key in NODE_READS else ""
    if key == ("", "nodes"):
        if info.verb == "create" or info.name == node:
            return None       # a create's name is checked at admission (the body is not read here)
        return f"node '{node}' cannot modify node '{info.name}'"
    if key == ("coordination.k8s.io", "leases"):
        if info.namespace != constants.NODE_LEASE_NAMESPACE:
            return f"can only access node lease in the {constants.NODE_LEASE_NAMESPACE!r} namespace"
        if info.verb == "create" or info.name == node:
            return None
        return "can only access node lease with the same name as the requesting node"
    if key == ("", "events"):
        return None if info.verb in EVENT_WRITES else ""
    if key == ("", "pods") and info.name and (info.subresource == "status" or
                                                 (info.verb == "delete" and not info.subresource)):
        pod = stored_pod(info.namespace, info.name)
        if pod is None:
            return None       # answered 404 by the API itself
        bound = (pod.get("spec") or {}).get("nodeName")
        if bound == node:
            return None
        return f"node '{node}' can only {'update status of' if info.subresource else 'delete'} pods bound to it"
    return ""


def restricted_labels(old: dict | None, new: dict) -> list[str]:
    """Labels a node may not add, change or remove on its own Node (NodeRestriction)."""
    before = ((old or {}).get("metadata") or {}).get("labels") or {}
    after = (new.get("metadata") or {}).get("labels") or {}
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    return sorted(k for k in changed if _restricted(k))


def _restricted(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    if domain == "node-restriction.kubernetes.io" or domain.endswith(".node-restriction.kubernetes.io"):
        return True
    if key in KUBELET_LABELS:
        return False
    if any(domain == ns or domain.endswith("." + ns) for ns in KUBELET_LABEL_NAMESPACES):
        return False
    return any(domain == d or domain.endswith("." + d) for d in ("kubernetes.io", "k8s.io"))
