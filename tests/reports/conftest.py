"""Fixtures of the report tests: one failing run shared by the whole session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reports import failing_run as failing


@pytest.fixture(scope="session")
def failing_run(tmp_path_factory) -> Path:
    """The report directory of tests/reports/failing_run.py's run."""
    report = tmp_path_factory.mktemp("failing-run") / "report"
    proc = failing.run(report)
    assert proc.returncode == 1, f"the failing run should fail:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    doc = json.loads((report / "clauses.json").read_text())
    assert doc["summary"]["clauses"]["failed"] >= 2, proc.stdout[-3000:]
    (report / "stdout.txt").write_text(proc.stdout)
    return report
