"""Several rigs in parallel vs one: the real-time lifecycle + kubelet features on one short-timeout
virtual rig, then on two (``run --rig A --rig B``: one pytest-xdist worker per rig), in the same run.

    python -m benchmarks.rigs_parallel [--rounds N] [--same-process] [--timing short|hardware] [--one-rig-jobs]

``--one-rig-jobs`` measures ``run --rig R --jobs 2`` against ``--jobs 1`` on one rig with four node
boards instead (two workers, each playing node-a/node-b with boards of its own; the control-plane
restart in a serial phase at the end).

``--timing short`` (default) is the tests' short-timeout rig: the set lasts about a minute, so the
runner's fixed start-up weighs; ``--timing hardware`` is the hardware profile as a real bench runs it
(leases of 15 s, 300 s default tolerations: ~19 minutes on one rig), where the scenarios dominate and
the limit is how evenly the three ~340 s scenarios split over the rigs.

Each virtual rig runs in a process of its own, as real rigs are boards with CPUs of their own (with
``--same-process`` both share this one, and so one interpreter lock, as in the tests). Besides the wall
time it prints, per run, the scenario seconds each rig spent (from clauses.json) and the rest
("fixed": start-up, preflight, xdist workers, rig start, per-scenario set-up, teardown), which does not
shrink with more rigs; and the machine's load average, since the virtual boards share its cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.harness.rigrun import NODES, SHORT, profile_args, short_rig

SELECTION = "realtime or needs-real-kubelet"


TIMINGS = {"short": SHORT, "hardware": None}


def run(rig_files: list[Path], report: Path, timing: dict | None, jobs: int = 1) -> dict:
    cmd = [sys.executable, "-m", "kube32.conformance.cli", "run", "-q", "--report", str(report), "--tags", SELECTION,
           "--jobs", str(jobs), *profile_args(timing)]
    for f in rig_files:
        cmd += ["--rig", str(f)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    elapsed = time.monotonic() - t0
    doc = json.loads((report / "clauses.json").read_text())
    seen: dict[str, dict] = {}
    for clause in doc["clauses"]:
        for s in clause["scenarios"]:
            seen.setdefault(s["nodeid"], s)
    per_rig: dict[str, float] = {}
    for s in seen.values():   # per rig, or with --jobs on one rig per worker's node boards
        rig = Path(s["where"]["rig"]).parent.name
        if jobs > 1:
            rig += ":" + "+".join(b.split("-", 1)[1] for b in s["where"]["boards"] if "node" in b)
        per_rig[rig] = per_rig.get(rig, 0.0) + s["duration"]
    statuses = [s["status"] for s in seen.values()]
    return {"wall": elapsed, "load": os.getloadavg()[0], "exit": proc.returncode, "scenarios": len(statuses),
            "passed": statuses.count("passed"), "per_rig": per_rig, "fixed": elapsed - max(per_rig.values(), default=0.0)}


def say(name: str, r: dict) -> str:
    rigs = "  ".join(f"{rig}: {s:5.1f} s" for rig, s in sorted(r["per_rig"].items()))
    return (f"{name}: {r['wall']:6.1f} s  (scenarios per rig: {rigs}; fixed {r['fixed']:4.1f} s)  "
            f"exit {r['exit']}, {r['passed']}/{r['scenarios']} passed, load {r['load']:.2f} after")


def _serve_rig(workdir: str, prefix: str, timing: dict | None, nodes: tuple[str, ...], ready, stop) -> None:
    """A child process: one virtual rig until ``stop`` is set; its rig file's path through ``ready``."""
    with short_rig(Path(workdir), prefix=prefix, timing=timing, nodes=nodes) as vrig:
        ready.put(str(vrig.rig_path))
        stop.wait()


@contextlib.contextmanager
def rig_process(workdir: Path, prefix: str, timing: dict | None, nodes: tuple[str, ...] = NODES):
    """A virtual rig in a process of its own (spawned: nothing of this process is shared); its rig file."""
    ctx = multiprocessing.get_context("spawn")
    ready, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_serve_rig, args=(str(workdir), prefix, timing, nodes, ready, stop), daemon=True)
    proc.start()
    try:
        yield Path(ready.get(timeout=300))
    finally:
        stop.set()
        proc.join(timeout=60)
        if proc.is_alive():
            proc.kill()


@contextlib.contextmanager
def rig_here(workdir: Path, prefix: str, timing: dict | None, nodes: tuple[str, ...] = NODES):
    with short_rig(workdir, prefix=prefix, timing=timing, nodes=nodes) as vrig:
        yield vrig.rig_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="1-rig / 2-rig pairs, back to back")
    parser.add_argument("--same-process", action="store_true",
                        help="both virtual rigs in this process (one interpreter lock), as in the tests")
    parser.add_argument("--timing", choices=sorted(TIMINGS), default="short",
                        help="short: the tests' short-timeout rigs; hardware: the hardware profile as it is")
    parser.add_argument("--one-rig-jobs", action="store_true",
                        help="one rig with four node boards, run --jobs 1 against --jobs 2 (its boards shared out)")
    args = parser.parse_args()
    timing = TIMINGS[args.timing]
    work = Path(tempfile.mkdtemp(prefix="k32-rigs-bench-"))
    rig = rig_here if args.same_process else rig_process
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs); "
          f"virtual rigs {'in this process' if args.same_process else 'in a process each'}, {args.timing} timing")
    if args.one_rig_jobs:
        with rig(work / "q", "q-", timing, NODES + ("node-c", "node-d")) as q:
            for n in range(args.rounds):
                one = run([q], work / f"jobs1-{n}", timing)
                two = run([q], work / f"jobs2-{n}", timing, jobs=2)
                print(say("--jobs 1", one))
                print(say("--jobs 2", two))
                print(f"speed-up: {one['wall'] / two['wall']:.2f}x   "
                      f"load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        return
    with rig(work / "a", "a-", timing) as a, rig(work / "b", "b-", timing) as b:
        for n in range(args.rounds):
            one = run([a], work / f"one-{n}", timing)
            two = run([a, b], work / f"two-{n}", timing)
            print(say("one rig ", one))
            print(say("two rigs", two))
            print(f"speed-up: {one['wall'] / two['wall']:.2f}x   "
                  f"load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
