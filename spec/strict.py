"""Strict pydantic models for the project's YAML files (clause catalogue, rig files), and their
validation errors as one line per field: ``boards.node-a.role: must be one of control-plane, node``."""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["Strict", "problems"]


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
