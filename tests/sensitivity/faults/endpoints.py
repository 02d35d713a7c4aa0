"""Faults of the computed Endpoints / EndpointSlices views.

Each patches one rule in ``reference.views.endpoint_rules`` (the pure rules), in
``reference.views.endpoints`` (how a Service's pods are found and memoized) or in the API's write
guard, and names the clauses whose scenarios must then fail.
"""

from __future__ import annotations

from kube32.reference.api import resources as api_resources
from kube32.reference.views import endpoint_rules as rules
from kube32.reference.views import endpoints as views
from kube32.spec import constants
from tests.sensitivity.registry import fault

_is_candidate = rules.is_candidate
_is_terminating = rules.is_terminating
_pod_ip = rules.pod_ip
_find_port = rules.find_port
_resolved_ports = rules.resolved_ports
_endpoint_address = rules.endpoint_address
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
    mp.setattr(api_resources, "writable", lambda cp, r: None)


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
@fault("endpoint-address-without-node", breaks=["EP-READY-ADDRESSES"])
def _(mp):
    def no_node(service, pod):
        addr = _endpoint_address(service, pod)
        addr.pop("nodeName", None)
        return addr
    mp.setattr(rules, "endpoint_address", no_node)


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
    mp.setattr(rules, "is_ready", rules.ready_condition)
    mp.setattr(rules, "is_serving", rules.ready_condition)
