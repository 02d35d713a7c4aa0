"""How much one scheduling decision costs at 10, 100 and 1,000 Ready nodes, distinct and identical.

Run: ``.venv/bin/python benchmarks/scheduler_bench.py [--baseline REF]``. A script, not a test: it
prints, for each cluster size and for boards with distinct figures and with identical ones (where
every node ties and the tie is settled exactly), the cost of one decision (filters + score + pick over every node, warm cache) next
to the cost of one plain Python pass over the same node list measured in the same run, and the
ratio. Each node carries two Running pods already in its report, so a decision that scanned pods
per node or re-parsed quantities would show up in the ratio. Also printed: the decision plus its
explanation annotation (JSON of every node's verdict), a full pass (nothing kept from the decision
before: what a pod of a new shape costs; the old code's only kind), and a pass that parses each
node's memory.

Target (issue 4): at 1,000 nodes a decision costs at most ~5x the plain pass, growing linearly;
identical boards (issue 14) cost no more than distinct ones. ``--baseline REF`` runs the same script
on the commit REF (a temporary worktree) afterwards, for the ratio against the old code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _tree  # noqa: E402

_tree.from_environment()                     # --baseline: import the old code

from kube32.reference.clock import ManualClock  # noqa: E402
from kube32.reference.events import EventRecorder  # noqa: E402
from kube32.reference.scheduler import framework  # noqa: E402
from kube32.reference.scheduler.scheduler import Scheduler  # noqa: E402
from kube32.reference.store import MemoryBackend, Store  # noqa: E402
from kube32.spec import quantities  # noqa: E402

SIZES = (10, 100, 1000)


def build(n_nodes: int, identical: bool = False) -> tuple[Store, Scheduler]:
    clock = ManualClock(1_800_000_000)
    store = Store(MemoryBackend(), clock)
    scheduler = Scheduler(store, EventRecorder(store, clock), clock)
    for i in range(n_nodes):
        name = f"esp-{i:05d}"
        for j in range(2):
            store.create("pods", {"apiVersion": "v1", "kind": "Pod",
                                  "metadata": {"name": f"{name}-run-{j}", "namespace": "default"},
                                  "spec": {"nodeName": name, "containers": [
                                      {"name": "c", "resources": {"requests": {"memory": "20Ki"}}}]},
                                  "status": {"phase": "Running"}})
        k = 0 if identical else i
        figures = {"memory": f"{200 + k % 37}Ki", "esp32.io/gpio": str(8 + k % 5),
                   "esp32.io/psram": "2Mi", "esp32.io/i2c": "2"}
        store.create("nodes", {"apiVersion": "v1", "kind": "Node",
                               "metadata": {"name": name, "labels": {"board": "s3"}},
                               "status": {"allocatable": figures, "capacity": figures,
                                          "conditions": [{"type": "Ready", "status": "True"}]}})
    return store, scheduler


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bench", "namespace": "default"},
       "spec": {"nodeSelector": {"board": "s3"}, "containers": [{"name": "c", "resources": {
           "requests": {"memory": "64Ki", "esp32.io/gpio": "2", "esp32.io/psram": "512Ki"}}}]}}


def per_call(fn, number: int) -> float:
    """Best-of-7 seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


def measure(n_nodes: int, identical: bool = False) -> dict[str, float]:
    store, scheduler = build(n_nodes, identical)
    pod = framework.PodInfo.of(POD)
    scheduler.decide(pod)   # warm the cache (NodeInfo per node resourceVersion)
    number = max(1, 20_000 // n_nodes)

    def plain_pass() -> None:
        for node in store.list("nodes"):
            node["metadata"]["name"]
            node["status"]["allocatable"]["memory"]

    def parsing_pass() -> None:
        for node in store.list("nodes"):
            quantities.value(node["status"]["allocatable"]["memory"])

    def decision_explained() -> None:
        json.dumps(scheduler.decide(pod).explain())

    def full_pass() -> None:       # nothing kept from the last decision (issue 14's memo)
        if hasattr(scheduler, "memos"):
            scheduler.memos = type(scheduler.memos)()
        scheduler.decide(pod)

    return {"plain": per_call(plain_pass, number),
            "decision": per_call(lambda: scheduler.decide(pod), number),
            "full": per_call(full_pass, number),
            "explained": per_call(decision_explained, number),
            "parsing": per_call(parsing_pass, number)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", metavar="REF", help="then run the same on commit REF")
    args = ap.parse_args(argv)
    print(f"{'boards':>9} {'nodes':>6} {'plain pass':>12} {'decision':>12} {'ratio':>6} "
          f"{'+annotation':>12} {'ratio':>6} {'full pass':>12} {'ratio':>6} {'parse pass':>12}"
          f"   ({os.environ.get('KUBE32_TREE') or 'this checkout'})")
    for identical in (False, True):
        for n in SIZES:
            r = measure(n, identical)
            print(f"{'identical' if identical else 'distinct':>9} {n:>6} {r['plain'] * 1e6:>10.1f}us "
                  f"{r['decision'] * 1e6:>10.1f}us {r['decision'] / r['plain']:>5.1f}x "
                  f"{r['explained'] * 1e6:>10.1f}us {r['explained'] / r['plain']:>5.1f}x "
                  f"{r['full'] * 1e6:>10.1f}us {r['full'] / r['plain']:>5.1f}x {r['parsing'] * 1e6:>10.1f}us")
    if args.baseline:
        import _servers

        with _servers.tree(args.baseline) as source:
            print()
            subprocess.run([sys.executable, __file__], env={**os.environ, "KUBE32_TREE": str(source)}, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
