"""Endpoints and EndpointSlices: Services with random selectors and ports (numbers and named
targetPorts), pods behind them in every state a kubelet reports (ready, not ready, no IP, Pending
with an IP, finished, terminating), in the Service's namespace or another, relabelled, restarted,
deleted; Service selector changes; writes to the computed views.

Compared after every step, for every Service: which pods its Endpoints and EndpointSlices list,
ready or not, on which port numbers -- by pod name, through the suite's own Then steps, whose
document-level part judges exactly that (port names, packing, not-ready entries in slices and
the other free choices are their reference-level part). The views are a function of the Service
and its pods, so a Service is compared only while every pod looks the same on both sides (a pod
whose state differs is another area's concern), and not while one of its named targetPorts is
missing from a selected pod (what then is the implementation's reading)."""

from __future__ import annotations

import dataclasses

import yaml
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, rule

from kube32.conformance.errors import ApiStatusError
from kube32.conformance.explore import fleet
from kube32.conformance.explore.areas import Area
from kube32.conformance.explore.case import Check
from kube32.conformance.explore.gherkin import Step, table
from kube32.conformance.explore.snapshot import Snapshot, phase, terminating
from kube32.conformance.steps._util import labels as parse_labels
from kube32.conformance.steps.endpoints import OTHER_NS_SUFFIX, POD_STATES, _fmt_ports
from kube32.spec import constants

MAX_NODES = 2
MAX_SERVICES = 2
MAX_PODS = 8
# labels drawn so that most pods are selected by most Services: the pods a selector must leave out
# differ from selected ones by one key or one value
SELECTORS = ("app=web", "app=web", "app=web", "app=web,tier=x", "tier=x")
POD_LABELS = ("app=web", "app=web", "app=web,tier=x", "app=web,tier=x", "app=db", "tier=x", "app=web,tier=y", "")
CONTAINER_PORTS = ("http=8080", "http=8080", "http=8081", "http=8080, metrics=9100", "http=8081, metrics=9100",
                   "metrics=9100", "8080", "")
STATES = ("ready", "ready", "ready", *POD_STATES)
NO_IP = "(an address without an IP)"
SERVICE_PORTS = ({"name": "web", "port": 80, "targetPort": "http"},
                 {"name": "metrics", "port": 9100, "targetPort": "metrics"},
                 {"name": "plain", "port": 81, "targetPort": 8080})
VERBS = ("create", "update", "patch", "delete")


@dataclasses.dataclass
class ServiceNote:
    selector: dict | None
    named: tuple[str, ...]     # the named targetPorts


@dataclasses.dataclass
class Notes:
    services: dict[str, ServiceNote] = dataclasses.field(default_factory=dict)
    pods: dict[str, str | None] = dataclasses.field(default_factory=dict)    # pod -> namespace alias
    shown: dict[tuple, list] = dataclasses.field(default_factory=dict)     # (view, service) -> last agreed


def notes(case) -> Notes:
    return case.notes.setdefault("endpoints", Notes())


def _kubelet_nodes(case) -> list[str]:
    return sorted(n for n, note in fleet.notes(case).nodes.items() if note.status)


@st.composite
def service_spec(draw) -> dict:
    """How a Service is written: the short step, a manifest, or no selector at all."""
    form = draw(st.sampled_from(("selecting", "selecting", "manifest", "manifest", "without")))
    selector = draw(st.sampled_from(SELECTORS))
    ports = draw(st.lists(st.sampled_from(SERVICE_PORTS), min_size=1, max_size=2, unique_by=lambda p: p["name"]))
    empty = draw(st.integers(0, 5)) == 0
    return {"form": form, "selector": {} if empty else parse_labels(selector), "ports": ports}


@st.composite
def pod_row(draw) -> dict:
    return {"labels": draw(st.sampled_from(POD_LABELS)), "ports": draw(st.sampled_from(CONTAINER_PORTS)),
            "state": draw(st.sampled_from(STATES)), "other": draw(st.integers(0, 7)) == 0,
            "node": draw(st.integers(0, 4))}


class EndpointsRules:
    services = Bundle("services")
    service_pods = Bundle("service_pods")

    @rule()
    def register_node(self):
        """A node for the pods (its figures do not matter here: pods are created on it)."""
        nodes = fleet.notes(self.case)
        if len(nodes.nodes) < MAX_NODES:
            name = nodes.next_node()
            self.apply(Step("Given", "these Ready nodes:", table(["name", "memory"], [[name, "200Ki"]])),
                       "EP-READY-ADDRESSES", {"nodes": [name]})

    @rule(target=services, spec=service_spec())
    def create_service(self, spec):
        ep = notes(self.case)
        if len(ep.services) >= MAX_SERVICES:
            return multiple()
        name = f"s{len(ep.services) + 1}"
        if spec["form"] == "without":
            step, note = Step("Given", f'the Service "{name}" without a selector'), ServiceNote(None, ())
        elif spec["form"] == "selecting" and spec["selector"]:
            text = ",".join(f"{k}={v}" for k, v in spec["selector"].items())
            step, note = Step("Given", f'the Service "{name}" selecting "{text}"'), ServiceNote(spec["selector"], ())
        else:
            body = {"spec": {"selector": spec["selector"], "ports": spec["ports"]}}
            step = Step("Given", f'the Service "{name}":', docstring=yaml.safe_dump(body, sort_keys=False))
            note = ServiceNote(spec["selector"], tuple(p["targetPort"] for p in spec["ports"]
                                                       if isinstance(p["targetPort"], str)))
        if not self.apply(step, "EP-SELECTS-BY-LABELS", {"service": name, "note": note}):
            return multiple()
        return name

    @rule(target=service_pods, rows=st.lists(pod_row(), min_size=1, max_size=3))
    def add_pods(self, rows):
        ep, nodes = notes(self.case), _kubelet_nodes(self.case)
        rows = rows[:MAX_PODS - len(ep.pods)]
        if not nodes or not rows:
            return multiple()
        names = [f"e{len(ep.pods) + i + 1}" for i in range(len(rows))]
        other = any(r["other"] for r in rows)
        header = ["pod", "node", "labels", "container ports", "state", *(["namespace"] if other else [])]
        body = [[name, nodes[r["node"] % len(nodes)], r["labels"], r["ports"], r["state"],
                 *(["other" if r["other"] else ""] if other else [])] for name, r in zip(names, rows, strict=True)]
        pods = {name: "other" if r["other"] else None for name, r in zip(names, rows, strict=True)}
        if not self.apply(Step("Given", "Service pods:", table(header, body)), "EP-READY-ADDRESSES",
                          {"service_pods": pods}):
            return multiple()
        return multiple(*names)

    @rule(service=services, selector=st.sampled_from(SELECTORS))
    def change_selector(self, service, selector):
        note = notes(self.case).services[service]
        if note.selector is not None:
            self.apply(Step("When", f'the Service "{service}" changes its selector to "{selector}"'),
                       "EP-COMPUTED-ON-READ", {"selector": (service, parse_labels(selector))})

    @rule(pod=service_pods, pod_labels=st.sampled_from(POD_LABELS))
    def relabel(self, pod, pod_labels):
        self.apply(Step("When", f'the Service pod "{pod}" is relabelled "{pod_labels}"'), "EP-COMPUTED-ON-READ")

    @rule(pod=service_pods, what=st.sampled_from(("start", "ready", "not ready", "restart", "succeed", "fail",
                                                  "delete", "delete slowly")))
    def pod_changes(self, pod, what):
        if notes(self.case).pods.get(pod) is not None:
            return                       # the pod steps act in the scenario's namespace only
        got = Snapshot(self.case.oracle).pod(pod)
        if got is None or terminating(got):
            return
        node = (got.get("spec") or {}).get("nodeName")
        steps = {"start": Step("When", f'the kubelet on node "{node}" starts pod "{pod}"'),
                 "ready": Step("When", f'pod "{pod}" becomes ready'),
                 "not ready": Step("When", f'pod "{pod}" becomes not ready'),
                 "restart": Step("When", f'the container of pod "{pod}" restarts'),
                 "succeed": Step("When", f'pod "{pod}" succeeds'), "fail": Step("When", f'pod "{pod}" fails'),
                 "delete": Step("When", f'I delete pod "{pod}"'), "delete slowly": Step("When", f'I delete pod "{pod}"')}
        if what == "start" and phase(got) != "Pending":
            return
        if what == "delete slowly":
            self.apply(Step("Given", f'the Service pods on node "{node}" are slow to terminate'),
                       "EP-EXCLUDES-TERMINATING")
        self.apply(steps[what], "EP-COMPUTED-ON-READ")

    @rule(service=services, kind=st.sampled_from(("Endpoints", "EndpointSlices")), verb=st.sampled_from(VERBS))
    def write_view(self, service, kind, verb):
        text = (f'the Endpoints "{service}" receive a request to {verb} them' if kind == "Endpoints"
                else f'the EndpointSlices of Service "{service}" receive a request to {verb} them')
        self.apply(Step("When", text), "EP-READ-ONLY", {"write": (kind, service)})


class Endpoints(Area):
    NAME = "endpoints"
    TIME_FREE = True
    Rules = EndpointsRules

    def simpler(self, rec) -> list:
        """A Service pods table with one row fewer."""
        if rec.step.text != "Service pods:":
            return []
        header, *rows = rec.step.table
        return [dataclasses.replace(rec, step=dataclasses.replace(rec.step, table=(header, *rows[:i], *rows[i + 1:])),
                                    intent={"service_pods": {r[0]: rec.intent["service_pods"][r[0]]
                                                             for r in rows[:i] + rows[i + 1:]}})
                for i in range(len(rows))] if len(rows) > 1 else []

    def after(self, case, intent, before) -> list[Check]:
        ep = notes(case)
        if "service" in intent:
            ep.services[intent["service"]] = intent["note"]
        if "service_pods" in intent:
            ep.pods.update(intent["service_pods"])
        if "selector" in intent:
            name, selector = intent["selector"]
            ep.services[name] = dataclasses.replace(ep.services[name], selector=selector)
        if not ep.services:
            return []
        mine, theirs = View(case.oracle, ep), View(case.target, ep)
        if mine.inputs() != theirs.inputs():
            case.diverge("endpoint-inputs", "a pod looks different on the two sides (another area's concern)")
            return []
        checks = self._write_checks(case, intent["write"]) if "write" in intent else []
        for service, note in ep.services.items():
            if any(mine.lacks(pod, note.named) for pod in mine.selected(note.selector)):
                continue           # a pod without a named targetPort: the document leaves it open
            case.stats.compared += 2
            for view, check in (("endpoints", self._endpoints_check), ("slices", self._slices_check)):
                ours, their = getattr(mine, view)(service), getattr(theirs, view)(service)
                if ours == their:
                    ep.shown[(view, service)] = ours
                else:        # the target still shows what both showed before the oracle's view moved
                    checks.append(check(service, mine, theirs, stale=ep.shown.get((view, service)) == their))
        return checks

    @staticmethod
    def _write_checks(case, write) -> list[Check]:
        kind, service = write
        answer = case.oracle.ctx.responses.get(f"{kind} write")
        if not isinstance(answer, ApiStatusError):
            return []
        return [Check("EP-READ-ONLY", Step("Then", f'the {kind} write is refused with code {answer.code} and reason '
                                                   f'"{answer.reason}"')),
                Check("EP-READ-ONLY", Step("Then", f'the {kind} of Service "{service}" are unchanged'))]

    @staticmethod
    def _endpoints_check(service, mine: View, theirs: View, stale: bool) -> Check:
        listed = mine.endpoints(service)
        what = f"the reference lists {sorted(listed)}, the target {sorted(theirs.endpoints(service))}"
        clause = "EP-COMPUTED-ON-READ" if stale else diagnose(set(listed), set(theirs.endpoints(service)), mine, service)
        if not listed:
            return Check(clause, Step("Then", f'the Endpoints "{service}" list no addresses'), what)
        rows = [[ports, ", ".join(ready), ", ".join(unready)] for ports, ready, unready in mine.subsets(service)]
        return Check(clause, Step("Then", f'the Endpoints "{service}" have these subsets:',
                                  table(["ports", "addresses", "not ready addresses"], rows)), what)

    @staticmethod
    def _slices_check(service, mine: View, theirs: View, stale: bool) -> Check:
        listed = mine.slices(service)
        what = f"the reference's slices hold {sorted(listed)}, the target's {sorted(theirs.slices(service))}"
        clause = "EP-COMPUTED-ON-READ" if stale else diagnose({(p, "addresses" if r else "notReadyAddresses", n) for p, r, _s, n in listed},
                          {(p, "addresses" if r else "notReadyAddresses", n) for p, r, _s, n in theirs.slices(service)},
                          mine, service)
        if not listed:
            return Check(clause, Step("Then", f'the EndpointSlices of Service "{service}" list no endpoints'), what)
        return Check(clause, Step("Then", f'the EndpointSlices of Service "{service}" hold:',
                                  table(["ports", "pod", "ready", "serving", "terminating"], mine.slice_rows(service))),
                     what)


def diagnose(mine: set, theirs: set, view: View, service: str) -> str:
    """The clause a difference in listed (pod, where, port numbers) speaks of."""
    note = view.notes.services[service]
    for pod, where, numbers in sorted(theirs - mine):
        state = view.pods.get(pod)
        if pod == NO_IP:
            return "EP-REQUIRES-POD-IP"
        if state is None:
            return "EP-COMPUTED-ON-READ"
        if note.selector is None or not note.selector:
            return "EP-SELECTOR-REQUIRED"
        if state.alias is not None:
            return "EP-SAME-NAMESPACE"
        if not state.ip:
            return "EP-REQUIRES-POD-IP"
        if state.terminating:
            return "EP-EXCLUDES-TERMINATING"
        if not view.matches(note.selector, state.labels):
            return "EP-SELECTS-BY-LABELS"
        same = {(w, n) for p, w, n in mine if p == pod}
        if same and all(w == where for w, _ in same):      # listed alike, on other port numbers
            others = {n for p, _w, n in mine if p != pod}
            return "EP-NAMED-PORT-SUBSETS" if numbers in others or not note.named else "EP-NAMED-PORT-RESOLUTION"
        return "EP-READY-ADDRESSES" if where == "addresses" else "EP-NOT-READY-ADDRESSES"
    for _pod, where, _numbers in sorted(mine - theirs):
        return "EP-READY-ADDRESSES" if where == "addresses" else "EP-NOT-READY-ADDRESSES"
    return "EP-COMPUTED-ON-READ"


@dataclasses.dataclass(frozen=True)
class PodState:
    """What the views are computed from, as a client reads it."""
    alias: str | None
    labels: tuple
    ip: bool
    phase: str
    ready: str | None
    terminating: bool
    ports: tuple


class View:
    """One side's pods and computed views, by pod name."""

    def __init__(self, side, ep: Notes) -> None:
        self.side, self.notes = side, ep
        ctx = side.ctx
        self.pods: dict[str, PodState] = {}
        self._ips: dict[str, str] = {}
        for alias, ns in ((None, ctx.ns), ("other", ctx.ns + OTHER_NS_SUFFIX)):
            for pod in self._list("Pod", ns):
                name = pod["metadata"]["name"]
                if name not in ep.pods:
                    continue
                status = pod.get("status") or {}
                ready = next((c.get("status") for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
                ports = tuple(sorted((p.get("name") or "", p.get("containerPort"))
                                     for c in pod["spec"].get("containers") or [] for p in c.get("ports") or []))
                self.pods[name] = PodState(alias, tuple(sorted((pod["metadata"].get("labels") or {}).items())),
                                           bool(status.get("podIP")), phase(pod), ready, terminating(pod), ports)
                if status.get("podIP"):
                    self._ips[status["podIP"]] = name
        self._cache: dict = {}

    def _list(self, kind: str, ns: str, **kw) -> list[dict]:
        try:
            return self.side.ctx.api.list(kind, ns, **kw)
        except ApiStatusError as exc:
            if exc.code == 404:
                return []
            raise

    def inputs(self) -> dict[str, PodState]:
        return self.pods

    @staticmethod
    def matches(selector: dict, pod_labels: tuple) -> bool:
        have = dict(pod_labels)
        return all(have.get(k) == v for k, v in selector.items())

    def selected(self, selector: dict | None) -> list[str]:
        """The pods a Service of this selector may list (in its namespace, by labels): where a named
        port must be looked for."""
        if not selector:
            return []
        return [n for n, s in self.pods.items() if s.alias is None and self.matches(selector, s.labels)]

    def lacks(self, pod: str, named: tuple[str, ...]) -> bool:
        have = {name for name, _ in self.pods[pod].ports}
        return any(n not in have for n in named)

    def _name(self, ip: str | None) -> str:
        return self._ips.get(ip, f"?{ip}") if ip else NO_IP

    def _endpoints_object(self, service: str) -> dict | None:
        key = ("ep", service)
        if key not in self._cache:
            ctx = self.side.ctx
            self._cache[key] = ctx.api.try_get("Endpoints", ctx.name(service), ctx.ns)
        return self._cache[key]

    def endpoints(self, service: str) -> list[tuple]:
        """[(pod, addresses | notReadyAddresses, port numbers)], sorted (a pod listed twice shows twice)."""
        out = []
        for subset in (self._endpoints_object(service) or {}).get("subsets") or []:
            numbers = tuple(sorted(p.get("port") for p in subset.get("ports") or []))
            for key in ("addresses", "notReadyAddresses"):
                out += [(self._name(a.get("ip")), key, numbers) for a in subset.get(key) or []]
        return sorted(out)

    def subsets(self, service: str) -> list[tuple[str, list[str], list[str]]]:
        out = []
        for subset in (self._endpoints_object(service) or {}).get("subsets") or []:
            out.append((_ports_text(subset.get("ports") or []),
                        sorted(self._name(a.get("ip")) for a in subset.get("addresses") or []),
                        sorted(self._name(a.get("ip")) for a in subset.get("notReadyAddresses") or [])))
        return out

    def _slice_objects(self, service: str) -> list[dict]:
        key = ("slices", service)
        if key not in self._cache:
            ctx = self.side.ctx
            self._cache[key] = self._list("EndpointSlice", ctx.ns,
                                          labels=f"{constants.LABEL_SERVICE_NAME}={ctx.name(service)}")
        return self._cache[key]

    def slices(self, service: str) -> list[tuple]:
        """[(pod, ready and serving, serving, port numbers)], sorted."""
        out = []
        for sl in self._slice_objects(service):
            numbers = tuple(sorted(p.get("port") for p in sl.get("ports") or []))
            for e in sl.get("endpoints") or []:
                cond = e.get("conditions") or {}
                for ip in e.get("addresses") or []:
                    out.append((self._name(ip), cond.get("ready") is True and cond.get("serving") is True,
                                cond.get("serving"), numbers))
        return sorted(out)

    def slice_rows(self, service: str) -> list[list[str]]:
        rows = []
        for sl in self._slice_objects(service):
            ports = _ports_text(sl.get("ports") or [])
            for e in sl.get("endpoints") or []:
                cond = e.get("conditions") or {}
                for ip in e.get("addresses") or []:
                    rows.append([ports, self._name(ip), *(str(bool(cond.get(k))).lower()
                                                         for k in ("ready", "serving", "terminating"))])
        return sorted(rows, key=lambda r: r[1])


def _ports_text(ports: list[dict]) -> str:
    """Ports as the steps' tables write them."""
    return _fmt_ports(frozenset((p.get("name") or "", p.get("port"), p.get("protocol") or "TCP") for p in ports))


AREA = Endpoints()
