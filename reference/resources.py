"""The resource registry: every kind the reference serves, described once.

The API routes, discovery documents, OpenAPI and table printers are all generated from this list.
``key`` is the store key: ``plural`` for core/v1, ``plural.group`` otherwise.
"""

from __future__ import annotations

import dataclasses

VERBS_RW = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
VERBS_RO = ("get", "list", "watch")


@dataclasses.dataclass(frozen=True)
class Resource:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()      # "status", "scale"
    read_only: bool = False                 # computed on read (Endpoints, EndpointSlices)
    returns_deleted_object: bool = False    # DELETE answers the object, not a Status (upstream's registries)

    @property
    def key(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_version(self) -> str:
        return self.api_version

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def verbs(self) -> tuple[str, ...]:
        return VERBS_RO if self.read_only else VERBS_RW

    def base_path(self, namespace: str | None) -> str:
        root = f"/apis/{self.group}/{self.version}" if self.group else "/api/v1"
        if self.namespaced and namespace:
            return f"{root}/namespaces/{namespace}/{self.plural}"
        return f"{root}/{self.plural}"


RESOURCES: tuple[Resource, ...] = (
    Resource("", "v1", "Namespace", "namespaces", False, ("ns",), (), ("status",)),
    Resource("", "v1", "Node", "nodes", False, ("no",), (), ("status",)),
    Resource("", "v1", "Pod", "pods", True, ("po",), ("all",), ("status",), returns_deleted_object=True),
    Resource("", "v1", "Service", "services", True, ("svc",), ("all",), ("status",), returns_deleted_object=True),
    Resource("", "v1", "Event", "events", True, ("ev",)),
    Resource("", "v1", "Endpoints", "endpoints", True, ("ep",), (), (), read_only=True),
    Resource("apps", "v1", "Deployment", "deployments", True, ("deploy",), ("all",), ("status", "scale")),
    Resource("apps", "v1", "DaemonSet", "daemonsets", True, ("ds",), ("all",), ("status",)),
    Resource("batch", "v1", "Job", "jobs", True, (), ("all",), ("status",)),
    Resource("coordination.k8s.io", "v1", "Lease", "leases", True),
    Resource("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True, (), (), (), read_only=True),
)

BY_KEY = {r.key: r for r in RESOURCES}
BY_KIND = {(r.api_version, r.kind): r for r in RESOURCES}


def lookup(group: str, version: str, plural: str) -> Resource | None:
    r = BY_KEY.get(f"{plural}.{group}" if group else plural)
    return r if r is not None and r.version == version else None


def group_versions() -> list[tuple[str, str]]:
    """(group, version) pairs in registry order, core first."""
    seen: list[tuple[str, str]] = []
    for r in RESOURCES:
        if (r.group, r.version) not in seen:
            seen.append((r.group, r.version))
    return seen
