"""Memory per small pod and the cost of a big LIST, in process.

Run: ``.venv/bin/python benchmarks/scale_bench.py [--pods 50000] [--list 10000] [--baseline REF]``.
A script, not a test. Builds a control plane without loops, measures the process RSS, creates
``--pods`` small pods (admitted as the API admits them, bound to a node, so nothing schedules) and
reports the RSS growth per pod next to the size of one pod's JSON. Then, with ``--list`` pods in a
namespace, times ``GET /api/v1/namespaces/bench/pods`` through the Flask stack (routing, selection,
encoding) next to ``json.dumps`` of the same list (the baseline), best of 5.
Targets: <= 2 KB RSS per small pod at 50,000 pods; LIST within 1.5x of json.dumps.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import _tree  # noqa: E402

_tree.from_environment()                     # --baseline: import the old code

from kube32.reference.app import create_app  # noqa: E402
from kube32.reference.config import Config  # noqa: E402


def rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def small_pod(i: int, ns: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i:06d}", "namespace": ns, "labels": {"app": "blink"}},
            "spec": {"nodeName": f"esp-{i % 100:03d}",
                     "containers": [{"name": "blink", "image": "blink:1",
                                     "resources": {"requests": {"memory": "16Ki"}}}]}}


def create(cp, n: int, ns: str) -> None:
    for i in range(n):
        pod = small_pod(i, ns)
        cp.admit("pods", pod, None, "CREATE")
        cp.store.create("pods", pod)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--list", type=int, default=10000)
    ap.add_argument("--baseline", metavar="REF", help="then run the same on commit REF")
    args = ap.parse_args(argv)
    where = os.environ.get("KUBE32_TREE") or "this checkout"
    app = create_app(Config(run_loops=False))
    cp = app.extensions["kube32"]
    gc.collect()
    before = rss_kb()
    create(cp, args.pods, "default")
    gc.collect()
    grown = (rss_kb() - before) * 1024 / args.pods
    one = len(json.dumps(cp.store.list("pods", "default")[0], separators=(",", ":")))
    print(f"[{where}] {args.pods} small pods: {grown:.0f} B of RSS per pod (its JSON: {one} B)   (target <= 2048)")

    create(cp, args.list, "bench")
    client = app.test_client()
    items = cp.store.list("pods", "bench")
    listing = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items}

    def best(fn) -> float:
        times = []
        for _ in range(5):
            gc.disable()
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
            gc.enable()
        return min(times)

    dumps = best(lambda: json.dumps(listing, separators=(",", ":")))
    served = best(lambda: client.get("/api/v1/namespaces/bench/pods").get_data())
    print(f"[{where}] LIST of {args.list} pods: {served * 1000:.0f} ms; json.dumps of the same list "
          f"{dumps * 1000:.0f} ms; ratio {served / dumps:.2f}x   (target <= 1.5x)")
    if args.baseline:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import _servers

        with _servers.tree(args.baseline) as source:
            subprocess.run([sys.executable, __file__, "--pods", str(args.pods), "--list", str(args.list)],
                           env={**os.environ, "KUBE32_TREE": str(source)}, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
