"""A scenario's verdict from what pytest saw: ``failed`` (the target broke a clause), ``error``
(the harness, the network or a board did), ``disabled``, ``passed``; per clause and level, with
deviations and the level that decides; and its record for the reports."""

from __future__ import annotations

import pytest

from kube32.conformance import errors, explanation, levels
from kube32.conformance.levels import Verdict
from kube32.conformance.plugin import common, record
from kube32.conformance.reports import collector
from kube32.conformance.reports.gherkin import SCENARIO_LOG
from kube32.conformance.suite import item_clauses


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A scenario whose soft checks (``k32.judging``) failed at the chosen level fails at its end."""
    result = yield
    judge = pyfuncitem.stash.get(common.JUDGE, None)
    if judge is not None:
        failing = judge.failing(pyfuncitem.config.getoption("--level"), common.clause_levels(pyfuncitem.config))
        if failing:
            raise levels.SoftFailures(failing)
    return result


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not common.is_scenario(item):
        return
    verdict = None
    if report.failed:
        exc = call.excinfo.value if call.excinfo else None
        if isinstance(exc, errors.CapabilityMissing):
            report.outcome, report.longrepr = "skipped", (str(item.path), item.location[1] or 0,
                                                          f"disabled: {exc}")
            verdict = Verdict.DISABLED
        elif isinstance(exc, AssertionError) and call.when in ("setup", "call"):
            verdict = Verdict.FAILED
        else:
            verdict = Verdict.ERROR
            if isinstance(exc, errors.HarnessError):   # one line, not the network stack's traceback
                report.longrepr = f"{type(exc).__name__}: {exc}"
    elif report.skipped and call.when in ("setup", "call"):
        verdict = Verdict.DISABLED
    elif report.passed and call.when == "call":
        verdict = Verdict.PASSED
    if verdict in (Verdict.FAILED, Verdict.DEVIATION) and call.excinfo is not None:
        explained = _explain(item, call.excinfo.value)
        if verdict == Verdict.FAILED and item.config.option.tbstyle not in ("long", "native"):
            # the explanation instead of the runner's frames (--tb=long keeps pytest's traceback)
            report.longrepr = explanation.ExplainedFailure(explained, call.excinfo.value, str(item.path),
                                                           item.location[1] or 0)
    if verdict is not None:
        item.config.stash[common.REACH].scenario_ended(verdict, call.excinfo.value if call.excinfo else None)
        per_clause = _clause_verdicts(item, call, verdict)
        verdict = _chosen(item, report, verdict, per_clause)
        item.stash[common.VERDICT] = verdict
        where = getattr(item.stash.get(common.SCENARIO_TARGET, None), "scenario_where", None)
        item.config.stash[collector.COLLECTOR].record(item, verdict, report, where=where() if where else None,
                                                      judge=item.stash.get(common.JUDGE, None), by_clause=per_clause)
    record.attach_logs(item, report)


def _explain(item: pytest.Item, exc: BaseException) -> dict | None:
    """Build, stash and return the failure explanation; never let it change the verdict."""
    log = item.stash.get(SCENARIO_LOG, None)
    try:
        built = explanation.build(exc, item_clauses(item), item.config.stash[collector.CATALOGUE],
                                  log.as_dict(True)["steps"] if log is not None else [],
                                  item.stash.get(collector.CONTEXT, None))
    except Exception as problem:   # noqa: BLE001 - an explanation is a courtesy, the verdict stands
        built = {"actual": str(exc), "explanation problem": repr(problem)}
    item.stash[collector.EXPLANATION] = built
    return built


def _clause_verdicts(item: pytest.Item, call: pytest.CallInfo, verdict: Verdict) -> dict[str, dict[str, str]]:
    """clause -> {document: ..., reference: ...} for this scenario. An assertion that ended the
    scenario counts against all its clauses; declared deviations turn "failed" into "deviation"."""
    judge = item.stash.get(common.JUDGE, None)
    if judge is None or call.when != "call" or verdict not in (Verdict.PASSED, Verdict.FAILED):
        return {c: dict.fromkeys(levels.LEVELS, verdict) for c in item_clauses(item)}
    exc = call.excinfo.value if call.excinfo else None
    if verdict == Verdict.FAILED and not isinstance(exc, levels.SoftFailures):
        judge.add(None, levels.DOCUMENT, str(exc))
    deviations = common.deviations(item.config)
    return {c: {level: Verdict.DEVIATION if v == Verdict.FAILED and c in deviations else v for level, v in by_level.items()}
            for c, by_level in judge.verdicts(common.clause_levels(item.config)).items()}


def _chosen(item: pytest.Item, report: pytest.TestReport, verdict: Verdict,
            per_clause: dict[str, dict[str, str]]) -> Verdict:
    """The scenario's verdict at the chosen level. A failure only at the other level, or only of
    declared deviations, does not fail the run (pytest shows it as xfail with the reason)."""
    if verdict not in (Verdict.PASSED, Verdict.FAILED) or not per_clause:
        return verdict
    level = item.config.getoption("--level")
    chosen = Verdict(collector.combine(v[level] for v in per_clause.values()))
    if verdict == Verdict.FAILED and chosen != Verdict.FAILED:
        report.outcome, report.longrepr = "skipped", None
        deviations = common.deviations(item.config)
        declared = sorted(c for c, v in per_clause.items() if v[level] == Verdict.DEVIATION)
        report.wasxfail = ("deviation: " + "; ".join(f"{c}: {deviations[c]}" for c in declared) if declared
                           else f"fails only at reference level (not judged at --level {level})")
    return chosen

