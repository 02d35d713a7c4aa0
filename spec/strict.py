"""Strict pydantic models for the project's YAML files (clause catalogue, trace, rig files), their
validation errors as one line per field (``boards.node-a.role: must be one of control-plane, node``),
and a YAML reader that refuses duplicate keys."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["DuplicateKey", "Strict", "area_files", "problems", "read_model", "read_yaml"]


class Strict(BaseModel):
    """Unknown keys are errors; parsed values cannot change."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _message(err: dict) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "literal_error":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"must be one of {', '.join(options)} (got {err.get('input')!r})"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required"
    return err["msg"].removeprefix("Value error, ")


def _path(loc: tuple, name: Callable[[tuple], str | None]) -> str:
    parts: list[str] = []
    for i, part in enumerate(loc):
        if isinstance(part, str) and part.startswith("function-"):
            continue   # pydantic's marker for a validator, not a field
        if isinstance(part, int):   # a list item: its name, or field[index]
            field = parts.pop() if parts else ""
            parts.append(name(loc[:i + 1]) or f"{field}[{part}]")
        else:
            parts.append(str(part))
    return ".".join(parts) or "(top level)"


def problems(exc: ValidationError, name: Callable[[tuple], str | None] = lambda loc: None) -> list[str]:
    """One ``path: message`` per error. ``name(loc)`` may name a list item (say, by its id) instead of
    ``field[index]``."""
    return [f"{_path(tuple(e['loc']), name)}: {_message(e)}" for e in exc.errors()]


class DuplicateKey(ValueError):
    pass


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when PyYAML has it
    """A safe loader that rejects duplicate mapping keys (PyYAML silently keeps the last one)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise DuplicateKey(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(text: str):
    """Safe YAML; ``yaml.YAMLError`` when it is not YAML, ``DuplicateKey`` when a mapping repeats a key."""
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def read_model(model: type[BaseModel], text: str, source: str, error: type[ValueError], what: str,
               name: Callable[[dict], Callable[[tuple], str | None]] = lambda data: lambda loc: None,
               expected_area: str | None = None):
    """``text`` read strictly as ``model``: not YAML, a repeated key, not a mapping or a bad field is
    ``error`` with one ``source: path: message`` per problem; ``name(data)`` may name list items.
    ``expected_area`` (an area file's stem) must equal the model's ``area``."""
    try:
        data = read_yaml(text)
    except yaml.YAMLError as exc:
        raise error(f"{source}: not valid YAML: {exc}") from exc
    except DuplicateKey as exc:
        raise error(f"{source}: {exc}") from exc
    if not isinstance(data, dict):
        raise error(f"{source}: expected a mapping of {what}; got {type(data).__name__}")
    try:
        parsed = model.model_validate(data)
    except ValidationError as exc:
        raise error("; ".join(f"{source}: {p}" for p in problems(exc, name(data)))) from None
    if expected_area is not None and parsed.area != expected_area:
        raise error(f"{source}: area {parsed.area!r} does not match the file name {expected_area!r}")
    return parsed


def area_files(package: str, folder: str, areas: tuple[str, ...], error: type[ValueError]) -> list[tuple[str, str, str]]:
    """``(area, source, text)`` of every ``<package>/<folder>/<area>.yaml`` in ``areas`` order; a file
    for an area not in ``areas`` is ``error``."""
    root = resources.files(package) / folder
    files = root.iterdir() if root.is_dir() else ()
    entries = {e.name.rsplit(".", 1)[0]: e for e in files if e.name.endswith((".yaml", ".yml"))}
    unknown = sorted(set(entries) - set(areas))
    if unknown:
        raise error(f"{folder} files for unknown areas: {unknown}")
    return [(area, f"{folder}/{entries[area].name}", entries[area].read_text(encoding="utf-8"))
            for area in areas if area in entries]
