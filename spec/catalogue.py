"""The clause catalogue: every testable behaviour of the kube32 document, one YAML file per area.

``load()`` reads ``spec/clauses/*.yaml`` (through importlib.resources, so it works from a wheel) strictly,
with pydantic models in the style of the rig file: unknown, missing or wrongly typed keys, duplicate
YAML keys, malformed or duplicate clause IDs, and a file whose ``area`` differs from its name are
errors (``CatalogueError``) naming the file and the field, e.g.
``clauses/job.yaml: JOB-COMPLETE.title: String should have at least 1 character``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints, model_validator

from kube32.spec.strict import Strict, area_files, read_model

__all__ = ["AREAS", "Catalogue", "CatalogueError", "Clause", "ID_PATTERN", "LEVELS", "load", "parse"]

ID_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
# Areas in reading order of the document; files for other areas are rejected.
AREAS = ("scheduler", "node_lifecycle", "deployment", "daemonset", "job", "endpoints", "kubelet",
         "limitations", "examples")
CAPABILITIES = frozenset({"restart", "real-kubelet", "exclusive-nodes", "manual-clock"})
# document: the document states the clause (its interpretation, if any, only adds reference-level
# details); reference: the whole clause is our reading where the document is silent.
LEVELS = ("document", "reference")


class CatalogueError(ValueError):
    pass


@dataclasses.dataclass(frozen=True)
class Clause:
    id: str
    title: str
    statement: str
    source: str
    observe: str
    area: str
    section: str
    numbers: tuple[str, ...] = ()
    interpretation: str | None = None
    needs: tuple[str, ...] = ()
    level: str = "document"

    @property
    def is_interpretation(self) -> bool:
        return self.interpretation is not None

    @property
    def tag(self) -> str:
        """The Gherkin tag that links scenarios to this clause."""
        return f"@clause-{self.id}"


# -- the file's shape ----------------------------------------------------------------------------------
def _unique(names: list[str]) -> tuple[str, ...]:
    if len(set(names)) != len(names):
        raise ValueError(f"repeated names in {names}")
    return tuple(names)


Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Names = Annotated[list[Annotated[str, StringConstraints(min_length=1)]], AfterValidator(_unique)]
Capability = Literal[tuple(sorted(CAPABILITIES))]  # type: ignore[valid-type]


class ClauseEntry(Strict):
    id: Annotated[str, StringConstraints(pattern=ID_PATTERN.pattern)]
    title: Text
    statement: Text
    source: Text
    observe: Text
    numbers: Names = ()
    interpretation: Text | None = None
    needs: Annotated[list[Capability], AfterValidator(_unique)] = ()
    level: Literal[LEVELS] = "document"  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _reading_has_its_interpretation(self) -> ClauseEntry:
        if self.level == "reference" and self.interpretation is None:
            raise ValueError("a reference-level clause needs its interpretation")
        return self


class AreaFile(Strict):
    area: Literal[AREAS]  # type: ignore[valid-type]
    section: Text
    clauses: list[ClauseEntry] = Field(min_length=1)


def _clause_names(data: dict) -> Any:
    """Names list items ``clauses[i]`` by their id where it is a string."""
    def name(loc: tuple) -> str | None:
        if len(loc) == 2 and loc[0] == "clauses" and isinstance(data.get("clauses"), list):
            item = data["clauses"][loc[1]]
            if isinstance(item, dict) and isinstance(item.get("id"), str) and ID_PATTERN.match(item["id"]):
                return item["id"]
        return None
    return name


def parse(text: str, source: str = "<string>", *, expected_area: str | None = None) -> list[Clause]:
    """Clauses of one area file. ``expected_area`` (the file stem) must equal its ``area`` key."""
    parsed = read_model(AreaFile, text, source, CatalogueError, "area, section, clauses", _clause_names,
                        expected_area)
    return [Clause(area=parsed.area, section=parsed.section, **dict(entry)) for entry in parsed.clauses]


class Catalogue:
    """All clauses, in area order then file order."""

    def __init__(self, clauses: Iterable[Clause]):
        self._clauses: dict[str, Clause] = {}
        for clause in clauses:
            if clause.id in self._clauses:
                other = self._clauses[clause.id]
                raise CatalogueError(f"duplicate clause id {clause.id} (areas {other.area} and {clause.area})")
            self._clauses[clause.id] = clause

    def __iter__(self) -> Iterator[Clause]:
        return iter(self._clauses.values())

    def __len__(self) -> int:
        return len(self._clauses)

    def __contains__(self, clause_id: object) -> bool:
        return clause_id in self._clauses

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._clauses)

    def get(self, clause_id: str) -> Clause:
        try:
            return self._clauses[clause_id]
        except KeyError:
            raise KeyError(f"unknown clause {clause_id!r}") from None

    def by_area(self) -> dict[str, tuple[Clause, ...]]:
        out: dict[str, list[Clause]] = {}
        for clause in self:
            out.setdefault(clause.area, []).append(clause)
        return {area: tuple(out[area]) for area in AREAS if area in out}

    def interpretations(self) -> tuple[Clause, ...]:
        return tuple(c for c in self if c.interpretation is not None)


def load(package: str = "kube32.spec") -> Catalogue:
    """Every ``<package>/clauses/<area>.yaml``, checked strictly."""
    return Catalogue([clause for area, source, text in area_files(package, "clauses", AREAS, CatalogueError)
                      for clause in parse(text, source, expected_area=area)])
