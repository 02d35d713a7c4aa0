"""Scheduling and accounting: pods with random requests, limits, selectors and node names, and
what the kubelets then report about them. Compared: where each pod is bound (at its create and
on the reconcile retries), the create response, PodScheduled, the FailedScheduling event by its
documented counts and the pod's listed row, that a pod created on a node never gets a
FailedScheduling event -- each only where every reasonable reading of the document gives the same
answer (readings.py). Some rules set a moment up on purpose: nodes written alike (the tie-break
alone decides), a named pod that does not fit, a pod waiting for room another pod frees, followed
for one reconcile interval (also under --reconcile-interval)."""

from __future__ import annotations

import dataclasses

import yaml
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, precondition, rule

from kube32.conformance.explore import diagnosis, fleet, readings, values
from kube32.conformance.explore.areas import Area
from kube32.conformance.explore.case import Check
from kube32.conformance.explore.gherkin import Step, resources_table, table
from kube32.conformance.explore.machine import seconds_text
from kube32.conformance.explore.snapshot import Snapshot, condition, node_name, phase, terminating
from kube32.conformance.steps import _fit
from kube32.conformance.steps.scheduler import _pod_row
from kube32.spec import constants

FAMILY = "placement"
COUNTED = (constants.MEMORY, *constants.PSRAM_RESOURCES, *constants.PERIPHERAL_RESOURCES)


@dataclasses.dataclass
class Expectation:
    decision: readings.Decision | None     # None: the document leaves the placement open
    settled: bool = True                   # nothing since could have moved the pod


@st.composite
def pod_resources(draw) -> dict[str, str]:
    """What one container declares (every documented resource name, named buses, ignored claims)."""
    out: dict[str, str] = {}
    if draw(st.integers(0, 3)):
        out[constants.MEMORY] = draw(values.quantity(draw(values.memory_units(0, 128 * values.KI))))
    if not draw(st.integers(0, 2)):
        name = draw(st.sampled_from(constants.PSRAM_RESOURCES))
        out[name] = draw(values.quantity(draw(values.memory_units(0, 48 * values.KI))))
    if draw(st.booleans()):
        out[constants.GPIO] = draw(values.quantity(draw(st.integers(0, 6)), binary=False))
    for name in draw(st.lists(st.sampled_from(values.PERIPHERALS), max_size=2, unique=True)):
        out[name] = draw(values.quantity(draw(st.integers(0, 2)), binary=False, unknown=False))
    for name in draw(st.lists(st.sampled_from(values.NAMED_BUSES), max_size=2, unique=True)):
        out[name] = "1"
    extra = draw(st.sampled_from((None, None, None, "hardware.kube32.io/camera", "esp32.io/gpio-4")))
    if extra:
        out[extra] = draw(st.sampled_from(("1", "100Ki")))
    return out


@st.composite
def pod_shape(draw) -> dict:
    """How the pod is written: which step, requests or limits, a selector, ignored scheduling hints."""
    return {"form": draw(st.sampled_from(("requesting", "requesting", "limited", "with"))),
            "resources": draw(pod_resources()),
            "selector": draw(st.one_of(st.just({}), values.labels())),
            "hints": draw(st.lists(st.sampled_from(("toleration", "affinity", "topology")), max_size=2, unique=True))}


def normalized(shape: dict, node: str | None) -> dict:
    """The form the steps can write: no resources or extra fields need a manifest; a pod created
    on a node is written with requests."""
    form = shape["form"]
    if not shape["resources"]:
        form = "with"
    elif node and form == "limited":
        form = "requesting"
    return {**shape, "form": form}


def manifest(name: str, shape: dict, node: str | None = None) -> dict:
    res = shape["resources"]
    container: dict = {"name": "main", "image": "kube32/app:1"}
    if shape["form"] == "limited":
        container["resources"] = {"limits": dict(res)}
    elif shape["form"] == "with":
        keys = sorted(res)
        split = {"requests": {k: res[k] for k in keys[::2]}, "limits": {k: res[k] for k in keys[1::2]}}
        if any(split.values()):
            container["resources"] = {k: v for k, v in split.items() if v}
    else:
        container["resources"] = {"requests": dict(res)}
    spec: dict = {"containers": [container]}
    if node:
        spec["nodeName"] = node
    if shape["form"] == "with":
        if shape["selector"]:
            spec["nodeSelector"] = dict(shape["selector"])
        if "toleration" in shape["hints"]:
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
        if "affinity" in shape["hints"]:
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z9"]}]}]}}}
        if "topology" in shape["hints"]:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable":
                                                  "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "x"}}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def create_step(name: str, shape: dict, node: str | None) -> Step:
    """The step that creates exactly ``manifest(name, shape, node)`` (shape normalized)."""
    if shape["form"] == "with":
        body = manifest(name, shape, node)
        return Step("When", f'I create a pod "{name}" with:',
                    docstring=yaml.safe_dump({"spec": body["spec"]}, sort_keys=False))
    if node:
        return Step("When", f'I create a pod "{name}" on node "{node}" requesting:', resources_table(shape["resources"]))
    verb = "limited to" if shape["form"] == "limited" else "requesting"
    return Step("When", f'I create a pod "{name}" {verb}:', resources_table(shape["resources"]))


def expectations(case) -> dict[str, Expectation]:
    return case.notes.setdefault(FAMILY, {})


def _shape_of(case, pod: str) -> dict | None:
    note = fleet.notes(case).pods.get(pod)
    return note.shape if note is not None else None


class SchedulerRules(fleet.FleetRules):
    pods = Bundle("pods")

    @rule(target=pods, shape=pod_shape(), named=st.integers(0, 4))
    def create_pod(self, shape, named):
        notes = fleet.notes(self.case)
        node = None
        if named == 0 and notes.nodes:
            node = sorted(notes.nodes)[len(notes.pods) % len(notes.nodes)]
        return self._create(normalized(shape, node), node)

    @rule(target=pods, like=pods)
    def create_pod_like(self, like):
        """Another pod of an earlier one's shape: two pods after the same few units of a resource,
        where accounting decides whether the second still fits (a Pending one's requests count)."""
        shape = _shape_of(self.case, like)
        return multiple() if shape is None else self._create(normalized(shape, None), None)

    @rule(target=pods, like=pods, pick=st.integers(0, 7))
    def create_pod_after_one_resource(self, like, pick):
        """A pod asking only for one of an earlier pod's resources, as much: whether it still fits
        beside that pod turns on that resource's accounting alone (the others cannot refuse it)."""
        shape = _shape_of(self.case, like)
        if shape is None or not shape["resources"]:
            return multiple()
        names = sorted(shape["resources"])
        name = names[pick % len(names)]
        one = {**shape, "resources": {name: shape["resources"][name]}, "selector": {}, "hints": []}
        return self._create(normalized(one, None), None)

    @rule(target=pods, pick=st.integers(0, 15))
    def create_pod_taking_all_of_one_resource(self, pick):
        """A pod asking for all of one resource a Ready node has (its only request): bound, it stays
        Pending until its kubelet starts it, and a second pod after the same resource (another rule:
        one "like" it) fits only where the first one is not counted."""
        figure = self._figure(pick)
        if figure is None:
            return multiple()
        return self._create({"form": "requesting", "resources": dict([figure]), "selector": {}, "hints": []}, None)

    @rule(target=pods, hints=st.lists(st.sampled_from(("toleration", "affinity", "topology")), min_size=1,
                                      max_size=3, unique=True))
    def create_pod_with_ignored_hints(self, hints):
        """A small pod whose only other say in its placement is what the scheduler ignores (a
        toleration, required node affinity, a topology spread constraint): it binds as a plain pod
        would."""
        return self._create({"form": "with", "resources": {constants.MEMORY: "1Ki"}, "selector": {}, "hints": hints},
                            None)

    @rule(target=pods, pick=st.integers(0, 15), spelling=st.integers(0, 7), over=st.booleans())
    def create_pod_at_the_edge_of_one_resource(self, pick, spelling, over):
        """A pod asking for exactly what a node has of one resource written another way (``12Ki``
        as ``12288``, ``12.288k`` or ``12288000m``), or half a byte more: whether it fits there
        turns on reading the suffixes and the fraction exactly."""
        figure = self._figure(pick, counted=(constants.MEMORY, *constants.PSRAM_RESOURCES))
        if figure is None:
            return multiple()
        name, text = figure
        units = fleet._bytes(text)
        if units != int(units) or units <= 0:
            return multiple()
        ways = [w for w in values.spellings(int(units)) if w != text]
        asked = f"{int(units)}.5" if over else ways[spelling % len(ways)]
        return self._create({"form": "requesting", "resources": {name: asked}, "selector": {}, "hints": []}, None)

    @rule(target=pods, pick=st.integers(0, 15),
          then=st.sampled_from(("pending", "pending", "started", "restarted", "labelled")))
    def occupy_then_ask(self, pick, then):
        """A pod taking all of one resource of a node, left Pending or started (then its container
        restarting, or the pod written after the node's last report), then a second pod after the
        same amount: whether it fits there turns on whether the first one counts (a Pending pod, one
        waiting to restart and one written after the node's report count; a running one does not)."""
        first = self.create_pod_taking_all_of_one_resource(pick)
        got = Snapshot(self.case.oracle).pod(first) if isinstance(first, str) else None
        node = node_name(got)
        if got is None:
            return multiple()
        if then != "pending":
            if node is None or not fleet.notes(self.case).nodes.get(node, fleet.NodeNote("")).status:
                return multiple()
            self.apply(Step("When", f'the kubelet on node "{node}" starts pod "{first}"'),
                       "SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED")
            if then == "restarted":
                self.apply(Step("When", f'the container of pod "{first}" restarts'),
                           "SCHED-ACCOUNT-WAITING-RESTART-SUBTRACTED")
            elif then == "labelled":
                self.apply(Step("When", f'I label pod "{first}" with "release=b"'), "SCHED-ACCOUNT-MODIFIED-AFTER-STATUS")
        return self.create_pod_after_one_resource(first, 0)

    @rule(target=pods, pick=st.integers(0, 15))
    def create_named_pod_that_does_not_fit(self, pick):
        """A pod created on a node with more of one resource than the node has: the scheduler never
        looks at it -- it stays where it was written, without a FailedScheduling event, also over
        the reconcile retries that follow."""
        figure = self._node_figure(pick)
        if figure is None:
            return multiple()
        node, name, text = figure
        shape = {"form": "requesting", "resources": {name: str(2 * int(fleet._bytes(text)) + 1)}, "selector": {},
                 "hints": []}
        created = self._create(shape, node)
        if isinstance(created, str) and self.case.manual:
            self._wait(2, "SCHED-NODENAME-SKIPS-SCHEDULER")
        return created

    @rule(target=fleet.FleetRules.nodes, figures=fleet.node_figures(), count=st.integers(2, 3))
    def register_twin_nodes(self, figures, count):
        """Nodes written alike (the same figures, no labels): a pod that fits them scores the same
        on each, and the tie-break alone picks among them."""
        known = fleet.notes(self.case)
        count = min(count, fleet.MAX_NODES - len(known.nodes))
        if count < 2:
            return multiple()
        names = [known.next_node(i) for i in range(count)]
        columns = figures[1]
        body = [[name, *columns.values()] for name in names]
        if not self.apply(Step("Given", "these Ready nodes:", table(["name", *columns], body)), "SCHED-TIE-BREAK",
                          {"nodes": names}):
            return multiple()
        return multiple(*names)

    @precondition(lambda self: self.case.manual and not self.case.trace)
    @rule()
    def reconcile_interval_flag(self):
        """The simulator's --reconcile-interval set another way (the retries below follow it)."""
        self.apply(Step("Given", "the control plane runs with a reconcile interval other than the default"),
                   "SCHED-RECONCILE-RETRY", {})

    @precondition(lambda self: self.case.manual)
    @rule(pick=st.integers(0, 15), intervals=st.sampled_from((1, 1, 2)))
    def wait_for_room(self, pick, intervals):
        """A pod waiting for what another, Pending, pod holds; the kubelet starts the other one (its
        node's report then no longer counts it), then just over one reconcile interval (or two)
        passes: a retry comes within each interval, and the waiting pod is bound by then."""
        first = self.create_pod_taking_all_of_one_resource(pick)
        got = Snapshot(self.case.oracle).pod(first) if isinstance(first, str) else None
        node = node_name(got)
        if node is None or not fleet.notes(self.case).nodes.get(node, fleet.NodeNote("")).status:
            return
        second = self.create_pod_after_one_resource(first, 0)
        waiting = Snapshot(self.case.oracle).pod(second) if isinstance(second, str) else None
        if waiting is None or node_name(waiting) is not None:
            return
        if self.apply(Step("When", f'the kubelet on node "{node}" starts pod "{first}"'),
                      "SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED"):
            self._wait(intervals, "SCHED-RECONCILE-RETRY")

    def _wait(self, intervals: int, clause: str) -> None:
        """Just past ``intervals`` reconcile intervals (a retry due exactly at the end is not awaited)."""
        seconds = intervals * self.case.oracle.ctx.profile.reconcile_interval + 0.01
        self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), clause, {"time": float(seconds_text(seconds))})

    def _figure(self, pick: int, counted: tuple = COUNTED) -> tuple[str, str] | None:
        """One (resource, figure) a node has of a resource in ``counted``, not zero."""
        found = self._node_figure(pick, counted)
        return None if found is None else found[1:]

    def _node_figure(self, pick: int, counted: tuple = COUNTED) -> tuple[str, str, str] | None:
        """One (node, resource, figure): what a node has of a resource in ``counted``, not zero."""
        taken, fleet_nodes = [], fleet.notes(self.case).nodes
        for node in Snapshot(self.case.oracle).nodes():
            if node["metadata"]["name"] not in fleet_nodes:
                continue             # (another area's: it may go silent and have its pods evicted)
            status = node.get("status") or {}
            figures = status.get("allocatable") or status.get("capacity") or {}
            taken += [(node["metadata"]["name"], name, text) for name, text in sorted(figures.items())
                      if name in counted and text not in ("0", "0Ki", "")]
        return taken[pick % len(taken)] if taken else None

    def _create(self, shape: dict, node: str | None):
        notes = fleet.notes(self.case)
        name = notes.next_pod()
        body = manifest(name, shape, node)
        step = create_step(name, shape, node)
        if not self.apply(step, "SCHED-BIND-ON-CREATE", {"create": name, "manifest": body, "named": node,
                                                         "shape": shape}):
            return multiple()
        return name

    @rule(pod=pods, what=st.sampled_from(("start", "start", "succeed", "fail", "restart", "not-ready", "label",
                                          "delete")))
    def kubelet_or_user_acts(self, pod, what):
        got = Snapshot(self.case.oracle).pod(pod)
        node = node_name(got)
        if got is None or terminating(got):
            return
        if what == "label":
            self.apply(Step("When", f'I label pod "{pod}" with "release=b"'), "SCHED-ACCOUNT-MODIFIED-AFTER-STATUS")
        elif what == "delete":
            if self.apply(Step("When", f'I delete pod "{pod}"'), "SCHED-ACCOUNT-PENDING-SUBTRACTED"):
                expectations(self.case).pop(pod, None)
        elif node is None or not fleet.notes(self.case).nodes.get(node, fleet.NodeNote("")).status:
            return
        elif what == "start" and phase(got) == "Pending":
            self.apply(Step("When", f'the kubelet on node "{node}" starts pod "{pod}"'),
                       "SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED")
        elif what in ("succeed", "fail") and phase(got) in ("Pending", "Running"):
            self.apply(Step("When", f'pod "{pod}" {what}s'), "SCHED-ACCOUNT-TERMINAL-IGNORED")
        elif what == "restart" and phase(got) == "Running":
            self.apply(Step("When", f'the container of pod "{pod}" restarts'), "SCHED-ACCOUNT-WAITING-RESTART-SUBTRACTED")
        elif what == "not-ready" and phase(got) == "Running":
            self.apply(Step("When", f'pod "{pod}" becomes not ready'), "SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED")


class Scheduler(Area):
    NAME = "scheduler"
    TIME_FREE = True
    Rules = SchedulerRules

    def simpler(self, rec) -> list:
        """The same pod with one resource, the selector or the scheduling hints fewer, or written
        with the plain requesting step."""
        shape = rec.intent.get("shape")
        if shape is None:
            return []
        name, node = rec.intent["create"], rec.intent["named"]
        shapes = [{**shape, "resources": {k: v for k, v in shape["resources"].items() if k != drop}}
                  for drop in shape["resources"]]
        if shape["selector"]:
            shapes.append({**shape, "selector": {}})
        if shape["hints"]:
            shapes.append({**shape, "hints": []})
        if shape["form"] != "requesting":
            shapes.append({**shape, "form": "requesting"})
        out = []
        for simple in shapes:
            simple = normalized(simple, node)
            out.append(dataclasses.replace(rec, step=create_step(name, simple, node), intent={
                **rec.intent, "manifest": manifest(name, simple, node), "shape": simple}))
        return out

    # -- before a step: what the document says the scheduler will do --------------------------------
    def before(self, case, intent):
        if "create" in intent:
            if intent["named"]:
                return readings.Decision(intent["named"])
            snap = Snapshot(case.oracle)
            return readings.decided(intent["manifest"], snap.nodes(), snap.pods())
        if "time" in intent:
            return self._retries(case, intent["time"])
        return None

    def _retries(self, case, seconds: float) -> dict[str, readings.Decision | None] | None:
        """The unbound pods' fate over a clock move: decided when the world stands still meanwhile
        (no kubelet write due, no lifecycle deadline), every retry sees the same state, and at most
        one of them can be bound (the retry order is the implementation's)."""
        snap = Snapshot(case.oracle)
        unbound = [p for p in snap.pods() if not node_name(p) and not terminating(p) and phase(p) == "Pending"
                   and p["metadata"]["name"] in expectations(case)]
        if not unbound:
            return {}
        quiet = case.quiet(seconds)
        decisions = {p["metadata"]["name"]: readings.decided(p, snap.nodes(), snap.pods()) if quiet else None
                     for p in unbound}
        bindable = [n for n, d in decisions.items() if d is None or d.node]
        if len(bindable) > 1 or seconds < case.oracle.ctx.profile.reconcile_interval:
            decisions.update(dict.fromkeys(bindable))
        return decisions

    # -- after it: the checks -------------------------------------------------------------------------
    def after(self, case, intent, before):
        wanted = expectations(case)
        checks: list[Check] = []
        if "create" in intent:
            wanted[intent["create"]] = Expectation(before)
        if "time" in intent and before:
            for name, decision in before.items():
                wanted[name] = Expectation(decision)
        elif "create" not in intent and "time" not in intent:
            # the document has unbound pods retried every interval; one that also retries when a
            # node or pod changes binds sooner: unbound is decided again by the next clock move
            for want in wanted.values():
                if want.decision is not None and want.decision.node is None:
                    want.settled = False
        oracle, target = Snapshot(case.oracle), Snapshot(case.target)     # (one look after the step)
        if FAMILY not in case.diverged:
            checks += self._placements(case, oracle, target)
        if "create" in intent and before is not None and not checks and FAMILY not in case.diverged:
            checks += self._create_checks(case, intent["create"], before, intent["named"], oracle, target)
        return checks + self._named_checks(case, oracle, target)

    @staticmethod
    def _named_checks(case, oracle: Snapshot, target: Snapshot) -> list[Check]:
        """A pod created on a node is never the scheduler's: no FailedScheduling about it, ever."""
        named = [name for name, note in fleet.notes(case).pods.items() if note.named]
        checks = []
        for name in named:
            if not node_name(oracle.pod(name)) or not node_name(target.pod(name)):
                continue             # (evicted by another area, or deleted: the scheduler's again)
            case.stats.compared += 1
            if target.events_about("Pod", name, "FailedScheduling") and not oracle.events_about(
                    "Pod", name, "FailedScheduling"):
                checks.append(Check("SCHED-NODENAME-SKIPS-SCHEDULER",
                                    Step("Then", f'there is no "FailedScheduling" event about pod "{name}"')))
        return checks

    def _create_checks(self, case, name, decision, named, oracle: Snapshot, target: Snapshot) -> list[Check]:
        mine, theirs = oracle.pod(name), target.pod(name)
        if mine is None or node_name(mine) != decision.node:
            case.stats.explorer_doubts.append(f"pod {name}: the oracle did not do what every reading says: "
                                              f"{decision} vs {node_name(mine)}")
            expectations(case)[name] = Expectation(None)
            return []
        checks = []
        answer = case.target.ctx.responses.get(name)
        if decision.node and not named and (not isinstance(answer, dict) or node_name(answer) != decision.node):
            checks.append(Check("SCHED-BIND-ON-CREATE",
                                Step("Then", f'the create response for pod "{name}" names node "{decision.node}"')))
        if decision.node is None and theirs is not None:
            checks += self._unschedulable(name, mine, theirs, oracle, target)
        return checks

    @staticmethod
    def _unschedulable(name, mine, theirs, oracle: Snapshot, target: Snapshot) -> list[Check]:
        checks = []
        cond = condition(mine, "PodScheduled") or {}
        got = condition(theirs, "PodScheduled") or {}
        if (got.get("status"), got.get("reason")) != (cond.get("status"), cond.get("reason")):
            checks.append(Check("SCHED-UNSCHEDULABLE-CONDITION", Step(
                "Then", f'pod "{name}" has condition "PodScheduled" "{cond.get("status")}" with reason '
                        f'"{cond.get("reason")}"')))
        if _pod_row(theirs) != _pod_row(mine):
            row = _pod_row(mine)
            checks.append(Check("EXAMPLE-PENDING-POD-ROW", Step(
                "Then", f'pod "{name}" is listed with READY "{row["READY"]}", STATUS "{row["STATUS"]}" and '
                        f'RESTARTS "{row["RESTARTS"]}"')))
        said = oracle.events_about("Pod", name, "FailedScheduling")
        heard = target.events_about("Pod", name, "FailedScheduling")
        if said:
            message = said[-1].get("message") or ""
            if not any(e.get("type") == "Warning" and _fit.agrees(e.get("message"), message) for e in heard):
                clause = diagnosis.counts(message, heard[-1].get("message") if heard else None) \
                    if heard and all(e.get("type") == "Warning" for e in heard) else "SCHED-FAILED-SCHEDULING-EVENT"
                checks.append(Check(clause, Step("Then", f'a "Warning" event "FailedScheduling" about pod "{name}" says:',
                                                 docstring=message)))
            if not any(e.get("type") == "Warning" for e in heard):
                checks.append(Check("EXAMPLE-EVENT-ROW", Step(
                    "Then", f'the events listed by involvedObject.name "{name}" include the row:',
                    table(["TYPE", "REASON", "OBJECT"], [["Warning", "FailedScheduling", f"pod/{name}"]]))))
        return checks

    def _placements(self, case, oracle: Snapshot, target: Snapshot) -> list[Check]:
        """Every pod whose placement the document decides is where the oracle has it."""
        checks = []
        for name, want in expectations(case).items():
            mine, theirs = oracle.pod(name), target.pod(name)
            if mine is None or theirs is None or terminating(mine) or terminating(theirs):
                continue
            case.stats.compared += 1
            here, there = node_name(mine), node_name(theirs)
            if here == there:
                continue
            if want.decision is None or not want.settled or want.decision.node != here:
                case.diverge(FAMILY, f"pod {name} went to {here} and {there}: the document leaves it open")
                return []
            checks.append(self._placement_check(case, name, mine, here, there, oracle))
        return checks

    @staticmethod
    def _placement_check(case, name, pod, here, there, oracle: Snapshot) -> Check:
        nodes, pods = oracle.nodes(), [p for p in oracle.pods() if p["metadata"]["name"] != name]
        unbound = {**pod, "spec": {**pod["spec"], "nodeName": None}}
        note = fleet.notes(case).pods.get(name)
        if note is not None and note.named:
            clause = "SCHED-NODENAME-SKIPS-SCHEDULER"
        elif here is None:
            clause = diagnosis.wrong_node(unbound, oracle.node(there) or {"metadata": {"name": there}}, None, nodes, pods)
        elif there is None:
            clause = diagnosis.not_bound(unbound, oracle.node(here), pods)
        else:
            target_node = oracle.node(there) or {"metadata": {"name": there}}
            clause = diagnosis.wrong_node(unbound, target_node, oracle.node(here), nodes, pods)
        then = Step("Then", f'pod "{name}" is bound to node "{here}"') if here else Step("Then", f'pod "{name}" is not bound')
        return Check(clause, then, f"the reference has it on {here or 'no node'}, the target on {there or 'no node'}")


AREA = Scheduler()
