"""The terminal's line per scenario: verdict, clause IDs, feature path and line, name, duration."""

from __future__ import annotations

from kube32.conformance.reports.collector import ScenarioResult

MARKUP = {"passed": {"green": True}, "failed": {"red": True, "bold": True}, "error": {"red": True},
          "deviation": {"purple": True}, "disabled": {"yellow": True}}


def scenario_line(result: ScenarioResult) -> tuple[str, dict]:
    """``PASSED   SCHED-TIE-BREAK  scheduler/scoring.feature:23  three identical nodes … (2.9 s)``;
    pytest's terminal writer drops the markup when the output is not a terminal."""
    clauses = ",".join(result.clauses) or "-"
    line = f"{result.status.upper():9} {clauses}  {result.feature}:{result.line}  {result.name}  " \
           f"({result.duration:.1f} s)"
    if result.status == "disabled" and result.message:
        line += f"  [{result.message}]"
    return line, MARKUP.get(result.status, {})
