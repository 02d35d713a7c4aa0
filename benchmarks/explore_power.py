"""How much ``explore`` finds: each document-level sensitivity fault of an area
(``tests/sensitivity/faults/<module>.py``) and its planted bugs (``tests/explore/faults.py``)
installed in a ``serve`` process, explored with that area for ``--budget`` seconds each;
then every fair variant of the area (another reasonable reading of the document) explored the same
way, where any document-level disagreement is the explorer's own mistake.

Prints, per fault, whether a disagreement was found, after how long and how many steps the shrunk
case has; then found / total, the median time to the first disagreement, the median shrunk length,
and the operations run against the fair variants with their disagreements (must be 0).

Run: ``.venv/bin/python benchmarks/explore_power.py [--area scheduler] [--budget 60] [--only NAME ...]``. A script,
not a test (tests/explore runs one fault)."""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kube32.conformance.explore import areas, session  # noqa: E402
from kube32.conformance.targets.reference import ReferenceTarget  # noqa: E402
from kube32.spec import profiles  # noqa: E402
from tests.explore.faults import FaultyProcessTarget, every_fault  # noqa: E402

FAULT_MODULES = {"scheduler": "scheduler", "node_lifecycle": "node_lifecycle", "deployment": "deployment",
                 "workloads": "workload", "endpoints": "endpoints"}     # explore area -> its faults' module


def _profile(fault: str):
    """The timing profile the fault is shown under (its runner options: e.g. the hardware profile)."""
    args = list(getattr(every_fault()[fault], "args", ()))
    return profiles.load(args[args.index("--profile") + 1] if "--profile" in args else "simulator")


def explore_once(area: str, fault: str, budget: float) -> dict:
    profile = _profile(fault)
    oracle, side = session.open_sides(ReferenceTarget(profile), FaultyProcessTarget(fault, profile))
    began = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as report:
            result = session.Session(oracle, side, [areas.load(area)], seed=0, budget=budget,
                                     report_dir=report, out=io.StringIO()).run()
    finally:
        oracle.target.stop()
        side.target.stop()
    finding = result["finding"]
    return {"fault": fault, "verdict": result["verdict"], "why": result["why"],
            "operations": result["stats"].operations, "seconds": time.monotonic() - began,
            "found_after": finding.found_after if finding else None,
            "steps": len(finding.steps) if finding else None, "clause": finding.clause if finding else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--area", choices=sorted(FAULT_MODULES), default="scheduler")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of search per fault")
    ap.add_argument("--fair-budget", type=float, default=120.0, help="seconds of search per fair variant")
    ap.add_argument("--shrink", type=float, default=10.0,
                    help="seconds of shrinking after the first disagreement (explore's own: a minute at least)")
    ap.add_argument("--only", action="append", help="these faults only (repeatable)")
    args = ap.parse_args(argv)
    session.HYPOTHESIS_SHRINK, session.SHRINK_MIN = args.shrink / 2, args.shrink
    faults = every_fault()
    module = f"tests.sensitivity.faults.{FAULT_MODULES[args.area]}"
    planted = [n for n, f in faults.items() if getattr(f, "area", None) == args.area]
    breaking = sorted(n for n, f in faults.items() if getattr(f, "module", "") == module
                      and not f.fair and f.level == "document")
    fair = sorted(n for n, f in faults.items() if getattr(f, "module", "") == module and f.fair)
    if args.only:
        planted, breaking, fair = ([n for n in group if n in args.only] for group in (planted, breaking, fair))
    rows = []
    for name in [*planted, *breaking]:
        row = explore_once(args.area, name, args.budget)
        rows.append(row)
        print(f"  {'FOUND ' if row['found_after'] is not None else 'missed'} {name:55} "
              + (f"after {row['found_after']:5.1f} s, {row['steps']:2} steps, {row['clause']}"
                 if row["found_after"] is not None else f"({row['operations']} operations, {row['why']})"),
              flush=True)
    found = [r for r in rows if r["found_after"] is not None]
    if rows:
        print(f"found {len(found)} of {len(rows)} ({100 * len(found) / len(rows):.0f} %); median time to the first "
              f"disagreement {statistics.median(r['found_after'] for r in found) if found else float('nan'):.1f} s; "
              f"median shrunk length {statistics.median(r['steps'] for r in found) if found else float('nan'):.0f} steps")
    operations = wrong = 0
    for name in fair:
        row = explore_once(args.area, name, args.fair_budget)
        operations += row["operations"]
        wrong += row["found_after"] is not None
        print(f"  fair {name:55} {row['operations']} operations, "
              + (f"DISAGREEMENT {row['clause']}" if row["found_after"] is not None else "no disagreement"),
              flush=True)
    if fair:
        print(f"fair variants: {len(fair)}, {operations} operations, {wrong} with a document-level disagreement")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
