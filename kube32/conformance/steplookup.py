"""pytest-bdd's step lookup, remembered.

For every step of every scenario pytest-bdd asks pytest for the definitions of every fixture name
(hundreds), tries the parser of each step definition on the step's text, injects the matches as a
temporary fixture and asks pytest for its value: ~15 % of a manual-clock run's CPU, and the same
answer each time the same text is looked up in the same module. Step definitions are fixtures
registered while collecting, before the first scenario runs, and a step definition's fixture only
returns its (constant) step function context, so the answer is remembered per pytest session (in
its config's stash) and per (step type, step text, the scenario's parent node: module or class, what
fixture visibility depends on besides the item itself). Fixtures injected into an item
(``target_fixture``) are values, never step definitions.
"""

from __future__ import annotations

import importlib

import pytest

bdd_scenario = importlib.import_module("pytest_bdd.scenario")   # the package's `scenario` is a function
_ORIGINAL = getattr(bdd_scenario, "get_step_function", None)
FOUND = pytest.StashKey[dict]()      # (step type, text, parent node) -> StepFunctionContext | None


def get_step_function(request: pytest.FixtureRequest, step):
    node = request.node
    known = node.config.stash.setdefault(FOUND, {})
    key = (step.type, step.name, node.parent or node)
    if key not in known:
        known[key] = _ORIGINAL(request=request, step=step)
    return known[key]


def install() -> None:
    """Put the remembering lookup where pytest-bdd calls it (once; a pytest-bdd without the function
    keeps its own lookup)."""
    if _ORIGINAL is not None:
        bdd_scenario.get_step_function = get_step_function
