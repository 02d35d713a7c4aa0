"""With pytest-xdist workers running the scenarios, the controller merges their records and writes
the same reports (verdicts, steps with locations, the terminal line per scenario)."""

from __future__ import annotations

import json

from tests.conftest import feature_dir, run_features, statuses
from tests.runner.test_verdicts import FEATURE


def test_workers_records_reach_the_reports(pytester, monkeypatch, tmp_path):
    feature_dir(tmp_path, monkeypatch, "verdicts.feature", FEATURE)
    result, doc = run_features(pytester, tmp_path / "report", "-n", "2", "-p", "no:randomly")
    got = statuses(doc)
    assert (got["SCHED-BIND-ON-CREATE"], got["SCHED-TIE-BREAK"], got["KUBELET-LEASE-RENEWAL"]) == \
        ("passed", "failed", "disabled")
    assert doc["run"]["complete"] is True
    # the controller runs no target of its own: the workers' description of it reaches the report
    assert (doc["target"]["name"], doc["target"]["clock"], doc["profile"]) == ("reference", "manual", "simulator")
    cucumber = json.loads((tmp_path / "report" / "cucumber.json").read_text())
    steps = [s for e in cucumber[0]["elements"] for s in e["steps"]]
    assert any(s["result"]["status"] == "failed" and s["match"]["location"].startswith("kube32/conformance/steps/")
               for s in steps)
    assert "FAILED    SCHED-TIE-BREAK  features/verdicts.feature:" in result.stdout.str()
