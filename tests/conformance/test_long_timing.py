"""Long timing runs, outside the default test run (marker ``long``; ``tox -e phases``, ``tox -e realtime``).

- The whole suite against a `serve` process whose manual clock starts at several phases off a whole
  second, with several check intervals: no verdict may depend on when the target's checks fall.
- The node-lifecycle area in REAL time against `serve` while a bounded CPU burner competes for both
  cores: deadlines are judged with the latency the runner measures, so a loaded machine gives
  0 failed. A runner too late to judge says error (RunnerTooLate): honest, but on a few scenarios
  at most — any other error fails this test, and so does lateness on more than one scenario in ten
  (a runner that could no longer look in time would pass with nothing judged).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

from kube32.conformance.targets.reference import EPOCH
from tests.conftest import FEATURES, run_features

pytestmark = pytest.mark.long


def _verdicts(doc: dict) -> list[tuple[str, str, str]]:
    ran = [s for row in doc["clauses"] for s in row["scenarios"]]
    assert ran, "no scenario ran"
    return [(s["name"], s["status"], s.get("message", "")) for s in ran if s["status"] in ("failed", "error")]


@pytest.mark.parametrize("phase,interval", [(0.0, 0.5), (0.3, 0.5), (0.77, 0.5), (0.3, 0.25), (0.77, 1.0)])
def test_whole_suite_at_a_clock_phase(phase, interval, pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    result, doc = run_features(pytester, tmp_path / "report", "--target", f"process@{EPOCH + phase!r}",
                               "--profile-set", f"lifecycle_check_interval={interval}")
    assert not _verdicts(doc)
    assert result.ret == 0


def _burn(until: float) -> None:
    x = 0
    while time.time() < until:
        x = (x * 31 + 7) % 1000003


@pytest.mark.timeout(3600)   # the run lasts as long as the area's longest scenarios (~11 min at --jobs 8)
def test_node_lifecycle_in_real_time_on_a_loaded_machine(pytester, monkeypatch, tmp_path):
    """Two burners (bounded: they stop by themselves) keep both cores busy during the whole run."""
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    jobs = int(os.environ.get("KUBE32_REALTIME_JOBS", "8"))
    until = time.time() + float(os.environ.get("KUBE32_BURN_SECONDS", "3600"))
    burners = [multiprocessing.Process(target=_burn, args=(until,), daemon=True) for _ in range(2)]
    for b in burners:
        b.start()
    report = tmp_path / "report"
    try:
        done = subprocess.run([sys.executable, "-m", "kube32.conformance", "run", "--target", "process:real",
                               "--area", "node_lifecycle", "--jobs", str(jobs), "-q", "--report", str(report)],
                              capture_output=True, text=True)
    finally:
        for b in burners:
            b.terminate()
            b.join(timeout=10)
    doc = json.loads((report / "clauses.json").read_text())
    bad = _verdicts(doc)
    late = [v for v in bad if v[1] == "error" and v[2].startswith("RunnerTooLate")]
    assert not [v for v in bad if v not in late], done.stdout[-3000:]
    ran = sum(len(row["scenarios"]) for row in doc["clauses"])
    assert len(late) <= ran // 10, late
    print(f"{len(late)} of {ran} scenarios: the runner was too late to judge", *late, sep="\n")
    assert done.returncode == (1 if late else 0), done.stdout[-3000:]
