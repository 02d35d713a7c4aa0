"""Endpoints / EndpointSlices steps: Services, the pods behind them, and what the views show.

Every Then here reads ONCE and judges that answer: Endpoints and EndpointSlices are computed on
read, so there is nothing to wait for; an implementation that needs time (a controller, a cache)
fails. Pods are named by their feature names; the Endpoints are matched to pods by IP and
targetRef, both read from the pod itself. Slices of a Service are found the way clients find
them, with ``labelSelector=kubernetes.io/service-name=<service>``.

What the document decides (the document level) is which pods are listed, ready or not, and on which
port numbers: an address is known by its IP. The rest is our reading, judged inside
``k32.reference()``: port names and protocols, an address's nodeName and targetRef, how pods sharing
their port numbers are packed into subsets and slices, how a not-ready pod appears in a slice
(upstream lists it with ready and serving false), and the ``terminating`` condition.

Ports in tables are written ``name=port`` (``http=8080``), ``port`` for an unnamed one, with an
optional ``/PROTOCOL`` (``dns=53/UDP``; TCP when absent); several are separated by commas.
"""

from __future__ import annotations

import copy

from pytest_bdd import given, parsers, then, when

from kube32.conformance.errors import ApiStatusError
from kube32.conformance.steps._util import DEFAULT_IMAGE, labels, manifest, rows, step
from kube32.spec import constants

OTHER_NS_SUFFIX = "-other"
POD_STATES = ("ready", "not ready", "no IP", "pending with IP", "ready but pending", "succeeded", "failed")


# -- bookkeeping ----------------------------------------------------------------------------
def _namespace(k32, request, alias: str | None) -> str:
    """The scenario namespace, or for "other" a second namespace made (and later removed) for the scenario."""
    if not alias:
        return k32.ns
    if alias != "other":
        raise ValueError(f'only the namespace "other" can be named in a feature, got {alias!r}')
    ns = k32.ns + OTHER_NS_SUFFIX
    made = k32.notes.setdefault("ep_namespaces", set())
    if ns not in made:
        k32.api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        made.add(ns)
        request.addfinalizer(lambda: _drop_namespace(k32, ns))
    return ns


def _drop_namespace(k32, ns: str) -> None:
    for kind in ("Service", "Pod"):
        try:
            for obj in k32.api.list(kind, ns):
                k32.api.delete(kind, obj["metadata"]["name"], ns, grace=0 if kind == "Pod" else None)
        except ApiStatusError:
            pass
    try:
        k32.api.delete("Namespace", ns)
    except ApiStatusError:
        pass


def _services(k32) -> dict[str, str]:
    return k32.notes.setdefault("ep_services", {})      # feature name -> namespace


def _pods(k32) -> dict[str, str]:
    return k32.notes.setdefault("ep_pods", {})          # feature name -> namespace


def _service_ns(k32, svc: str) -> str:
    return _services(k32).get(svc, k32.ns)


def _pod(k32, name: str) -> dict:
    ns = _pods(k32).get(name, k32.ns)
    pod = k32.api.try_get("Pod", k32.name(name), ns)
    assert pod is not None, f"pod {name!r} does not exist in namespace {ns}"
    return pod


def _pod_identity(k32, name: str) -> tuple[str, str, str]:
    """(ip, namespace, name) of a pod as it is now; the pod must have an IP."""
    pod = _pod(k32, name)
    ip = (pod.get("status") or {}).get("podIP")
    assert ip, f"pod {name!r} has no status.podIP, so it cannot be looked for in Endpoints"
    return ip, pod["metadata"]["namespace"], pod["metadata"]["name"]


def parse_ports(text: str) -> frozenset[tuple[str, int, str]]:
    """``http=8080, dns=53/UDP, 9000`` -> {(name, port, protocol)}."""
    out = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        spec, _, proto = part.partition("/")
        name, sep, number = spec.partition("=")
        if not sep:
            name, number = "", name
        out.add((name.strip(), int(number), (proto or "TCP").strip()))
    return frozenset(out)


def _numbers(ports) -> tuple[int, ...]:
    """The port numbers alone (what the document decides), from parsed or wire-format ports."""
    return tuple(sorted(p[1] if isinstance(p, tuple) else p.get("port") for p in ports))


def _fmt_ports(ports: frozenset) -> str:
    return ", ".join(f"{n + '=' if n else ''}{p}{'' if proto == 'TCP' else '/' + proto}"
                     for n, p, proto in sorted(ports)) or "(none)"


def _names(text: str) -> list[str]:
    return [n.strip() for n in (text or "").split(",") if n.strip()]


# -- Services -------------------------------------------------------------------------------
def _create_service(k32, name: str, ns: str, obj: dict) -> None:
    obj.setdefault("apiVersion", "v1")
    obj["metadata"]["namespace"] = ns
    k32.objects[f"service/{name}"] = k32.api.create(obj)
    _services(k32)[name] = ns


@given(step('the Service "{name}":'))
def service_from_yaml(k32, name, docstring):
    _create_service(k32, name, k32.ns, manifest(docstring, "Service", k32.name(name), k32.ns))


@given(step('the Service "{name}" in namespace "{ns}":'))
def service_from_yaml_in(k32, request, name, ns, docstring):
    where = _namespace(k32, request, ns)
    _create_service(k32, name, where, manifest(docstring, "Service", k32.name(name), where))


@given(step('the Service "{name}" selecting "{selector}"'))
def service_selecting(k32, name, selector):
    """Port 80 named http, to targetPort 8080 (TCP)."""
    _create_service(k32, name, k32.ns, {
        "kind": "Service", "metadata": {"name": k32.name(name)},
        "spec": {"selector": labels(selector),
                 "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}})


@given(step('the Service "{name}" without a selector'))
def service_without_selector(k32, name):
    _create_service(k32, name, k32.ns, {
        "kind": "Service", "metadata": {"name": k32.name(name)},
        "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}})


@when(step('the Service "{name}" changes its selector to "{selector}"'))
def service_selector_changes(k32, name, selector):
    ns = _service_ns(k32, name)
    k32.objects[f"service/{name}"] = k32.api.patch(
        "Service", k32.name(name), {"spec": {"selector": labels(selector)}}, ns)


# -- pods behind Services ---------------------------------------------------------------------
def _container_ports(text: str) -> list[dict]:
    return [{"containerPort": p, "protocol": proto, **({"name": n} if n else {})}
            for n, p, proto in sorted(parse_ports(text), key=lambda t: (t[0], t[1]))]


def _write_pending_with_ip(k32, name: str, ns: str, node: str, ready: bool = False,
                           known: dict | None = None) -> None:
    """What a kubelet reports while the containers start: an IP, phase Pending, not Ready (or, as
    a kubelet might get wrong, Ready True while still Pending)."""
    k32.require("fake-kubelets")
    kubelet = k32.kubelet(node)
    pod = kubelet.set_pod_ready(k32.name(name), ns, ready, known=known)
    pod["status"]["phase"] = "Pending"
    for cs in pod["status"].get("containerStatuses") or []:
        cs["state"] = {"waiting": {"reason": "ContainerCreating"}}
        cs["started"] = False
    k32.api.update(pod, sub="status")


def _bring_to(k32, name: str, ns: str, node: str, state: str, known: dict | None = None) -> None:
    """``known``: the pod as just created (the kubelet's first write goes over it). The node's
    status report is left to the caller (one per node for a whole table)."""
    kubelet = k32.kubelet(node)
    pod_name = k32.name(name)
    if state == "ready":
        kubelet.start_pod(pod_name, ns, known=known, report=False)
    elif state == "not ready":
        kubelet.set_pod_ready(pod_name, ns, False, known=kubelet.start_pod(pod_name, ns, known=known, report=False))
    elif state == "no IP":
        pass
    elif state == "pending with IP":
        _write_pending_with_ip(k32, name, ns, node, known=known)
    elif state == "ready but pending":
        _write_pending_with_ip(k32, name, ns, node, ready=True, known=known)
    elif state in ("succeeded", "failed"):
        kubelet.finish_pod(pod_name, ns, succeeded=state == "succeeded", report=False,
                           known=kubelet.start_pod(pod_name, ns, known=known, report=False))
    else:
        raise ValueError(f"unknown pod state {state!r}; use one of {', '.join(POD_STATES)}")


@given("Service pods:")
def service_pods(k32, request, datatable):
    """| pod | node | labels | container ports | state | [namespace] — created bound to the node,
    then reported by its kubelet: ready | not ready | no IP | pending with IP | ready but pending |
    succeeded | failed."""
    reporting: dict[str, None] = {}
    for row in rows(datatable):
        name, node = row["pod"], row["node"]
        ns = _namespace(k32, request, row.get("namespace") or None)
        container = {"name": "main", "image": DEFAULT_IMAGE}
        ports = _container_ports(row.get("container ports", ""))
        if ports:
            container["ports"] = ports
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": k32.name(name), "namespace": ns, "labels": labels(row.get("labels", ""))},
               "spec": {"nodeName": node, "containers": [container]}}
        k32.objects[name] = k32.api.create(k32.fence(pod))
        _pods(k32)[name] = ns
        _bring_to(k32, name, ns, node, row.get("state") or "ready", known=k32.objects[name])
        if (row.get("state") or "ready") in ("ready", "not ready", "succeeded", "failed"):
            reporting.setdefault(node, None)     # it started a pod
    for node in reporting:            # each kubelet reports its node's figures once, after its pods
        k32.kubelet(node).report_status()


@when(step('the Service pod "{name}" is relabelled "{pod_labels}"'))
def pod_relabelled(k32, name, pod_labels):
    """Replace the pod's labels (a merge patch: the old keys are removed, the given ones set)."""
    pod = _pod(k32, name)
    old = pod["metadata"].get("labels") or {}
    new = labels(pod_labels)
    patch = {"metadata": {"labels": {**{k: None for k in old if k not in new}, **new}}}
    k32.objects[name] = k32.api.patch("Pod", pod["metadata"]["name"], patch, pod["metadata"]["namespace"])


@given(step('the Service pods on node "{node}" are slow to terminate'))
def slow_to_terminate(k32, node):
    """The node's kubelet keeps deleted pods terminating (it does not confirm their deletion)."""
    k32.require("fake-kubelets")
    k32.kubelet(node).hold_terminating = True


@then(step('the Service pod "{name}" is still terminating'))
def still_terminating(k32, name):
    pod = _pod(k32, name)
    assert pod["metadata"].get("deletionTimestamp"), \
        f"pod {name!r} has no deletionTimestamp, so it is not terminating: {pod['metadata']}"


# -- reading Endpoints -------------------------------------------------------------------------
def _endpoints(k32, svc: str) -> dict | None:
    return k32.api.try_get("Endpoints", k32.name(svc), _service_ns(k32, svc))


def _subsets(k32, svc: str) -> list[dict]:
    ep = _endpoints(k32, svc)
    assert ep is not None, f"GET endpoints/{svc} answered 404 NotFound"
    return ep.get("subsets") or []


def _where_listed(subsets: list[dict], ident: tuple[str, str, str]) -> list[str]:
    """Under which keys ("addresses" / "notReadyAddresses") the pod is listed, once per subset."""
    ip, ns, name = ident
    out = []
    for s in subsets:
        for key in ("addresses", "notReadyAddresses"):
            for a in s.get(key) or []:
                ref = a.get("targetRef") or {}
                if a.get("ip") == ip or (ref.get("name"), ref.get("namespace")) == (name, ns):
                    out.append(key)
    return out


def _describe(subsets: list[dict]) -> str:
    parts = []
    for s in subsets:
        ports = _fmt_ports(frozenset((p.get("name") or "", p.get("port"), p.get("protocol") or "TCP")
                                     for p in s.get("ports") or []))
        ready = [a.get("ip") for a in s.get("addresses") or []]
        unready = [a.get("ip") for a in s.get("notReadyAddresses") or []]
        parts.append(f"[ports {ports}: addresses {ready}, notReadyAddresses {unready}]")
    return " ".join(parts) or "no subsets"


@then(parsers.re(r'the Endpoints "(?P<svc>[^"]+)" list pod "(?P<pod>[^"]+)" as (?P<how>ready|not ready)'))
def endpoints_list_pod(k32, svc, pod, how):
    subsets = _subsets(k32, svc)
    where = _where_listed(subsets, _pod_identity(k32, pod))
    want = "addresses" if how == "ready" else "notReadyAddresses"
    assert where and set(where) == {want}, \
        f"pod {pod!r} should be under {want} only; it is under {where or 'nothing'}: {_describe(subsets)}"


@then(step('the Endpoints "{svc}" do not list pod "{pod}"'))
def endpoints_do_not_list(k32, svc, pod):
    p = _pod(k32, pod)
    ident = ((p.get("status") or {}).get("podIP") or "<no ip>", p["metadata"]["namespace"], p["metadata"]["name"])
    subsets = _subsets(k32, svc)
    where = _where_listed(subsets, ident)
    assert not where, f"pod {pod!r} is listed under {where}: {_describe(subsets)}"


@then(step('the Endpoints "{svc}" list no addresses'))
def endpoints_list_nothing(k32, svc):
    """A 404 or an object without any address both conform (EP-SELECTOR-REQUIRED)."""
    ep = _endpoints(k32, svc)
    if ep is None:
        return
    listed = [a for s in ep.get("subsets") or [] for k in ("addresses", "notReadyAddresses")
              for a in s.get(k) or []]
    assert not listed, f"endpoints/{svc} lists {len(listed)} address(es): {_describe(ep.get('subsets') or [])}"


@then(step('the Endpoints "{svc}" have these subsets:'))
def endpoints_subsets(k32, svc, datatable):
    """| ports | addresses | not ready addresses | — pods by name; compared without regard to order.
    The document decides that each pod is listed once, ready or not, with its port numbers; the
    subsets exactly as the table packs them, with port names and protocols, are our reading."""
    def ident(name: str) -> str:
        return _pod_identity(k32, name)[0]
    table = rows(datatable)
    subsets = _subsets(k32, svc)
    want_each = sorted((ident(n), key, _numbers(parse_ports(r["ports"])))
                       for r in table for key, col in (("addresses", "addresses"),
                                                       ("notReadyAddresses", "not ready addresses"))
                       for n in _names(r.get(col, "")))
    got_each = sorted((a.get("ip"), key, _numbers(s.get("ports") or []))
                      for s in subsets for key in ("addresses", "notReadyAddresses") for a in s.get(key) or [])
    assert got_each == want_each, (f"endpoints/{svc} list {got_each}, expected {want_each} (IP, where, port "
                                   f"numbers): {_describe(subsets)}")
    want = sorted(
        (_fmt_ports(parse_ports(r["ports"])), sorted(ident(n) for n in _names(r.get("addresses", ""))),
         sorted(ident(n) for n in _names(r.get("not ready addresses", ""))))
        for r in table)
    got = sorted(
        (_fmt_ports(frozenset((p.get("name") or "", p.get("port"), p.get("protocol") or "TCP")
                              for p in s.get("ports") or [])),
         sorted(a.get("ip") for a in s.get("addresses") or []),
         sorted(a.get("ip") for a in s.get("notReadyAddresses") or []))
        for s in subsets)
    with k32.reference():   # one subset per set of ports, named and with protocols, as upstream packs them
        assert got == want, f"endpoints/{svc} subsets are {got}, expected {want} (ports, ready IPs, not-ready IPs)"


@then(step('the Endpoints "{svc}" address of pod "{pod}" names its IP, node "{node}" and the Pod'))
def endpoints_address_shape(k32, svc, pod, node):
    p = _pod(k32, pod)
    subsets = _subsets(k32, svc)
    ip = (p.get("status") or {}).get("podIP")
    found = [a for s in subsets for k in ("addresses", "notReadyAddresses") for a in s.get(k) or []
             if a.get("ip") == ip]
    assert len(found) == 1, f"expected one address with ip {ip}, found {found}: {_describe(subsets)}"
    addr = found[0]
    want_ref = {"kind": "Pod", "namespace": p["metadata"]["namespace"], "name": p["metadata"]["name"],
                "uid": p["metadata"]["uid"]}
    ref = {k: (addr.get("targetRef") or {}).get(k) for k in want_ref}
    with k32.reference():   # the document names neither field of an address: upstream's EndpointAddress
        assert addr.get("nodeName") == node, f"nodeName is {addr.get('nodeName')!r}, expected {node!r}"
        assert ref == want_ref, f"targetRef is {addr.get('targetRef')}, expected {want_ref}"


# -- reading EndpointSlices ------------------------------------------------------------------
def _slices(k32, svc: str) -> list[dict]:
    selector = f"{constants.LABEL_SERVICE_NAME}={k32.name(svc)}"
    return k32.api.list("EndpointSlice", _service_ns(k32, svc), labels=selector)


def _slice_ports(sl: dict) -> frozenset:
    return frozenset((p.get("name") or "", p.get("port"), p.get("protocol") or "TCP") for p in sl.get("ports") or [])


def _slice_rows(slices: list[dict]) -> list[tuple]:
    """(slice index, ports, ip, ready, serving, terminating) for every endpoint address."""
    out = []
    for i, sl in enumerate(slices):
        for e in sl.get("endpoints") or []:
            cond = e.get("conditions") or {}
            for ip in e.get("addresses") or []:
                out.append((i, _slice_ports(sl), ip, cond.get("ready"), cond.get("serving"), cond.get("terminating")))
    return out


def _describe_slices(slices: list[dict]) -> str:
    return "; ".join(
        f"{sl['metadata'].get('name')} [ports {_fmt_ports(_slice_ports(sl))}: "
        + ", ".join(f"{(e.get('addresses') or ['?'])[0]} {e.get('conditions')}" for e in sl.get("endpoints") or [])
        + "]" for sl in slices) or "no slices"


def _bool(text: str) -> bool | None:
    value = text.strip().lower()
    if value in ("true", "yes"):
        return True
    if value in ("false", "no"):
        return False
    raise ValueError(f"write true or false, got {text!r}")


@then(step('the EndpointSlices of Service "{svc}" hold:'))
def slices_hold(k32, svc, datatable):
    """| ports | pod | ready | serving | terminating | — the document decides that the ready pods are
    endpoints ready and serving on their port numbers, that no other pod is ready, and that only the
    table's pods are listed; every endpoint exactly as the table has it (not-ready pods listed with
    ready and serving false, terminating false, rows with the same ports in one slice) is our reading."""
    slices = _slices(k32, svc)
    got_rows = _slice_rows(slices)
    table = rows(datatable)
    expected = {_pod_identity(k32, r["pod"])[0]: (_bool(r["ready"]), _numbers(parse_ports(r["ports"])))
                for r in table}
    for _, ports, ip, ready, _serving, _term in got_rows:
        assert ip in expected, f"slices of {svc} list {ip}, which is none of the table's pods: {_describe_slices(slices)}"
        want_ready, numbers = expected[ip]
        assert _numbers(ports) == numbers, (f"slices of {svc} list {ip} on ports {_numbers(ports)}, expected "
                                            f"{numbers}: {_describe_slices(slices)}")
        if not want_ready:
            assert ready is not True, f"slices of {svc} list the not-ready pod {ip} as ready: {_describe_slices(slices)}"
    for ip, (want_ready, _) in expected.items():
        if want_ready:
            conds = [(ready, serving) for _, _, addr, ready, serving, _ in got_rows if addr == ip]
            assert conds and all(c == (True, True) for c in conds), \
                f"slices of {svc} should list {ip} as ready and serving; found {conds}: {_describe_slices(slices)}"
    with k32.reference():
        _slices_hold_exactly(k32, svc, slices, got_rows, table)


def _slices_hold_exactly(k32, svc: str, slices: list[dict], got_rows: list[tuple], table: list[dict]) -> None:
    want = sorted((_fmt_ports(parse_ports(r["ports"])), _pod_identity(k32, r["pod"])[0],
                   _bool(r["ready"]), _bool(r["serving"]), _bool(r["terminating"])) for r in table)
    got = sorted((_fmt_ports(ports), ip, ready, serving, term) for _, ports, ip, ready, serving, term in got_rows)
    assert got == want, f"slices of {svc} hold {got}, expected {want}: {_describe_slices(slices)}"
    by_ports: dict[str, set[int]] = {}
    for index, ports, *_ in got_rows:
        by_ports.setdefault(_fmt_ports(ports), set()).add(index)
    split = {p: idx for p, idx in by_ports.items() if len(idx) > 1}
    assert not split, f"endpoints with the same ports are spread over several slices: {_describe_slices(slices)}"
    shared = [i for i in range(len(slices)) if len({_fmt_ports(p) for j, p, *_ in got_rows if j == i}) > 1]
    assert not shared, f"a slice mixes port mappings: {_describe_slices(slices)}"


@then(parsers.re(r'the EndpointSlices of Service "(?P<svc>[^"]+)" list pod "(?P<pod>[^"]+)" as '
                 r'(?P<how>ready|not ready)'))
def slices_list_pod(k32, svc, pod, how):
    """Ready: listed, ready and serving (the document); not ready: not listed as ready (the document),
    listed once with ready and serving false (our reading, as upstream). One endpoint with terminating
    false: our reading too."""
    slices = _slices(k32, svc)
    ip = _pod_identity(k32, pod)[0]
    conds = [(ready, serving, term) for _, _, addr, ready, serving, term in _slice_rows(slices) if addr == ip]
    if how == "ready":
        assert conds and all(c[:2] == (True, True) for c in conds), \
            f"pod {pod!r} ({ip}) should be listed ready and serving; found {conds}: {_describe_slices(slices)}"
    else:
        assert not any(c[0] is True for c in conds), \
            f"pod {pod!r} ({ip}) is not ready, yet listed as ready: {conds}: {_describe_slices(slices)}"
    want = (how == "ready", how == "ready", False)
    with k32.reference():
        assert conds == [want], (f"pod {pod!r} ({ip}) should be one endpoint with ready/serving/terminating "
                                 f"{want}; found {conds}: {_describe_slices(slices)}")


@then(step('the EndpointSlices of Service "{svc}" do not list pod "{pod}"'))
def slices_do_not_list(k32, svc, pod):
    p = _pod(k32, pod)
    ip = (p.get("status") or {}).get("podIP") or "<no ip>"
    ref = (p["metadata"]["namespace"], p["metadata"]["name"])
    slices = _slices(k32, svc)
    hits = [e for sl in slices for e in sl.get("endpoints") or []
            if ip in (e.get("addresses") or [])
            or ((e.get("targetRef") or {}).get("namespace"), (e.get("targetRef") or {}).get("name")) == ref]
    assert not hits, f"pod {pod!r} is listed: {hits}"


@then(step('the EndpointSlices of Service "{svc}" list no endpoints'))
def slices_list_nothing(k32, svc):
    slices = _slices(k32, svc)
    endpoints = [e for sl in slices for e in sl.get("endpoints") or []]
    assert not endpoints, f"slices of {svc} list {len(endpoints)} endpoint(s): {_describe_slices(slices)}"


@then(step('the EndpointSlices of Service "{svc}" have addressType "{address_type}"'))
def slices_address_type(k32, svc, address_type):
    slices = _slices(k32, svc)
    assert slices, f"no EndpointSlice carries the label {constants.LABEL_SERVICE_NAME}={svc}"
    types = [sl.get("addressType") for sl in slices]
    assert set(types) == {address_type}, f"addressType of the slices of {svc}: {types}"


@then(step('the EndpointSlices of Service "{svc}" are labelled with its name'))
def slices_labelled(k32, svc):
    """Every slice listing the Service's pods carries kubernetes.io/service-name=<service>, and the
    slices found by that label are all of them (a list without the selector finds no other slice
    naming the Service's pods)."""
    ns = _service_ns(k32, svc)
    everything = k32.api.list("EndpointSlice", ns)
    labelled = _slices(k32, svc)
    assert labelled, f"no EndpointSlice in {ns} carries the label {constants.LABEL_SERVICE_NAME}={svc}"
    for sl in labelled:
        value = (sl["metadata"].get("labels") or {}).get(constants.LABEL_SERVICE_NAME)
        assert value == k32.name(svc), f"slice {sl['metadata'].get('name')} has service-name label {value!r}"
    names = {sl["metadata"]["name"] for sl in labelled}
    mine_ips = {ip for _, _, ip, *_ in _slice_rows(labelled)}
    strays = [sl["metadata"]["name"] for sl in everything if sl["metadata"]["name"] not in names
              and {ip for _, _, ip, *_ in _slice_rows([sl])} & mine_ips]
    assert not strays, f"slices {strays} list the Service's pods without its service-name label"


# -- writes are refused ----------------------------------------------------------------------
VERBS = "create|update|patch|delete"


def _snapshot_endpoints(k32, svc: str) -> object:
    ep = _endpoints(k32, svc)
    if ep is None:
        return None
    return {"labels": ep["metadata"].get("labels"), "subsets": ep.get("subsets")}


def _snapshot_slices(k32, svc: str) -> object:
    return sorted((sl["metadata"]["name"], repr(sl.get("endpoints")), repr(sl.get("ports")),
                   repr(sl["metadata"].get("labels"))) for sl in _slices(k32, svc))


def _attempt(k32, key: str, fn) -> None:
    try:
        k32.responses[key] = fn()
    except ApiStatusError as exc:
        k32.responses[key] = exc


@when(parsers.re(rf'the Endpoints "(?P<svc>[^"]+)" receive a request to (?P<verb>{VERBS}) them'))
def endpoints_write(k32, svc, verb):
    ns = _service_ns(k32, svc)
    name = k32.name(svc)
    # whether the object exists is the implementation's choice for a Service listing no pod: a write
    # must be refused either way (an update of one that does not exist is a PUT that would create it)
    current = _endpoints(k32, svc) or {"apiVersion": "v1", "kind": "Endpoints",
                                       "metadata": {"name": name, "namespace": ns}}
    k32.notes["ep_write"] = ("Endpoints", svc, verb, _snapshot_endpoints(k32, svc), f"{name}-extra")
    if verb == "create":
        body = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": f"{name}-extra", "namespace": ns},
                "subsets": [{"addresses": [{"ip": "10.99.0.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}]}
        _attempt(k32, "Endpoints write", lambda: k32.api.create(body))
    elif verb == "update":
        body = copy.deepcopy(current)
        body["subsets"] = [{"addresses": [{"ip": "10.99.0.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}]
        _attempt(k32, "Endpoints write", lambda: k32.api.update(body))
    elif verb == "patch":
        _attempt(k32, "Endpoints write", lambda: k32.api.patch(
            "Endpoints", name, {"metadata": {"labels": {"patched": "yes"}}, "subsets": []}, ns))
    else:
        _attempt(k32, "Endpoints write", lambda: k32.api.delete("Endpoints", name, ns))


@when(parsers.re(rf'the EndpointSlices of Service "(?P<svc>[^"]+)" receive a request to (?P<verb>{VERBS}) them'))
def slices_write(k32, svc, verb):
    ns = _service_ns(k32, svc)
    slices = _slices(k32, svc)
    current = slices[0] if slices else {     # none for a Service listing no pod: the write is refused either way
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4", "endpoints": [],
        "metadata": {"name": f"{k32.name(svc)}-slice", "namespace": ns,
                     "labels": {constants.LABEL_SERVICE_NAME: k32.name(svc)}}}
    name = current["metadata"]["name"]
    extra = f"{k32.name(svc)}-extra"
    k32.notes["ep_write"] = ("EndpointSlices", svc, verb, _snapshot_slices(k32, svc), extra)
    if verb == "create":
        body = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": extra, "namespace": ns,
                             "labels": {constants.LABEL_SERVICE_NAME: k32.name(svc)}},
                "addressType": "IPv4", "endpoints": [{"addresses": ["10.99.0.1"]}], "ports": []}
        _attempt(k32, "EndpointSlices write", lambda: k32.api.create(body))
    elif verb == "update":
        body = copy.deepcopy(current)
        body["endpoints"] = [{"addresses": ["10.99.0.1"], "conditions": {"ready": True}}]
        _attempt(k32, "EndpointSlices write", lambda: k32.api.update(body))
    elif verb == "patch":
        _attempt(k32, "EndpointSlices write", lambda: k32.api.patch(
            "EndpointSlice", name, {"metadata": {"labels": {"patched": "yes"}}, "endpoints": []}, ns))
    else:
        _attempt(k32, "EndpointSlices write", lambda: k32.api.delete("EndpointSlice", name, ns))


@then(parsers.re(r'the (?P<what>Endpoints|EndpointSlices) write is refused with code (?P<code>\d+) and reason '
                 r'"(?P<reason>[^"]+)"'))
def write_refused(k32, what, code, reason):
    answer = k32.responses.get(f"{what} write")
    assert answer is not None, f"no {what} write was tried in this scenario"
    assert isinstance(answer, ApiStatusError), f"the {what} write was accepted: {str(answer)[:300]}"
    assert 400 <= answer.code < 500, f"the {what} write answered {answer.code} {answer.reason!r}, not a refusal"
    with k32.reference():   # the document says read-only; which refusal (405 MethodNotAllowed) is our reading
        assert (answer.code, answer.reason) == (int(code), reason), \
            f"the {what} write answered {answer.code} {answer.reason!r} ({answer.status.get('message')!r}), " \
            f"expected {code} {reason!r}"


@then(parsers.re(r'the (?P<what>Endpoints|EndpointSlices) of Service "(?P<svc>[^"]+)" are unchanged'))
def unchanged(k32, what, svc):
    kind, noted_svc, verb, before, extra = k32.notes["ep_write"]
    assert (kind, noted_svc) == (what, svc), f"the last write was to the {kind} of {noted_svc}, not {what} of {svc}"
    ns = _service_ns(k32, svc)
    now = _snapshot_endpoints(k32, svc) if what == "Endpoints" else _snapshot_slices(k32, svc)
    assert now == before, f"after the refused {verb}, the {what} of {svc} changed from {before} to {now}"
    stray = k32.api.try_get("Endpoints" if what == "Endpoints" else "EndpointSlice", extra, ns)
    assert stray is None, f"the refused create left an object {extra!r} behind: {stray}"
