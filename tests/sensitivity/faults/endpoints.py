"""Faults of the computed Endpoints / EndpointSlices views, and fair variants of them.

Each fault patches one rule in ``reference.views.endpoint_rules`` (the pure rules), in
``reference.views.endpoints`` (how a Service's pods are found and memoized) or in the API's write
guard, and names the clauses whose scenarios must then fail. Each fair variant reads the document
another way where it is silent (port names, address fields, how subsets and slices are packed, how a
not-ready pod shows in a slice, which refusal a write gets): the document level must stay green.
"""

from __future__ import annotations

from kube32.reference import errors
from kube32.reference.api import writes as api_writes
from kube32.reference.machinery import conditions
from kube32.reference.views import endpoint_rules as rules
from kube32.reference.views import endpoints as views
from kube32.spec import constants
from tests.sensitivity.registry import fair, fault

_is_candidate = rules.is_candidate
_is_terminating = rules.is_terminating
_pod_ip = rules.pod_ip
_find_port = rules.find_port
_resolved_ports = rules.resolved_ports
_endpoint_subsets = rules.endpoint_subsets
_endpoint_port = rules.endpoint_port
_slice_endpoint = rules.slice_endpoint
_is_ready = rules.is_ready
_labels_match = rules.labels_match
_slice = rules._slice
_service_selector = rules.service_selector
_build_slices = views.build_slices
_build_endpoints = views.build_endpoints
_pods_for = views.pods_for


# -- computed on read ----------------------------------------------------------------------------
@fault("endpoints-cache-ignores-pods", breaks=["EP-COMPUTED-ON-READ"])
def _(mp):
    """A cache keyed on the Service alone: pod changes show only after the Service changes."""
    mp.setattr(views, "fingerprint", lambda service, pods: (service["metadata"].get("uid"),
                                                            service["metadata"].get("resourceVersion")))


@fault("endpoints-blind-to-service-updates", breaks=["EP-COMPUTED-ON-READ"])
def _(mp):
    """The views keep using the Service as first seen: its later changes (a new selector) never show."""
    first: dict[str, dict] = {}

    def stale(service):
        return first.setdefault(service["metadata"].get("uid", ""), service)
    mp.setattr(views, "pods_for", lambda store, service: _pods_for(store, stale(service)))
    mp.setattr(views, "build_endpoints", lambda service, pods, zones: _build_endpoints(stale(service), pods, zones))
    mp.setattr(views, "build_slices", lambda service, pods, zones: _build_slices(stale(service), pods, zones))


@fault("endpointslices-without-service-name-label", breaks=["EP-COMPUTED-ON-READ"])
def _(mp):
    def unlabelled(*args, **kwargs):
        sl = _slice(*args, **kwargs)
        sl["metadata"]["labels"].pop(constants.LABEL_SERVICE_NAME, None)
        return sl
    mp.setattr(rules, "_slice", unlabelled)


# -- read-only ------------------------------------------------------------------------------------
@fault("endpoints-writable", breaks=["EP-READ-ONLY"])
def _(mp):
    """The API lets writes through to the store (the views still answer reads)."""
    mp.setattr(api_writes, "writable", lambda cp, r: None)


# -- which pods ------------------------------------------------------------------------------------
@fault("empty-selector-selects-everything", breaks=["EP-SELECTOR-REQUIRED"])
def _(mp):
    """LabelSelector semantics: a missing or empty selector matches every pod of the namespace."""
    mp.setattr(rules, "service_selector", lambda service: _service_selector(service) or {})


@fault("endpoints-select-across-namespaces", breaks=["EP-SAME-NAMESPACE"])
def _(mp):
    def everywhere(store, service):
        selector = rules.service_selector(service)
        return [] if selector is None else store.list("pods", None, selector=selector)
    mp.setattr(views, "pods_for", everywhere)


@fault("pods-without-ip-listed", breaks=["EP-REQUIRES-POD-IP"])
def _(mp):
    """A bound pod without status.podIP is listed with an empty IP."""
    mp.setattr(rules, "is_candidate", lambda pod: not rules.is_terminating(pod))
    mp.setattr(rules, "pod_ip", lambda pod: _pod_ip(pod) or "")


@fault("terminating-pods-listed", breaks=["EP-EXCLUDES-TERMINATING"])
def _(mp):
    mp.setattr(rules, "is_candidate", lambda pod: _pod_ip(pod) is not None)


@fault("endpointslices-keep-terminating-pods", breaks=["EP-EXCLUDES-TERMINATING"])
def _(mp):
    """Upstream's EndpointSlice rule: terminating pods stay in slices (terminating: true)."""
    def upstream_slices(service, pods, zones):
        mp.setattr(rules, "is_candidate", lambda pod: _pod_ip(pod) is not None)
        try:
            return _build_slices(service, pods, zones)
        finally:
            mp.setattr(rules, "is_candidate", _is_candidate)
    mp.setattr(views, "build_slices", upstream_slices)


# -- ports -----------------------------------------------------------------------------------------
@fault("named-port-ignores-protocol", breaks=["EP-NAMED-PORT-RESOLUTION"], level="reference")
def _(mp):
    mp.setattr(rules, "_protocol", lambda port: "TCP")


@fault("named-port-takes-service-port", breaks=["EP-NAMED-PORT-RESOLUTION", "EP-NAMED-PORT-SUBSETS"])
def _(mp):
    """A named targetPort is not looked up: the Service port number is used."""
    def lazy(pod, service_port):
        target = service_port.get("targetPort")
        return service_port.get("port") if isinstance(target, str) else _find_port(pod, service_port)
    mp.setattr(rules, "find_port", lazy)


@fault("ports-of-the-first-pod-for-all", breaks=["EP-NAMED-PORT-SUBSETS"])
def _(mp):
    """Ports resolved once per Service (from whichever pod comes first) and used for every pod."""
    first: dict[str, tuple] = {}

    def once(service, pod):
        key = service["metadata"].get("uid", "")
        if key not in first:
            first[key] = _resolved_ports(service, pod)
        return first[key]
    mp.setattr(rules, "resolved_ports", once)


# -- readiness -------------------------------------------------------------------------------------
@fault("nobody-is-ready", breaks=["EP-READY-ADDRESSES"])
def _(mp):
    mp.setattr(rules, "is_ready", lambda pod: False)


@fault("any-pod-with-ip-is-ready", breaks=["EP-NOT-READY-ADDRESSES"])
def _(mp):
    mp.setattr(rules, "is_ready", lambda pod: True)


@fault("not-ready-pods-dropped", breaks=["EP-NOT-READY-ADDRESSES"])
def _(mp):
    mp.setattr(rules, "is_candidate", lambda pod: _is_candidate(pod) and rules.is_ready(pod))


@fault("endpoints-ready-by-condition-alone", breaks=["EP-NOT-READY-ADDRESSES"])
def _(mp):
    """Ready is the Ready condition alone: a pod reporting Ready while still Pending is an address."""
    mp.setattr(rules, "is_ready", conditions.is_ready)
    mp.setattr(rules, "is_serving", conditions.is_ready)


@fault("endpointslices-ready-but-not-serving", breaks=["EP-READY-ADDRESSES"])
def _(mp):
    """A Ready Running pod is ready in its slice, but not serving."""
    mp.setattr(rules, "is_serving", lambda pod: False)


@fault("endpoints-list-ready-pods-as-not-ready", breaks=["EP-READY-ADDRESSES"])
def _(mp):
    """Endpoints alone put every pod under notReadyAddresses (the slices stay right)."""
    def all_not_ready(service, pods):
        mp.setattr(rules, "is_ready", lambda pod: False)
        try:
            return _endpoint_subsets(service, pods)
        finally:
            mp.setattr(rules, "is_ready", _is_ready)
    mp.setattr(rules, "endpoint_subsets", all_not_ready)


@fault("ready-pods-also-not-ready-addresses", breaks=["EP-NOT-READY-ADDRESSES"])
def _(mp):
    """Every listed pod is a not-ready address too, ready ones included."""
    def doubled(service, pods):
        subsets = _endpoint_subsets(service, pods)
        for s in subsets:
            if s.get("addresses"):
                s["notReadyAddresses"] = s.get("notReadyAddresses", []) + [dict(a) for a in s["addresses"]]
        return subsets
    mp.setattr(rules, "endpoint_subsets", doubled)


# -- which pods a selector picks ------------------------------------------------------------------
def _every_pod_of_the_namespace(mp):
    """The views read all pods of the Service's namespace and leave matching to ``labels_match``."""
    mp.setattr(views, "pods_for", lambda store, service: [] if rules.service_selector(service) is None
               else store.list("pods", service["metadata"].get("namespace", "")))


@fault("selector-matches-any-key", breaks=["EP-SELECTS-BY-LABELS"])
def _(mp):
    """A pod matching one of the selector's labels is selected."""
    _every_pod_of_the_namespace(mp)
    mp.setattr(rules, "labels_match", lambda selector, pod: any(
        ((pod.get("metadata") or {}).get("labels") or {}).get(k) == v for k, v in selector.items()))


@fault("selector-ignores-label-values", breaks=["EP-SELECTS-BY-LABELS"])
def _(mp):
    """A pod carrying the selector's keys is selected, whatever their values."""
    _every_pod_of_the_namespace(mp)
    mp.setattr(rules, "labels_match", lambda selector, pod: set(selector) <= set(
        (pod.get("metadata") or {}).get("labels") or {}))


# -- grouping by port numbers, each view on its own -----------------------------------------------
def _first_ports_within(mp, build):
    """``build`` run with every pod given the ports resolved for the first pod of the Service."""
    def merged(service, *args):
        first: list = []

        def once(svc, pod):
            if not first:
                first.append(_resolved_ports(svc, pod))
            return first[0]
        mp.setattr(rules, "resolved_ports", once)
        try:
            return build(service, *args)
        finally:
            mp.setattr(rules, "resolved_ports", _resolved_ports)
    return merged


@fault("endpoints-one-subset-for-all-port-numbers", breaks=["EP-NAMED-PORT-SUBSETS"])
def _(mp):
    """Endpoints put every pod in one subset with the first pod's port numbers (slices stay right)."""
    mp.setattr(rules, "endpoint_subsets", _first_ports_within(mp, _endpoint_subsets))


@fault("endpointslices-one-slice-for-all-port-numbers", breaks=["EP-NAMED-PORT-SUBSETS"])
def _(mp):
    """Slices put every pod in one slice with the first pod's port numbers (Endpoints stay right)."""
    mp.setattr(views, "build_slices", _first_ports_within(mp, _build_slices))


# -- fair variants -----------------------------------------------------------------------------------
_EVERY_EP_CLAUSE = ["EP-COMPUTED-ON-READ", "EP-SELECTOR-REQUIRED", "EP-SELECTS-BY-LABELS", "EP-SAME-NAMESPACE",
                    "EP-REQUIRES-POD-IP", "EP-EXCLUDES-TERMINATING", "EP-NAMED-PORT-RESOLUTION",
                    "EP-NAMED-PORT-SUBSETS", "EP-READY-ADDRESSES", "EP-NOT-READY-ADDRESSES"]


@fair("endpoint-addresses-name-only-the-ip", passes=_EVERY_EP_CLAUSE, differs=["EP-READY-ADDRESSES"])
def _(mp):
    """Endpoints addresses and slice endpoints carry the IP alone: no nodeName, no targetRef (the
    document names neither)."""
    def bare_subsets(service, pods):
        subsets = _endpoint_subsets(service, pods)
        for s in subsets:
            for key in ("addresses", "notReadyAddresses"):
                if key in s:
                    s[key] = [{"ip": a["ip"]} for a in s[key]]
        return subsets

    def bare_slices(service, pods, zones):
        out = _build_slices(service, pods, zones)
        for sl in out:
            for e in sl.get("endpoints") or []:
                e.pop("nodeName", None)
                e.pop("targetRef", None)
        return out
    mp.setattr(rules, "endpoint_subsets", bare_subsets)
    mp.setattr(views, "build_slices", bare_slices)


@fair("endpoint-ports-without-names", passes=_EVERY_EP_CLAUSE, differs=["EP-NAMED-PORT-RESOLUTION"])
def _(mp):
    """Endpoint ports carry their number and protocol, not the Service port's name."""
    mp.setattr(rules, "endpoint_port", lambda name, port, protocol, app_protocol, *, slice_form:
               _endpoint_port("", port, protocol, app_protocol, slice_form=slice_form))


@fair("endpoints-one-subset-per-pod", passes=_EVERY_EP_CLAUSE, differs=["EP-NAMED-PORT-SUBSETS"])
def _(mp):
    """Every pod gets a subset of its own, with its own ports: pods on different numbers are still
    apart, pods on the same numbers are not packed together."""
    mp.setattr(rules, "endpoint_subsets", lambda service, pods: [
        s for pod in pods for s in _endpoint_subsets(service, [pod])])


@fair("endpointslice-per-endpoint", passes=_EVERY_EP_CLAUSE, differs=["EP-NAMED-PORT-SUBSETS"])
def _(mp):
    """Every endpoint gets a slice of its own (a slice size of one)."""
    mp.setattr(constants, "MAX_ENDPOINTS_PER_SLICE", 1)


@fair("endpointslices-list-ready-pods-only", passes=_EVERY_EP_CLAUSE, differs=["EP-NOT-READY-ADDRESSES"])
def _(mp):
    """Slices list the ready pods alone: a not-ready pod is only a notReadyAddress of the Endpoints."""
    def ready_only(service, pods, zones):
        return _build_slices(service, [p for p in pods if not rules.is_candidate(p) or rules.is_ready(p)], zones)
    mp.setattr(views, "build_slices", ready_only)


@fair("endpointslices-upstream-conditions", passes=_EVERY_EP_CLAUSE, differs=["EP-NOT-READY-ADDRESSES"])
def _(mp):
    """Upstream's slice conditions: serving is the Ready condition alone, and terminating is left out
    when false."""
    def upstream(service, pod, zone):
        e = _slice_endpoint(service, pod, zone)
        e["conditions"]["serving"] = conditions.is_ready(pod)
        if not e["conditions"]["terminating"]:
            del e["conditions"]["terminating"]
        return e
    mp.setattr(rules, "slice_endpoint", upstream)


@fair("endpoints-writes-forbidden", passes=["EP-READ-ONLY"], differs=["EP-READ-ONLY"])
def _(mp):
    """A write to a computed view is refused 403 Forbidden instead of 405 MethodNotAllowed."""
    def forbidden(cp, r):
        if r.read_only or r.key in cp.views:
            raise errors.Forbidden(f"{r.key} are computed by the API server; clients may not write them")
    mp.setattr(api_writes, "writable", forbidden)
