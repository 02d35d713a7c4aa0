"""Several rigs in parallel vs one: the real-time lifecycle + kubelet features on one short-timeout
virtual rig, then on two (``run --rig A --rig B``: one pytest-xdist worker per rig), in the same run.

    python -m benchmarks.rigs_parallel            # prints both wall times and the ratio
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.harness.rigrun import profile_args, short_rig

SELECTION = "realtime or needs-real-kubelet"


def run(rig_files: list[Path], report: Path) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "kube32.conformance.cli", "run", "-q", "--report", str(report), "--tags", SELECTION,
           *profile_args()]
    for f in rig_files:
        cmd += ["--rig", str(f)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    elapsed = time.monotonic() - t0
    doc = json.loads((report / "clauses.json").read_text())
    statuses = [s["status"] for c in doc["clauses"] for s in c["scenarios"]]
    return elapsed, {"exit": proc.returncode, "scenarios": len(statuses),
                     "passed": statuses.count("passed")}


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="k32-rigs-bench-"))
    with short_rig(work / "a", prefix="a-") as a, short_rig(work / "b", prefix="b-") as b:
        one, one_info = run([a.rig_path], work / "one")
        two, two_info = run([a.rig_path, b.rig_path], work / "two")
    print(f"one rig : {one:7.1f} s  {one_info}")
    print(f"two rigs: {two:7.1f} s  {two_info}")
    print(f"speed-up: {one / two:.2f}x")


if __name__ == "__main__":
    main()
