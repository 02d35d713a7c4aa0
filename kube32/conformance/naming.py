"""Each scenario's own node names on a target other runs share (``run --jobs N`` against a URL).

Node names are cluster-wide, so two scenarios that both register the features' ``node-a`` cannot
run side by side on one server. A scenario that shares the target (it does not need the whole node
set or a restart: parallel.py) therefore runs with its nodes renamed ``<feature name>-<scenario
id>`` (``node-a`` -> ``node-a-3f2c9a1b``): every step argument, table cell and docstring the
scenario's steps receive says the real name, so messages, events, selectors and ``nodeName`` fields
agree with what the target sees. The document permits any node name; the one order it gives
between names (ties go to the alphabetically first) is kept, as every name of a scenario gets the
same suffix and ``-`` sorts before any letter or digit. The reports show both names.

The scenario's node names are those its steps declare: quoted after ``node``/``nodes`` and in the
``name`` column of a table given to a step about nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_QUOTED = re.compile(r'\bnodes? "([^"]+)"')
_SPLIT = re.compile(r"[\s,+]+")
_NAME = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$")


def declared(steps: Iterable) -> list[str]:
    """Node names the steps (pytest-bdd ``Step`` objects, Examples filled in) declare, in order."""
    names: dict[str, None] = {}
    for step in steps:
        for quoted in _QUOTED.findall(step.name):
            names.update((n, None) for n in _SPLIT.split(quoted) if _NAME.match(n))
        table = step.datatable.raw() if step.datatable is not None else None
        if table and "node" in step.name and "name" in (cell.strip() for cell in table[0]):
            column = [cell.strip() for cell in table[0]].index("name")
            names.update((row[column].strip(), None) for row in table[1:] if _NAME.match(row[column].strip()))
    return list(names)


def own_names(names: Iterable[str], scenario_id: str) -> dict[str, str]:
    """Feature name -> the name this scenario uses on the target."""
    return {name: f"{name}-{scenario_id}" for name in names}


class Renamer:
    """Rewrites whole names (never part of a longer name such as ``node-ab`` or ``kube-node-a``)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        self._pattern = re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w-])") if names else None

    def text(self, text: str) -> str:
        return self._pattern.sub(lambda m: self.names[m[0]], text) if self._pattern else text

    def value(self, value):
        """A step argument: text, a datatable (rows of cells) or anything else (left as it is)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list) and all(isinstance(row, list) for row in value):
            return [[self.text(c) if isinstance(c, str) else c for c in row] for row in value]
        return value

    def arguments(self, kwargs: dict) -> None:
        """Rewrite a step's arguments in place (pytest-bdd calls the step with this dict)."""
        for key, value in kwargs.items():
            kwargs[key] = self.value(value)
