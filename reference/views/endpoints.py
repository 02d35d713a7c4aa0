"""Endpoints and EndpointSlices computed on read: the two read-only views the API serves.

Nothing is stored and no controller runs: every GET/LIST builds the objects from the Services and
pods in the store at that moment (rules in ``reference.views.endpoint_rules``), so a pod change is
visible on the very next read. Reads stay cheap because
- a Service's pods come from the store's label index (``store.list("pods", ns, selector=...)``),
  never from a scan of every pod;
- results are memoized per store resourceVersion: any write anywhere bumps it and drops the memo,
  so a memoized answer is never older than the store.

Returned objects are READ-ONLY snapshots shared between readers (like ``store.list``).

Choices (see the endpoints clause catalogue): a Service without a selector, or with an empty one,
has no Endpoints (GET answers 404 NotFound) and no EndpointSlices; kube32 has no user-managed
Endpoints because the views are read-only.
"""

from __future__ import annotations

import dataclasses

from reference.views import endpoint_rules as rules
from spec import constants

ENDPOINTS_KEY = "endpoints"
SLICES_KEY = "endpointslices.discovery.k8s.io"


@dataclasses.dataclass(frozen=True)
class Computed:
    """What one Service yields: its Endpoints (None when it has no selector) and its slices."""
    endpoints: dict | None
    slices: tuple[dict, ...]


def pods_for(store, service: dict) -> list[dict]:
    """The pods a Service may select, narrowed through the label index of its own namespace."""
    selector = rules.service_selector(service)
    if selector is None:
        return []
    return store.list("pods", service["metadata"].get("namespace", ""), selector=selector)


def zone_lookup(store):
    """node name -> its topology.kubernetes.io/zone label (or None)."""
    def zone_of(node_name: str | None) -> str | None:
        if not node_name:
            return None
        node = store.peek("nodes", "", node_name)
        return ((node or {}).get("metadata", {}).get("labels") or {}).get(constants.LABEL_TOPOLOGY_ZONE)
    return zone_of


def compute(store, service: dict) -> Computed:
    pods = pods_for(store, service)
    return Computed(rules.build_endpoints(service, pods),
                    tuple(rules.build_slices(service, pods, zone_lookup(store))))


class ServiceViews:
    """Per-Service computation shared by both views, memoized for one store resourceVersion."""

    def __init__(self, store) -> None:
        self.store = store
        self._rv: int | None = None
        self._memo: dict[tuple[str, str], Computed | None] = {}

    def _fresh(self) -> None:
        """Drop the memo when the store has changed since it was filled."""
        rv = self.store.resource_version
        if rv != self._rv:
            self._rv = rv
            self._memo = {}

    def of_service(self, namespace: str, name: str) -> Computed | None:
        """None when the Service does not exist."""
        with self.store.lock:
            self._fresh()
            key = (namespace, name)
            if key not in self._memo:
                service = self.store.peek("services", namespace, name)
                self._memo[key] = None if service is None else compute(self.store, service)
            return self._memo[key]

    def in_namespaces(self, namespace: str | None) -> list[Computed]:
        """Every Service's result in ``namespace`` (all namespaces for None), in namespace/name order."""
        with self.store.lock:
            out = []
            for service in self.store.list("services", namespace):
                meta = service["metadata"]
                done = self.of_service(meta.get("namespace", ""), meta["name"])
                if done is not None:
                    out.append(done)
            return out


class EndpointsView:
    """core/v1 Endpoints: one per Service with a selector, named after it."""

    def __init__(self, services: ServiceViews) -> None:
        self.services = services

    def list(self, namespace: str | None) -> list[dict]:
        return [c.endpoints for c in self.services.in_namespaces(namespace) if c.endpoints is not None]

    def get(self, namespace: str, name: str) -> dict | None:
        done = self.services.of_service(namespace, name)
        return None if done is None else done.endpoints


class EndpointSliceView:
    """discovery.k8s.io/v1 EndpointSlices: ``<service>-<suffix>``, labelled with the Service's name."""

    def __init__(self, services: ServiceViews) -> None:
        self.services = services

    def list(self, namespace: str | None) -> list[dict]:
        return [s for c in self.services.in_namespaces(namespace) for s in c.slices]

    def get(self, namespace: str, name: str) -> dict | None:
        if "-" not in name:
            return None
        done = self.services.of_service(namespace, name.rsplit("-", 1)[0])
        if done is None:
            return None
        return next((s for s in done.slices if s["metadata"]["name"] == name), None)


def install(cp) -> None:
    """Register the computed views; the API routes their reads here and refuses writes."""
    services = ServiceViews(cp.store)
    cp.views[ENDPOINTS_KEY] = EndpointsView(services)
    cp.views[SLICES_KEY] = EndpointSliceView(services)
