"""Step lint: every step line of every feature must match exactly ONE step definition, and a scenario
that uses a step declaring capabilities (``steps._util.needs``) carries their ``@needs-`` tags.

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
    kind: str          # "ambiguous" | "undefined" | "untagged-need"
    where: str
    text: str
    matches: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.kind == "untagged-need":
            return f"{self.kind}: {self.where}: {self.text!r} needs {', '.join(self.matches)} on its scenario"
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
    matches: dict[tuple[str, str], list] = {}
    for sc in suite.scenarios(base):
        for step_type, text, line in sc.steps:
            if (step_type, text) not in matches:
                matches[step_type, text] = [d for d in defs
                                            if d.type in (step_type, None) and d.parser.is_matching(text)]
            matching = matches[step_type, text]
            where = f"{sc.feature}:{line}"
            missing = sorted({n for d in matching for n in getattr(d.step_func, "kube32_needs", ())} - set(sc.needs))
            if missing:
                problems.append(StepProblem("untagged-need", where, f"{step_type.capitalize()} {text}", tuple(
                    f"@{suite.NEEDS_PREFIX}{n}" for n in missing)))
            if (step_type, text) in seen:
                continue
            seen.add((step_type, text))
            names = tuple(sorted({f"{d.step_func.__module__}.{d.step_func.__name__}" for d in matching}))
            if not matching:
                problems.append(StepProblem("undefined", where, f"{step_type.capitalize()} {text}"))
            elif len(names) > 1:
                problems.append(StepProblem("ambiguous", where, f"{step_type.capitalize()} {text}", names))
    return problems
