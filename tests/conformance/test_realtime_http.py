"""The node lifecycle timeline in REAL time over HTTP: the reference runs as a `serve` process with
a real clock and short timeouts, and the runner, told the same numbers, waits instead of jumping.
Only scenarios tagged @realtime (time said through profile durations) are selected."""

from __future__ import annotations

import json

from tests.conftest import FEATURES

SHORT = {
    "lease_duration": 2,
    "lease_renew_interval": 0.5,
    "lifecycle_check_interval": 0.25,
    "noexecute_delay": 2,
    "default_toleration_seconds": 3,
    "reconcile_interval": 0.5,
}


def test_lifecycle_timeline_in_real_time(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    report = tmp_path / "report"
    args = ["--pyargs", "kube32.conformance.bind", "-p", "no:cacheprovider", "-q", "--report", str(report),
            "--target", "process:real", "-m", "realtime", "--area", "node_lifecycle"]
    for field, value in SHORT.items():
        args += ["--profile-set", f"{field}={value}"]
    result = pytester.runpytest_inprocess(*args)
    doc = json.loads((report / "clauses.json").read_text())
    assert doc["target"]["clock"] == "real"
    ran = [s for row in doc["clauses"] for s in row["scenarios"]]
    assert ran, "no @realtime node lifecycle scenario ran"
    bad = [(s["name"], s["status"], s.get("message")) for s in ran if s["status"] not in ("passed", "disabled")]
    assert not bad, bad
    assert result.ret == 0
