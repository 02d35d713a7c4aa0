"""Requests and wall time of a conformance run over HTTP, through a counting (and delaying) proxy.

    python -m benchmarks.suite_requests [--delay 0.02] [--area A ...] [--runner-path DIR] [--jobs N]

Starts `serve` (manual clock, simulator profile), puts tests.proxy in front of it and runs
``kube32-conformance run --target http://<proxy>`` as a user would. ``--runner-path`` runs another
checkout's runner (e.g. a baseline commit) against the same server and proxy, for back-to-back
before/after figures. Prints one JSON line: requests, seconds, verdict counts, busiest routes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from kube32.conformance.targets.process import ServeProcess
from kube32.conformance.targets.reference import EPOCH
from kube32.spec import profiles
from tests.proxy import Proxy


def measure(delay: float = 0.0, areas: tuple[str, ...] = (), runner_path: str | None = None,
            extra: tuple[str, ...] = ()) -> dict:
    serve = ServeProcess(profiles.load("simulator"), "manual")
    serve.start(EPOCH)
    try:
        with Proxy(serve.url, delay=delay) as proxy, tempfile.TemporaryDirectory() as report:
            cmd = [sys.executable, "-m", "kube32.conformance", "run", "--target", proxy.url, "-q",
                   "--report", report, *(a for area in areas for a in ("--area", area)), *extra]
            env = dict(os.environ)
            if runner_path:
                env["PYTHONPATH"] = runner_path + os.pathsep + env.get("PYTHONPATH", "")
            started = time.monotonic()
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=runner_path)
            seconds = time.monotonic() - started
            with open(os.path.join(report, "clauses.json")) as fh:
                summary = json.load(fh)["summary"]["scenarios"]
            return {"delay": delay, "areas": list(areas), "runner": runner_path or "this checkout",
                    "requests": proxy.count, "seconds": round(seconds, 1), "exit": done.returncode,
                    "scenarios": summary, "routes": proxy.by_route(12)}
    finally:
        serve.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds the proxy adds to every answer")
    parser.add_argument("--area", action="append", default=[])
    parser.add_argument("--runner-path", default=None, help="a checkout whose runner to measure instead")
    parser.add_argument("extra", nargs="*", help="more `run` arguments after --")
    args = parser.parse_args()
    print(json.dumps(measure(args.delay, tuple(args.area), args.runner_path, tuple(args.extra))))


if __name__ == "__main__":
    main()
