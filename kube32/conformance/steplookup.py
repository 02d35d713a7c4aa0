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

A text not met before is still looked up as pytest-bdd does, but the step definitions a parent node
sees are listed once, not asked of pytest name by name for each text (~120 names: three quarters of
a lookup's cost).
"""

from __future__ import annotations

import importlib

import pytest

bdd_scenario = importlib.import_module("pytest_bdd.scenario")   # the package's `scenario` is a function
_ORIGINAL = getattr(bdd_scenario, "get_step_function", None)
_ORIGINAL_FIND = getattr(bdd_scenario, "find_fixturedefs_for_step", None)
FOUND = pytest.StashKey[dict]()      # (step type, text, parent node) -> StepFunctionContext | None
VISIBLE = pytest.StashKey[dict]()    # parent node -> [(FixtureDef, StepFunctionContext)] of its step definitions


def get_step_function(request: pytest.FixtureRequest, step):
    node = request.node
    known = node.config.stash.setdefault(FOUND, {})
    key = (step.type, step.name, node.parent or node)
    if key not in known:
        known[key] = _ORIGINAL(request=request, step=step)
    return known[key]


def find_fixturedefs_for_step(step, fixturemanager, node):
    """pytest-bdd's ``find_fixturedefs_for_step``: the definitions visible to ``node`` that parse the
    step, in its order, from the list of the parent's step definitions."""
    listed = node.config.stash.setdefault(VISIBLE, {})
    parent = node.parent or node
    if parent not in listed:
        contexts = bdd_scenario.step_function_context_registry
        listed[parent] = [(fixturedef, contexts[fixturedef.func])
                          for name in bdd_scenario.get_fixture_names(fixturemanager=fixturemanager)
                          for fixturedef in bdd_scenario.getfixturedefs(fixturemanager, name, node) or []
                          if fixturedef.func in contexts]
    for fixturedef, context in listed[parent]:
        if (context.type is None or context.type == step.type) and context.parser.is_matching(step.name):
            yield fixturedef


def install() -> None:
    """Put the remembering lookup where pytest-bdd calls it (once; a pytest-bdd without these
    functions keeps its own lookup)."""
    if _ORIGINAL is not None:
        bdd_scenario.get_step_function = get_step_function
    if _ORIGINAL_FIND is not None and all(hasattr(bdd_scenario, name) for name in (
            "get_fixture_names", "getfixturedefs", "step_function_context_registry")):
        bdd_scenario.find_fixturedefs_for_step = find_fixturedefs_for_step
