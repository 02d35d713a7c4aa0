"""The clause catalogue: every testable behaviour of the kube32 document, one YAML file per area.

``load()`` reads ``spec/clauses/*.yaml`` (through importlib.resources, so it works from a wheel) strictly:
unknown or missing keys, duplicate YAML keys, malformed or duplicate clause IDs, and a file whose
``area`` differs from its name are errors (``CatalogueError``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Any

import yaml

__all__ = ["AREAS", "Catalogue", "CatalogueError", "Clause", "ID_PATTERN", "load", "parse"]

ID_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
# Areas in reading order of the document; files for other areas are rejected.
AREAS = ("scheduler", "node_lifecycle", "deployment", "daemonset", "job", "endpoints", "kubelet",
         "limitations", "examples")
CAPABILITIES = frozenset({"restart", "real-kubelet", "exclusive-nodes", "manual-clock"})

_FILE_KEYS = {"area": True, "section": True, "clauses": True}  # key -> required
_CLAUSE_KEYS = {"id": True, "title": True, "statement": True, "source": True, "observe": True,
                "numbers": False, "interpretation": False, "needs": False}


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

    @property
    def is_interpretation(self) -> bool:
        return self.interpretation is not None

    @property
    def tag(self) -> str:
        """The Gherkin tag that links scenarios to this clause."""
        return f"@clause-{self.id}"


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys (PyYAML silently keeps the last one)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise CatalogueError(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
        seen[key] = True
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _check_keys(data: Any, spec: dict[str, bool], where: str) -> None:
    if not isinstance(data, dict):
        raise CatalogueError(f"{where}: expected a mapping, got {type(data).__name__}")
    unknown = sorted(set(data) - set(spec))
    if unknown:
        raise CatalogueError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(spec)}")
    missing = sorted(k for k, required in spec.items() if required and k not in data)
    if missing:
        raise CatalogueError(f"{where}: missing key(s) {missing}")


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CatalogueError(f"{where}: expected a non-empty string, got {value!r}")
    return value.strip()


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise CatalogueError(f"{where}: expected a list of names, got {value!r}")
    if len(set(value)) != len(value):
        raise CatalogueError(f"{where}: repeated names in {value!r}")
    return tuple(value)


def parse(text: str, source: str = "<string>", *, expected_area: str | None = None) -> list[Clause]:
    """Clauses of one area file. ``expected_area`` (the file stem) must equal its ``area`` key."""
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise CatalogueError(f"{source}: not valid YAML: {exc}") from exc
    except CatalogueError as exc:
        raise CatalogueError(f"{source}: {exc}") from exc
    _check_keys(data, _FILE_KEYS, source)
    area = _text(data["area"], f"{source}: area")
    if area not in AREAS:
        raise CatalogueError(f"{source}: unknown area {area!r}; known: {', '.join(AREAS)}")
    if expected_area is not None and area != expected_area:
        raise CatalogueError(f"{source}: area {area!r} does not match the file name {expected_area!r}")
    section = _text(data["section"], f"{source}: section")
    items = data["clauses"]
    if not isinstance(items, list) or not items:
        raise CatalogueError(f"{source}: clauses must be a non-empty list")
    out = []
    for i, item in enumerate(items):
        where = f"{source}: clauses[{i}]"
        _check_keys(item, _CLAUSE_KEYS, where)
        cid = item["id"]
        if not isinstance(cid, str) or not ID_PATTERN.match(cid):
            raise CatalogueError(f"{where}: bad clause id {cid!r}; must match {ID_PATTERN.pattern}")
        where = f"{source}: {cid}"
        needs = _names(item["needs"], f"{where}: needs") if "needs" in item else ()
        bad = sorted(set(needs) - CAPABILITIES)
        if bad:
            raise CatalogueError(f"{where}: unknown capabilities {bad}; known: {sorted(CAPABILITIES)}")
        out.append(Clause(
            id=cid,
            title=_text(item["title"], f"{where}: title"),
            statement=_text(item["statement"], f"{where}: statement"),
            source=_text(item["source"], f"{where}: source"),
            observe=_text(item["observe"], f"{where}: observe"),
            area=area,
            section=section,
            numbers=_names(item["numbers"], f"{where}: numbers") if "numbers" in item else (),
            interpretation=_text(item["interpretation"], f"{where}: interpretation")
            if "interpretation" in item else None,
            needs=needs,
        ))
    return out


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
    root = resources.files(package) / "clauses"
    entries = sorted((e for e in root.iterdir() if e.name.endswith((".yaml", ".yml"))), key=lambda e: e.name)
    stems = {e.name.rsplit(".", 1)[0]: e for e in entries}
    unknown = sorted(set(stems) - set(AREAS))
    if unknown:
        raise CatalogueError(f"clause files for unknown areas: {unknown}")
    clauses: list[Clause] = []
    for area in AREAS:
        if area in stems:
            entry = stems[area]
            clauses += parse(entry.read_text(encoding="utf-8"), f"clauses/{entry.name}", expected_area=area)
    return Catalogue(clauses)
