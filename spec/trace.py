"""The trace of the kube32 document: for every unit of the document (a sentence, a list item, a table
row, its console example — see ``document.py`` for the locators) what it states, in our own words, and
for each statement the scenarios that judge each of its sides.

``spec/trace/<area>.yaml`` (one file per catalogue area, units in document order)::

    area: scheduler
    units:
      - at: "Filters, item 4, sentence 2"
        digest: 3f2a9c1b7d40          # of the unit's text when it was traced (document.digest)
        statements:
          - says: a pod that declares no memory counts as 16 KiB of memory
            kind: default
            clauses: [SCHED-FILTER-MEMORY-DEFAULT]
            sides:
              default: ["scheduler/memory.feature: a pod without memory fits exactly 16 KiB"]
              explicit: ["scheduler/memory.feature: an explicit request replaces the default"]
      - at: "Scheduler and controllers, item 1"
        digest: 9e01c4d2aa17
        not_judgeable: an implementation's source file names are not visible over its API

Every statement is judged from both sides, as its ``kind`` says (``SIDES``). A side is a list of
scenarios (``<feature file>: <scenario name>``) or, where it cannot be shown, ``{reason: ...}``.
``kube32/conformance/tracecheck.py`` holds the trace against the features, the catalogue and the document.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from kube32.spec.catalogue import ID_PATTERN
from kube32.spec.strict import Strict, area_files, read_model

__all__ = ["SIDES", "Side", "Statement", "Trace", "TraceError", "Unit", "load", "parse"]

# What "both sides" means for each kind of statement.
SIDES: dict[str, tuple[str, ...]] = {
    "rule": ("positive", "negative"),          # it happens when the condition holds, not when it does not
    "bound": ("within", "beyond"),             # at the edge it is allowed; just past the edge it is not
    "timing": ("not-before", "not-after"),     # nothing before the moment, done by moment + one check
    "default": ("default", "explicit"),        # without the field the default applies; an explicit other value wins
    "negation": ("would-change",),             # "does not"/"ignores": a case where doing it would change the outcome
    "each": (),                                # one side per item it lists (a rule on N resources: each of them)
}
KINDS = tuple(SIDES)
# The document's sections in reading order, each traced in one file; a file's statements may name
# clauses of any area, and it answers for the clauses of the catalogue areas it covers.
SECTIONS: dict[str, str] = {
    "Scheduler and controllers": "scheduler",
    "Scheduler": "scheduler",
    "Filters": "scheduler",
    "Scoring": "scheduler",
    "Unschedulable pods": "scheduler",
    "Node lifecycle controller": "node_lifecycle",
    "Deployment controller": "deployment",
    "DaemonSet and Job controller": "job",
    "DaemonSet": "daemonset",
    "Job": "job",
    "Endpoints and EndpointSlices": "endpoints",
    "Limitations": "limitations",
}
TRACE_AREAS = tuple(dict.fromkeys(SECTIONS.values()))
# The kubelet's clauses come from the lease sentence of the lifecycle section and from the Filters
# paragraphs: the kubelet area is answered for once both files are there.
COVERS: dict[str, tuple[str, ...]] = {area: (area,) for area in TRACE_AREAS} | {
    "scheduler": ("scheduler", "examples", "kubelet"),
    "node_lifecycle": ("node_lifecycle", "kubelet"),
}
LOCATOR = re.compile(r"^[A-Z][A-Za-z /]+, (paragraph \d+, sentence \d+|item \d+(, sentence \d+)?|table row \d+"
                     r"|example( \d+)?)$")
SAYS_LIMIT = 240   # a paraphrase, never the document's sentence


class TraceError(ValueError):
    pass


Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Ref = Annotated[str, StringConstraints(pattern=r"^[^:\s][^:]*\.feature: \S.*$")]


class Reason(Strict):
    reason: Text


class StatementEntry(Strict):
    says: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=SAYS_LIMIT)]
    kind: Literal[KINDS]  # type: ignore[valid-type]
    clauses: list[Annotated[str, StringConstraints(pattern=ID_PATTERN.pattern)]] = Field(min_length=1)
    items: list[Text] = []
    sides: dict[str, list[Ref] | Reason]

    @model_validator(mode="after")
    def _both_sides(self) -> StatementEntry:
        if self.kind == "each":
            if len(self.items) < 2:
                raise ValueError("a statement of kind each lists its items (two or more)")
            wanted = tuple(self.items)
        else:
            if self.items:
                raise ValueError(f"items belong to kind each, not {self.kind}")
            wanted = SIDES[self.kind]
        missing = [s for s in wanted if s not in self.sides]
        extra = [s for s in self.sides if s not in wanted]
        if missing or extra:
            raise ValueError(f"a {self.kind} statement has the sides {', '.join(wanted)}"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unknown {', '.join(extra)}" if extra else ""))
        empty = [s for s, v in self.sides.items() if isinstance(v, list) and not v]
        if empty:
            raise ValueError(f"side {', '.join(empty)} names no scenario (give one, or {{reason: ...}})")
        return self


class UnitEntry(Strict):
    at: Annotated[str, StringConstraints(pattern=LOCATOR.pattern)]
    digest: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{12}$")]   # document.digest of the unit's text
    statements: list[StatementEntry] = []
    not_judgeable: Text | None = None

    @model_validator(mode="after")
    def _judged_or_why_not(self) -> UnitEntry:
        if bool(self.statements) == bool(self.not_judgeable):
            raise ValueError("a unit has statements or says why it is not judgeable (not_judgeable), not both")
        return self


class TraceFile(Strict):
    area: Literal[TRACE_AREAS]  # type: ignore[valid-type]
    units: list[UnitEntry] = Field(min_length=1)


@dataclasses.dataclass(frozen=True)
class Side:
    name: str
    scenarios: tuple[tuple[str, str], ...] = ()   # (feature file, scenario name)
    reason: str | None = None                     # why this side has no scenario


@dataclasses.dataclass(frozen=True)
class Statement:
    at: str
    index: int          # 1-based within its unit
    says: str
    kind: str
    clauses: tuple[str, ...]
    sides: tuple[Side, ...]

    @property
    def key(self) -> str:
        """``Filters, item 4, sentence 2 (b)`` — a statement's name in reports."""
        return f"{self.at} ({chr(ord('a') + self.index - 1)})"


@dataclasses.dataclass(frozen=True)
class Unit:
    at: str
    area: str
    digest: str
    statements: tuple[Statement, ...]
    not_judgeable: str | None = None

    @property
    def section(self) -> str:
        return self.at.split(",", 1)[0]


class Trace:
    def __init__(self, units: list[Unit]):
        order = list(SECTIONS)     # the document's order (a file may hold several sections)
        self.units = tuple(sorted(units, key=lambda u: order.index(u.section) if u.section in order else len(order)))
        seen: dict[str, str] = {}
        for unit in self.units:
            if unit.at in seen:
                raise TraceError(f"unit {unit.at!r} is traced twice (areas {seen[unit.at]} and {unit.area})")
            seen[unit.at] = unit.area
            if SECTIONS.get(unit.section) != unit.area:
                raise TraceError(f"trace/{unit.area}.yaml: {unit.at!r} belongs to "
                                 f"{SECTIONS.get(unit.section, 'no section of the document')}")

    @property
    def areas(self) -> frozenset[str]:
        """The catalogue areas whose clauses this trace answers for: those every file covering them is
        part of."""
        files = {u.area for u in self.units}
        return frozenset(a for f in files for a in COVERS[f]
                         if all(g in files for g, covered in COVERS.items() if a in covered))

    def statements(self) -> list[Statement]:
        return [s for u in self.units for s in u.statements]

    def by_locator(self) -> dict[str, Unit]:
        return {u.at: u for u in self.units}


def _side(name: str, value) -> Side:
    if isinstance(value, Reason):
        return Side(name, reason=value.reason)
    return Side(name, tuple(tuple(part.strip() for part in ref.split(":", 1)) for ref in value))


def _unit_names(data: dict):
    def name(loc: tuple) -> str | None:
        if len(loc) == 2 and loc[0] == "units" and isinstance(data.get("units"), list):
            item = data["units"][loc[1]]
            return item.get("at") if isinstance(item, dict) else None
        return None
    return name


def parse(text: str, source: str = "<string>", *, expected_area: str | None = None) -> list[Unit]:
    parsed = read_model(TraceFile, text, source, TraceError, "area, units", _unit_names, expected_area)
    return [Unit(u.at, parsed.area, u.digest,
                 tuple(Statement(u.at, i, s.says, s.kind, tuple(s.clauses),
                                 tuple(_side(n, v) for n, v in s.sides.items()))
                       for i, s in enumerate(u.statements, 1)),
                 u.not_judgeable)
            for u in parsed.units]


def load(package: str = "kube32.spec") -> Trace:
    """Every ``<package>/trace/<area>.yaml``, in document order."""
    return Trace([unit for area, source, text in area_files(package, "trace", TRACE_AREAS, TraceError)
                  for unit in parse(text, source, expected_area=area)])
