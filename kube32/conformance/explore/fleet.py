"""The fleet every area runs on: nodes registered by the runner's fake kubelets with random
figures, labels, cordons, status reports (or none at all), and what explore remembers of them."""

from __future__ import annotations

import dataclasses
import string

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, rule

from kube32.conformance.explore import values
from kube32.conformance.explore.areas import Area
from kube32.conformance.explore.gherkin import Step, resources_table, table
from kube32.spec import constants

MAX_NODES = 5
SHAPES = ("both", "both", "both", "capacity", "split")   # which status fields the columns set


@dataclasses.dataclass
class NodeNote:
    name: str
    status: bool = True            # it has reported status (a kubelet runs)
    lease: float | None = None     # the duration its Lease declares (None: the profile's)


@dataclasses.dataclass
class PodNote:
    name: str
    manifest: dict
    named: str | None = None       # created with spec.nodeName
    shape: dict | None = None      # how the area drew it (its resources, selector, form)


class Notes:
    """What explore did in this example (the same on both sides)."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeNote] = {}
        self.pods: dict[str, PodNote] = {}

    def next_node(self, more: int = 0) -> str:
        return f"node-{string.ascii_lowercase[len(self.nodes) + more]}"

    def next_pod(self) -> str:
        return f"p{len(self.pods) + 1}"


def notes(case) -> Notes:
    return case.notes.setdefault("fleet", Notes())


@st.composite
def node_figures(draw) -> tuple[str, dict[str, str]]:
    """(shape, {column: value}) for one row of "these Ready nodes"."""
    shape = draw(st.sampled_from(SHAPES))
    figures: dict[str, str] = {}
    if draw(st.integers(0, 9)):
        figures[constants.MEMORY] = draw(values.quantity(draw(values.memory_units(16 * values.KI, 256 * values.KI))))
    if draw(st.booleans()):
        name = draw(st.sampled_from(constants.PSRAM_RESOURCES))
        figures[name] = draw(values.quantity(draw(values.memory_units(0, 64 * values.KI))))
    if draw(st.integers(0, 9)):
        figures[constants.GPIO] = draw(values.quantity(draw(st.integers(0, 8)), binary=False))
    for name in draw(st.lists(st.sampled_from(values.PERIPHERALS), max_size=3, unique=True)):
        figures[name] = draw(values.quantity(draw(st.integers(0, 3)), binary=False))
    if shape == "capacity":
        return shape, {f"capacity {k}": v for k, v in figures.items()}
    if shape == "split" and constants.MEMORY in figures:
        units = draw(values.memory_units(16 * values.KI, 256 * values.KI))
        bigger = max(units, int(_bytes(figures[constants.MEMORY])))
        figures[f"capacity {constants.MEMORY}"] = draw(values.quantity(bigger, unknown=False))
        figures[f"allocatable {constants.MEMORY}"] = figures.pop(constants.MEMORY)
    return shape, figures


def _bytes(text: str) -> float:
    from kube32.spec import quantities

    try:
        return float(quantities.parse(text))
    except quantities.QuantityError:
        return 0.0


class Fleet(Area):
    """Always explored: the nodes every other area runs on."""
    NAME = "fleet"
    TIME_FREE = True

    def after(self, case, intent, before):
        fleet = notes(case)
        for name in intent.get("nodes", ()):
            fleet.nodes[name] = NodeNote(name, status=intent.get("status", True), lease=intent.get("lease"))
        if "create" in intent:
            fleet.pods[intent["create"]] = PodNote(intent["create"], intent["manifest"], named=intent.get("named"),
                                                  shape=intent.get("shape"))
        return []

    def simpler(self, rec) -> list:
        """A node table with one row fewer, or one column (a figure, the labels) fewer."""
        if rec.step.text != "these Ready nodes:":
            return []
        header, *rows = rec.step.table
        out = []
        for i in range(len(rows)) if len(rows) > 1 else ():
            kept = rows[:i] + rows[i + 1:]
            names = [r[0] for r in kept]
            out.append(dataclasses.replace(rec, step=dataclasses.replace(rec.step, table=(header, *kept)),
                                           intent={**rec.intent, "nodes": names}))
        for j in range(1, len(header)):
            cut = tuple(tuple(c for k, c in enumerate(row) if k != j) for row in (header, *rows))
            out.append(dataclasses.replace(rec, step=dataclasses.replace(rec.step, table=cut)))
        return out


class FleetRules:
    nodes = Bundle("nodes")

    @rule(target=nodes, rows=st.lists(st.tuples(node_figures(), values.labels()), min_size=1, max_size=3))
    def register_nodes(self, rows):
        fleet = notes(self.case)
        rows = rows[:MAX_NODES - len(fleet.nodes)]
        if not rows:
            return multiple()
        names = [fleet.next_node(i) for i in range(len(rows))]
        columns = list(dict.fromkeys(c for (_, figures), _ in rows for c in figures))
        has_labels = any(lab for _, lab in rows)
        header = ["name", *columns, *(["labels"] if has_labels else [])]
        body = [[name, *(figures.get(c, "") for c in columns), *([values.label_text(lab)] if has_labels else [])]
                for name, ((_, figures), lab) in zip(names, rows, strict=True)]
        if not self.apply(Step("Given", "these Ready nodes:", table(header, body)), "SCHED-FILTER-READY",
                          {"nodes": names}):
            return multiple()
        return multiple(*names)

    @rule(target=nodes)
    def register_node_without_status(self):
        fleet = notes(self.case)
        if len(fleet.nodes) >= MAX_NODES:
            return multiple()
        name = fleet.next_node()
        if not self.apply(Step("Given", f'a node "{name}" that never reported status'), "SCHED-FILTER-STATUS-PRESENT",
                          {"nodes": [name], "status": False}):
            return multiple()
        return name

    @rule(node=nodes)
    def cordon(self, node):
        self.apply(Step("Given", f'node "{node}" is cordoned'), "SCHED-FILTER-UNSCHEDULABLE")

    @rule(node=nodes, status=st.sampled_from(("False", "True", "Unknown")))
    def report_ready(self, node, status):
        if notes(self.case).nodes[node].status:
            self.apply(Step("Given", f'node "{node}" reports Ready "{status}"'), "SCHED-FILTER-READY")

    @rule(node=nodes)
    def report_without_ready(self, node):
        if notes(self.case).nodes[node].status:
            self.apply(Step("Given", f'the kubelet on node "{node}" reports its status without a Ready condition'),
                       "SCHED-FILTER-STATUS-PRESENT")

    @rule(node=nodes)
    def report_status(self, node):
        if notes(self.case).nodes[node].status:
            self.apply(Step("When", f'the kubelet on node "{node}" reports node status'),
                       "SCHED-ACCOUNT-MODIFIED-AFTER-STATUS")

    @rule(node=nodes, memory=values.memory_units(0, 256 * values.KI), gpio=st.integers(0, 8), data=st.data())
    def report_allocatable(self, node, memory, gpio, data):
        if not notes(self.case).nodes[node].status:
            return
        amounts = {constants.MEMORY: data.draw(values.quantity(memory)),
                   constants.GPIO: data.draw(values.quantity(gpio, binary=False))}
        self.apply(Step("When", f'node "{node}" reports allocatable:', resources_table(amounts)),
                   "SCHED-ALLOCATABLE-FALLBACK")

    @rule(node=nodes, key=st.sampled_from(sorted(values.LABELS)), value=st.sampled_from(("a", "b", "s3", "c3")))
    def label_node(self, node, key, value):
        self.apply(Step("When", f'node "{node}" gets label "{key}={value}"'), "LIMIT-NODE-WRITE-RESETS-ACCOUNTING")

    @rule(node=nodes, effect=st.sampled_from(("NoSchedule", "PreferNoSchedule")))
    def taint_node(self, node, effect):
        self.apply(Step("When", f'node "{node}" gets taint "dedicated=lab:{effect}"'), "SCHED-IGNORE-TAINTS")


FLEET = Fleet()
