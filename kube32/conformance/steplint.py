"""Step lint: every step line of every feature must match exactly ONE step definition.

pytest-bdd silently picks one definition when two match a line (pytest-dev/pytest-bdd #449, #608),
so an ambiguity is a bug that hides; an unmatched line fails only when its scenario runs.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

from pytest_bdd.steps import step_function_context_registry

from kube32.conformance import steps, suite


@dataclasses.dataclass(frozen=True)
class StepProblem:
    kind: str          # "ambiguous" | "undefined"
    where: str
    text: str
    matches: tuple[str, ...] = ()

    def __str__(self) -> str:
        extra = f" (matched by {', '.join(self.matches)})" if self.matches else ""
        return f"{self.kind}: {self.where}: {self.text!r}{extra}"


def definitions() -> list:
    for module in pkgutil.iter_modules(steps.__path__):
        importlib.import_module(f"{steps.__name__}.{module.name}")
    prefix = steps.__name__ + "."
    return [ctx for ctx in list(step_function_context_registry.values())
            if getattr(ctx.step_func, "__module__", "").startswith(prefix)]


def check(base=None) -> list[StepProblem]:
    defs = definitions()
    problems: list[StepProblem] = []
    seen: set[tuple[str, str]] = set()
    for sc in suite.scenarios(base):
        for step_type, text, line in sc.steps:
            if (step_type, text) in seen:
                continue
            seen.add((step_type, text))
            matching = [d for d in defs if d.type in (step_type, None) and d.parser.is_matching(text)]
            where = f"{sc.feature}:{line}"
            names = tuple(sorted({f"{d.step_func.__module__}.{d.step_func.__name__}" for d in matching}))
            if not matching:
                problems.append(StepProblem("undefined", where, f"{step_type.capitalize()} {text}"))
            elif len(names) > 1:
                problems.append(StepProblem("ambiguous", where, f"{step_type.capitalize()} {text}", names))
    return problems
