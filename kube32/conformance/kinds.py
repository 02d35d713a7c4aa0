"""Where each kube32 kind lives in the Kubernetes URL scheme (runner side; black-box)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Kind:
    kind: str
    api_version: str
    plural: str
    namespaced: bool

    def path(self, namespace: str | None = None, name: str | None = None, sub: str | None = None) -> str:
        root = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        base = f"{root}/namespaces/{namespace}/{self.plural}" if self.namespaced and namespace else \
            f"{root}/{self.plural}"
        if name:
            base += f"/{name}"
        if sub:
            base += f"/{sub}"
        return base


KINDS = {k.kind: k for k in (
    Kind("Namespace", "v1", "namespaces", False),
    Kind("Node", "v1", "nodes", False),
    Kind("Pod", "v1", "pods", True),
    Kind("Service", "v1", "services", True),
    Kind("Event", "v1", "events", True),
    Kind("Endpoints", "v1", "endpoints", True),
    Kind("Deployment", "apps/v1", "deployments", True),
    Kind("DaemonSet", "apps/v1", "daemonsets", True),
    Kind("Job", "batch/v1", "jobs", True),
    Kind("Lease", "coordination.k8s.io/v1", "leases", True),
    Kind("EndpointSlice", "discovery.k8s.io/v1", "endpointslices", True),
)}


def kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown kind {name!r}; kube32 serves {', '.join(sorted(KINDS))}") from None
