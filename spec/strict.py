"""Strict pydantic models for the project's YAML files (clause catalogue, trace, rig files), their
validation errors as one line per field (``boards.node-a.role: must be one of control-plane, node``),
and a YAML reader that refuses duplicate keys."""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["DuplicateKey", "Strict", "problems", "read_yaml"]


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
