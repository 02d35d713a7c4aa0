"""A scenario as the reports show it, taken where it runs (a pytest-xdist worker or the main process):
its feature, rule and tags, and each Gherkin step with its status, duration, target-clock time and
the step function that ran it (``file:line``, Cucumber's ``match.location``)."""

from __future__ import annotations

import inspect
import os
import time
from pathlib import Path

import pytest

import kube32

SCENARIO_LOG = pytest.StashKey["ScenarioLog"]()
_PACKAGE_ROOT = Path(kube32.__file__).resolve().parent.parent


def step_location(func) -> str:
    """``kube32/conformance/steps/pods.py:41`` for a step function (relative to the package root,
    else to the working directory)."""
    try:
        func = inspect.unwrap(func)
        path = Path(inspect.getsourcefile(func) or func.__code__.co_filename).resolve()
        line = func.__code__.co_firstlineno
    except (TypeError, AttributeError):
        return ""
    for base in (_PACKAGE_ROOT, Path.cwd()):
        try:
            return f"{path.relative_to(base).as_posix()}:{line}"
        except ValueError:
            continue
    return f"{path.as_posix()}:{line}"


def _tags(tags) -> list[str]:
    return sorted(str(t) for t in tags or ())


class ScenarioLog:
    """Filled by the pytest-bdd hooks; ``as_dict()`` goes into the scenario's record."""

    def __init__(self, feature, scenario) -> None:
        rule = getattr(scenario, "rule", None)
        self.info = {
            "name": scenario.name,
            "keyword": getattr(scenario, "keyword", "Scenario") or "Scenario",
            "line": scenario.line_number,
            "description": (getattr(scenario, "description", "") or "").strip(),
            "feature": feature.rel_filename.replace(os.sep, "/"),
            "feature_name": feature.name or "",
            "feature_keyword": getattr(feature, "keyword", "Feature") or "Feature",
            "feature_line": getattr(feature, "line_number", 1) or 1,
            "feature_description": (feature.description or "").strip(),
            "feature_tags": _tags(feature.tags),
            "rule": ({"name": rule.name, "keyword": rule.keyword, "tags": _tags(rule.tags)} if rule else None),
            "scenario_tags": _tags(scenario.tags),
        }
        self.steps = [{"keyword": s.keyword, "text": s.name, "line": s.line_number, "status": "skipped",
                       "duration": 0.0, "location": "", "clock": None,
                       **({"docstring": s.docstring} if s.docstring else {}),
                       **({"rows": [list(r) for r in s.datatable.raw()]} if s.datatable else {})}
                      for s in scenario.steps]
        self._index = {id(s): i for i, s in enumerate(scenario.steps)}
        self._started: dict[int, float] = {}

    def _find(self, step) -> dict | None:
        i = self._index.get(id(step))
        if i is None:   # a step object pytest-bdd rebuilt: match on the feature line
            i = next((j for j, s in enumerate(self.steps) if s["line"] == step.line_number), None)
        return None if i is None else self.steps[i]

    def started(self, step, func, clock_now: float | None) -> None:
        entry = self._find(step)
        if entry is not None:
            entry.update(status="running", location=step_location(func) if func else "", clock=clock_now)
            self._started[id(entry)] = time.perf_counter()

    def ended(self, step, status: str) -> None:
        entry = self._find(step)
        if entry is not None:
            begun = self._started.pop(id(entry), None)
            entry["status"] = status
            if begun is not None:
                entry["duration"] = round(time.perf_counter() - begun, 3)

    def undefined(self, step) -> None:
        entry = self._find(step)
        if entry is not None:
            entry["status"] = "undefined"

    def as_dict(self, scenario_failed: bool) -> dict:
        steps = [dict(s) for s in self.steps]
        for s in steps:
            if s["status"] == "running":   # the scenario ended inside it (a harness error, a timeout)
                s["status"] = "failed" if scenario_failed else "passed"
        return {**self.info, "steps": steps}
