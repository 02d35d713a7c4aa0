"""Validate JSON-shaped objects against the committed JSON Schemas (``spec/schemas/*.json``).

``validate(obj)`` picks the schema by ``obj["kind"]`` and returns every violation with the field path
where it occurred (``status.conditions[0].status: 'Maybe' is not one of ['True', 'False', 'Unknown']``).
Kinds without a schema give no violations. A ``<Kind>List`` validates against its list schema (each
item against the item kind); a generic ``List`` validates each item by that item's own ``kind``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
import threading
from collections import defaultdict
from collections.abc import Iterable
from importlib import resources
from typing import TYPE_CHECKING, Any

import fastjsonschema

from kube32.spec import checkcache

if TYPE_CHECKING:   # jsonschema (~0.1 s to import) walks only an object the fast check refused
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = ["SchemaError", "SchemaViolation", "assert_valid", "known_kinds", "validate"]

_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


@dataclasses.dataclass(frozen=True, order=True)
class SchemaViolation:
    path: str  # "status.conditions[0].status"; "" for the object itself
    message: str

    def __str__(self) -> str:
        return f"{self.path or '<object>'}: {self.message}"


class SchemaError(AssertionError):
    """An object does not match its kind's schema; ``.violations`` lists every problem."""

    def __init__(self, kind: str, violations: list[SchemaViolation]):
        self.kind = kind
        self.violations = violations
        lines = "\n".join(f"  - {v}" for v in violations)
        super().__init__(f"{kind} does not match its schema ({len(violations)} violation(s)):\n{lines}")


@functools.cache
def _schemas() -> dict[str, dict]:
    schemas = {}
    for entry in (resources.files("kube32.spec") / "schemas").iterdir():
        if not entry.name.endswith(".json"):
            continue
        schema = json.loads(entry.read_text(encoding="utf-8"))
        kind = schema.get("x-kubernetes-group-version-kind", {}).get("kind")
        if kind:
            schemas[kind] = schema
    return schemas


@functools.cache
def _validator(kind: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schemas()[kind])   # the schemas themselves are checked in tests/spec


_compiled: dict[str, Any] = {}
_compiling = threading.Lock()


def _fast_check(kind: str):
    """A compiled yes/no check (fastjsonschema: ~60x faster than walking the schema). Only when it
    says no does jsonschema walk the object to name every violation. Made once per process, when the
    kind is first checked, from the code compiled for the same schema before (checkcache.py; all 24
    kinds cost ~1.4 s of CPU to compile, ~10 ms to load): threads that ask meanwhile wait for it."""
    check = _compiled.get(kind)
    if check is None:
        with _compiling:
            check = _compiled.get(kind)
            if check is None:
                check = _compiled[kind] = checkcache.check(_fast_schema(kind))
    return check


_ANNOTATIONS = ("$id", "$schema", "x-kubernetes-group-version-kind")


@functools.cache
def _item_kind(kind: str) -> str | None:
    """For a ``<Kind>List`` whose items are checked by exactly ``<Kind>``'s own schema: that kind.
    Its yes/no check is then the envelope's and each item's (compiled once for the kind itself),
    not a compile of the whole list, which costs twice the item's."""
    schemas = _schemas()
    item = kind.removesuffix("List")
    if item == kind or item not in schemas:
        return None
    whole, own = schemas[kind], schemas[item]
    defs = whole.get("$defs", {})
    same = (whole.get("properties", {}).get("items", {}).get("items") == {"$ref": f"#/$defs/{item}"}
            and defs.get(item) == {k: v for k, v in own.items() if k not in (*_ANNOTATIONS, "$defs")}
            and all(defs.get(name) == d for name, d in own.get("$defs", {}).items()))
    return item if same else None


def _fast_schema(kind: str) -> dict:
    """What fastjsonschema compiles for ``kind``: a copy (it rewrites every $ref in place)."""
    schema = copy.deepcopy(_schemas()[kind])
    if _item_kind(kind) is not None:
        schema["properties"]["items"].pop("items")      # the envelope: an array, of anything
    return schema


def _is_valid(kind: str, obj: Any) -> bool:
    try:
        _fast_check(kind)(obj)
    except fastjsonschema.JsonSchemaException:
        return False
    item_kind = _item_kind(kind)
    return item_kind is None or all(_is_valid(item_kind, item) for item in obj.get("items") or ())


def known_kinds() -> frozenset[str]:
    return frozenset(_schemas())


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENT.match(str(p)):
            out += f".{p}" if out else str(p)
        else:
            out += f"[{json.dumps(p)}]"
    return out


def _is_type_mismatch(errors: list[ValidationError]) -> bool:
    return any(e.validator == "type" and not e.relative_path for e in errors)


def _flatten(error: ValidationError) -> list[tuple[list[Any], str]]:
    """Unwrap anyOf/oneOf errors down to the branch that matches the value's type.

    Optional fields are ``anyOf: [X, {type: null}]``; reporting "is not valid under any of the given
    schemas" would hide the real problem (a bad enum value, a wrong pattern).
    """
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[int, list[ValidationError]] = defaultdict(list)
        for sub in error.context:
            branches[sub.relative_schema_path[0]].append(sub)
        live = [errs for errs in branches.values() if not _is_type_mismatch(errs)]
        if len(live) == 1:
            return [item for sub in live[0] for item in _flatten(sub)]
        if not live:
            types = []
            for branch in error.validator_value:
                t = branch.get("type")
                if t is None and "$ref" in branch:
                    t = "object"
                if t is not None and t not in types:
                    types.append(t)
            if types:
                return [(list(error.absolute_path),
                         f"{error.instance!r} is not of type {' or '.join(repr(t) for t in types)}")]
    if error.validator == "const":
        return [(list(error.absolute_path), f"{error.instance!r} is not {error.validator_value!r}")]
    return [(list(error.absolute_path), error.message)]


def _violations(validator: Draft202012Validator, obj: Any, prefix: list[Any]) -> list[SchemaViolation]:
    out = []
    for error in validator.iter_errors(obj):
        for path, message in _flatten(error):
            out.append(SchemaViolation(_path(prefix + path), message))
    return out


def validate(obj: Any) -> list[SchemaViolation]:
    """Every schema violation of ``obj`` (empty when valid or when its kind has no schema)."""
    if not isinstance(obj, dict):
        return [SchemaViolation("", f"{obj!r} is not of type 'object'")]
    kind = obj.get("kind")
    schemas = _schemas()
    if isinstance(kind, str) and kind in schemas:
        if _is_valid(kind, obj):
            return []
        return sorted(_violations(_validator(kind), obj, []), key=_order)
    if isinstance(kind, str) and kind.endswith("List"):
        items = obj.get("items")
        if not isinstance(items, list):
            return [SchemaViolation("items", f"{items!r} is not of type 'array'")]
        item_kind = kind[: -len("List")]
        out: list[SchemaViolation] = []
        for i, item in enumerate(items):
            this_kind = item.get("kind", item_kind) if isinstance(item, dict) else item_kind
            if this_kind in schemas and not _is_valid(this_kind, item):
                out += _violations(_validator(this_kind), item, ["items", i])
        return sorted(out, key=_order)
    return []


def _order(v: SchemaViolation) -> tuple[list[Any], str]:
    parts = re.findall(r"\[(\d+)\]|([^.\[\]]+)", v.path)
    return ([(0, int(n), "") if n else (1, 0, s) for n, s in parts], v.message)


def assert_valid(obj: Any) -> None:
    """Raise ``SchemaError`` listing every violation of ``obj``."""
    violations = validate(obj)
    if violations:
        kind = obj.get("kind", "object") if isinstance(obj, dict) else type(obj).__name__
        raise SchemaError(str(kind), violations)
