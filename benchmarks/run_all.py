"""Run every fleet-scale benchmark (issue 14), each next to its baseline, one after another: one that
fails does not stop the others; the summary at the end names each one's exit status (and this script
exits 1 if any failed). ``tox -e bench`` runs this.

Run: ``.venv/bin/python benchmarks/run_all.py [--baseline 6091935] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benchmarks(baseline: str) -> list[tuple[str, list[str]]]:
    return [
        ("scheduler_bench", ["scheduler_bench.py", "--baseline", baseline]),
        ("request_cpu", ["request_cpu.py", "--baseline", baseline]),
        ("scale_bench", ["scale_bench.py", "--baseline", baseline]),
        ("watch_load 1000", ["watch_load.py", "--watchers", "1000", "--seconds", "20"]),
        ("watch_load 100", ["watch_load.py", "--watchers", "100", "--seconds", "5", "--baseline", baseline]),
        ("schedule_load", ["schedule_load.py", "--baseline", baseline]),
        ("fleet_load", ["fleet_load.py", "--nodes", "5000", "--seconds", "120", "--baseline", baseline]),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="6091935", metavar="REF")
    ap.add_argument("--only", nargs="*", help="run only these (names as in the summary)")
    args = ap.parse_args(argv)
    summary = []
    for name, cmd in benchmarks(args.baseline):
        if args.only and name not in args.only and name.split()[0] not in args.only:
            continue
        print(f"\n===== {name}: {' '.join(cmd)}  (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})",
              flush=True)
        t0 = time.monotonic()
        code = subprocess.call([sys.executable, str(HERE / cmd[0]), *cmd[1:]])
        summary.append((name, code, time.monotonic() - t0))
    print("\n===== summary")
    for name, code, took in summary:
        print(f"  {name:<16} {'ok' if code == 0 else f'FAILED (exit {code})':<16} {took:5.0f} s")
    return 1 if any(code for _, code, _ in summary) else 0


if __name__ == "__main__":
    raise SystemExit(main())
