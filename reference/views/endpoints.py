"""Endpoints and EndpointSlices computed on read: the two read-only views the API serves.

Nothing is stored and no controller runs: every GET/LIST builds the objects from the Services and
pods in the store at that moment (rules in ``reference.views.endpoint_rules``), so a pod change is
visible on the very next read. Reads stay cheap because
- a Service's pods come from the store's label index (``store.list("pods", ns, selector=...)``),
  never from a scan of every pod;
- each Service's objects are memoized under a fingerprint of exactly what they are built from
  (the Service's resourceVersion, its selected pods' uids and resourceVersions, and for slices
  the zones of their nodes); a read recomputes the fingerprint and rebuilds only when it moved,
  so a write elsewhere costs a Service little and a write to one of its pods is seen at once.
  When the store's resourceVersion has not moved since the last check, not even the fingerprint
  is recomputed;
- a list with label equalities (``list(ns, selector={...})``, what the API passes from
  ``?labelSelector=``) visits only the Services that can produce a matching object: the one named
  by ``kubernetes.io/service-name`` (slices), or those whose own labels carry the other terms. The
  API still applies the full selector to what comes back.

Returned objects are READ-ONLY snapshots shared between readers (like ``store.list``). Their
``resourceVersion`` is the store's resourceVersion when their content last changed (see
``stamp_versions``), so it moves exactly when they do and never goes back.

Choices (catalogue EP-SELECTOR-REQUIRED, EP-READ-ONLY): a Service without a selector, or with an
empty one, has no Endpoints (GET answers 404 NotFound) and no EndpointSlices; kube32 has no
user-managed Endpoints because the views are read-only.
"""

from __future__ import annotations

from kube32.reference.views import endpoint_rules as rules
from kube32.spec import constants

ENDPOINTS_KEY = "endpoints"
SLICES_KEY = "endpointslices.discovery.k8s.io"

# Labels the rules set on computed objects whatever the Service's own labels say.
_ADDED_LABELS = (constants.LABEL_ENDPOINTS_MANAGED_BY, constants.LABEL_ENDPOINTSLICE_MANAGED_BY,
                 constants.LABEL_HEADLESS_SERVICE)


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


def fingerprint(service: dict, pods: list[dict]) -> tuple:
    """Everything a Service's Endpoints depend on: its own version and its pods' identities and versions."""
    return (service["metadata"].get("uid"), service["metadata"].get("resourceVersion"),
            tuple((p["metadata"].get("uid"), p["metadata"].get("resourceVersion")) for p in pods))


def node_zones(store, pods: list[dict]) -> dict[str, str | None]:
    """The zone of every node the pods run on (part of the slices' fingerprint)."""
    zone_of = zone_lookup(store)
    nodes = {(p.get("spec") or {}).get("nodeName") for p in pods}
    return {n: zone_of(n) for n in sorted(nodes, key=str) if n}


def build_endpoints(service: dict, pods: list[dict], zones: dict) -> dict | None:
    return rules.build_endpoints(service, pods)


def build_slices(service: dict, pods: list[dict], zones: dict) -> tuple[dict, ...]:
    return tuple(rules.build_slices(service, pods, zones.get))


def _objects(built) -> list[dict]:
    if built is None:
        return []
    return [built] if isinstance(built, dict) else list(built)


def _content(obj: dict) -> dict:
    meta = {k: v for k, v in obj["metadata"].items() if k != "resourceVersion"}
    return {**obj, "metadata": meta}


def stamp_versions(previous, built, store_rv: int) -> None:
    """Give rebuilt objects a resourceVersion that changes exactly when their content does and
    never goes back: an object equal to the one served before (same name, same content) keeps
    that one's version; a new or changed object takes the store's current resourceVersion."""
    before = {o["metadata"]["name"]: o for o in _objects(previous)}
    for obj in _objects(built):
        old = before.get(obj["metadata"]["name"])
        if old is not None and _content(old) == _content(obj):
            obj["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        else:
            obj["metadata"]["resourceVersion"] = str(store_rv)


class ServiceViews:
    """Per-Service Endpoints and slices, memoized by fingerprint. Call under ``store.lock``."""

    def __init__(self, store) -> None:
        self.store = store
        # (namespace, name, "endpoints" | "slices") -> (fingerprint, built, store rv it was last checked at)
        self._memo: dict[tuple[str, str, str], tuple[tuple, object, int]] = {}
        self._prune_at = 256

    def _part(self, service: dict, part: str):
        meta = service["metadata"]
        memo_key = (meta.get("namespace", ""), meta["name"], part)
        rv = self.store.resource_version
        hit = self._memo.get(memo_key)
        if hit is not None and hit[2] == rv:
            return hit[1]                   # nothing at all was written since it was last checked
        pods = pods_for(self.store, service)
        key = fingerprint(service, pods)
        zones = node_zones(self.store, pods) if part == "slices" else {}
        if zones:
            key += (tuple(zones.items()),)
        if hit is not None and hit[0] == key:
            self._memo[memo_key] = (key, hit[1], rv)
            return hit[1]
        builder = build_endpoints if part == "endpoints" else build_slices
        built = builder(service, pods, zones)
        stamp_versions(hit[1] if hit is not None else None, built, rv)
        self._memo[memo_key] = (key, built, rv)
        if len(self._memo) > self._prune_at:
            self._prune()
        return built

    def _prune(self) -> None:
        """Forget Services that were deleted (bounded memory under Service churn)."""
        for ns, name, part in list(self._memo):
            if self.store.peek("services", ns, name) is None:
                del self._memo[(ns, name, part)]
        self._prune_at = max(256, 2 * len(self._memo))

    def endpoints(self, service: dict) -> dict | None:
        return self._part(service, "endpoints")

    def slices(self, service: dict) -> tuple[dict, ...]:
        return self._part(service, "slices")

    def forget(self, namespace: str, name: str) -> None:
        """Drop the memo of a Service that no longer exists."""
        for part in ("endpoints", "slices"):
            self._memo.pop((namespace, name, part), None)


def candidate_services(store, namespace: str | None, selector: dict[str, str] | None,
                       by_service_name: bool = False) -> list[dict]:
    """A superset of the Services whose computed objects match the label equalities ``selector``.
    Computed objects carry the Service's labels plus the labels the rules add, so the remaining
    terms narrow the Services through the store's label index. ``by_service_name``: the objects'
    kubernetes.io/service-name label is always the Service's name (EndpointSlices), so that term
    names the one Service."""
    terms = dict(selector or {})
    wanted = terms.pop(constants.LABEL_SERVICE_NAME, None) if by_service_name else None
    for added in _ADDED_LABELS:
        terms.pop(added, None)
    if wanted is not None and namespace is not None:
        service = store.peek("services", namespace, wanted)
        labels = ((service or {}).get("metadata", {}).get("labels")) or {}
        ok = service is not None and all(k in labels and str(labels[k]) == v for k, v in terms.items())
        return [service] if ok else []
    services = store.list("services", namespace, selector=terms or None)
    if wanted is not None:
        services = [s for s in services if s["metadata"]["name"] == wanted]
    return services


class EndpointsView:
    """core/v1 Endpoints: one per Service with a selector, named after it."""

    def __init__(self, services: ServiceViews) -> None:
        self.services = services
        self.store = services.store

    def list(self, namespace: str | None, selector: dict[str, str] | None = None) -> list[dict]:
        with self.store.lock:
            built = (self.services.endpoints(s) for s in candidate_services(self.store, namespace, selector))
            return [e for e in built if e is not None]

    def get(self, namespace: str, name: str) -> dict | None:
        with self.store.lock:
            service = self.store.peek("services", namespace, name)
            if service is None:
                self.services.forget(namespace, name)
                return None
            return self.services.endpoints(service)


class EndpointSliceView:
    """discovery.k8s.io/v1 EndpointSlices: ``<service>-<suffix>``, labelled with the Service's name."""

    def __init__(self, services: ServiceViews) -> None:
        self.services = services
        self.store = services.store

    def list(self, namespace: str | None, selector: dict[str, str] | None = None) -> list[dict]:
        with self.store.lock:
            services = candidate_services(self.store, namespace, selector, by_service_name=True)
            return [sl for s in services for sl in self.services.slices(s)]

    def get(self, namespace: str, name: str) -> dict | None:
        if "-" not in name:
            return None
        service_name = name.rsplit("-", 1)[0]
        with self.store.lock:
            service = self.store.peek("services", namespace, service_name)
            if service is None:
                self.services.forget(namespace, service_name)
                return None
            return next((s for s in self.services.slices(service) if s["metadata"]["name"] == name), None)


def install(cp) -> None:
    """Register the computed views; the API routes their reads here and refuses writes."""
    services = ServiceViews(cp.store)
    cp.views[ENDPOINTS_KEY] = EndpointsView(services)
    cp.views[SLICES_KEY] = EndpointSliceView(services)
