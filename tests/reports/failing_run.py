"""A failing run of real features against the in-process reference, broken on purpose by two
sensitivity faults (a scheduler rule and an eviction deadline): the report tests' material, and
how docs/img's screenshots are made.

    python -m tests.reports.failing_run REPORT_DIR
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FAULTS = ("sched-tie-break-descending", "evict-two-checks-late")
CLAUSES = ("SCHED-TIE-BREAK", "SCHED-BIND-ON-CREATE", "NODE-EVICT-AT-TOLERATION-EXPIRY", "KUBELET-LEASE-RENEWAL")
REPO = Path(__file__).resolve().parents[2]


def main(report: str) -> int:
    from tests.conftest import FEATURES
    from tests.sensitivity.registry import load_all

    faults = load_all()
    mp = pytest.MonkeyPatch()
    mp.setenv("KUBE32_FEATURES", str(FEATURES))
    for name in FAULTS:
        faults[name].apply(mp)
    return int(pytest.main(["--pyargs", "kube32.conformance.bind", "-p", "no:cacheprovider", "-p", "no:xdist",
                            "-o", "addopts=", "-q", "--report", report, "-m", "not realtime",
                            *(f"--clause={c}" for c in CLAUSES)]))


def run(report: Path) -> subprocess.CompletedProcess:
    """The failing run in a fresh interpreter (faults patch modules: keep them out of this one)."""
    return subprocess.run([sys.executable, "-m", "tests.reports.failing_run", str(report)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
