"""The Gherkin record of each scenario (steps, durations, step locations), and for targets with
boards (rigs) their health after every step and their console logs in the reports."""

from __future__ import annotations

import sys

import pytest

from kube32.conformance import errors
from kube32.conformance.plugin import common
from kube32.conformance.reports import collector
from kube32.conformance.reports.gherkin import SCENARIO_LOG, ScenarioLog


def pytest_bdd_before_scenario(request: pytest.FixtureRequest, feature, scenario) -> None:
    request.node.stash[SCENARIO_LOG] = ScenarioLog(feature, scenario)


def _clock_now(item: pytest.Item) -> float | None:
    ctx = item.stash.get(collector.CONTEXT, None)
    return ctx.timeline.now() if ctx is not None else None


def _step_log(request: pytest.FixtureRequest) -> ScenarioLog | None:
    return request.node.stash.get(SCENARIO_LOG, None)


def pytest_bdd_step_func_lookup_error(request: pytest.FixtureRequest, feature, scenario, step, exception) -> None:
    log = _step_log(request)
    if log is not None:
        log.undefined(step)


def _health_check(request: pytest.FixtureRequest):
    return getattr(request.node.stash.get(common.SCENARIO_TARGET, None), "check_health", None)


def pytest_bdd_before_step(request: pytest.FixtureRequest, feature, scenario, step, step_func) -> None:
    """Steps are timed; a long wait in the step says so; targets with consoles (rigs) mark each step
    in the boards' logs."""
    judge = request.node.stash.get(common.JUDGE, None)
    if judge is not None:
        judge.step = f"{step.keyword} {step.name}".strip()
    log = _step_log(request)
    if log is not None:
        log.started(step, step_func, _clock_now(request.node))
    heartbeat = request.config.stash.get(common.HEARTBEAT, None)
    if heartbeat is not None:
        heartbeat.what = f"{step.keyword} {step.name}".strip()
    note = getattr(request.node.stash.get(common.SCENARIO_TARGET, None), "note", None)
    if note is not None:
        note(f"step: {step.keyword} {step.name}")


def pytest_bdd_before_step_call(request: pytest.FixtureRequest, feature, scenario, step, step_func,
                                step_func_args) -> None:
    """A scenario with node names of its own (naming.py) gets them in every argument."""
    ctx = request.node.stash.get(collector.CONTEXT, None)
    if ctx is not None and ctx.node_names:
        ctx.renamer.arguments(step_func_args)


def pytest_bdd_after_step(request: pytest.FixtureRequest, feature, scenario, step, step_func,
                          step_func_args) -> None:
    """A board that crashed or vanished during the step makes the scenario an ERROR now."""
    log = _step_log(request)
    if log is not None:
        log.ended(step, "passed")
    check = _health_check(request)
    if check is not None:
        check()


def pytest_bdd_step_error(request: pytest.FixtureRequest, feature, scenario, step, step_func, step_func_args,
                          exception) -> None:
    """A step failed: when a board broke meanwhile, that (an ERROR) is the explanation, not the target."""
    log = _step_log(request)
    if log is not None:
        log.ended(step, "failed")
    check = _health_check(request)
    if check is not None and not isinstance(exception, errors.HarnessError):
        check()


def pytest_bdd_after_scenario(request: pytest.FixtureRequest, feature, scenario) -> None:
    """Before the verdict, a target with boards checks every board once more (consoles drained):
    a crash anywhere in the scenario, the last step included, makes it an ERROR."""
    final = getattr(request.node.stash.get(common.SCENARIO_TARGET, None), "final_health_check", None)
    if final is not None and not isinstance(sys.exc_info()[1], errors.CapabilityMissing):
        final()


def attach_logs(item: pytest.Item, report: pytest.TestReport) -> None:
    logs_of = getattr(item.stash.get(common.SCENARIO_TARGET, None), "scenario_logs", None)
    if logs_of is None:
        return
    logs = logs_of()
    if not logs:
        return
    if report.when == "call" and report.failed:
        report.sections.append(("Captured stdout board consoles", "".join(
            f"--- {board} ---\n{text}" for board, text in logs.items())))
    if report.when == "teardown":
        setattr(report, common.LOGS_ATTR, dict(logs))

