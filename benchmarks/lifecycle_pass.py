"""What one node lifecycle pass costs at fleet scale, in the app alone (no HTTP, loops stopped): N
Ready nodes with Leases; between two passes N/10 Leases are renewed (5,000 nodes renewing every 5 s
give 500 renewals between two checks 0.5 s apart), then one pass runs; and a pass with nothing
written since the last.

Run: ``.venv/bin/python benchmarks/lifecycle_pass.py [--nodes 5000] [--baseline REF]``. A script,
not a test. Each figure is the median of 40 passes, in ms of process CPU; the pass holds the store
lock all along, so it is also how long a request may wait behind it. ``--baseline REF`` runs the
same on commit REF (a temporary worktree) at the same time, in a process of its own.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _tree  # noqa: E402

_tree.from_environment()                     # --baseline: import the old code

import _servers  # noqa: E402

from kube32.reference.config import Config  # noqa: E402
from kube32.reference.controlplane import ControlPlane  # noqa: E402
from kube32.spec import constants, timefmt  # noqa: E402

START = 1_767_225_600.0
LEASES = "leases.coordination.k8s.io"
PASSES = 40


def passes(nodes: int) -> tuple[float, float]:
    """(ms per pass after N/10 renewals, ms per pass with nothing written)."""
    cp = ControlPlane(Config(clock="manual", clock_start=START))
    cp.start()
    controller = next(c for c in cp.loops.controllers if c.NAME == "node-lifecycle")
    store, interval = cp.store, controller.interval()
    stamp = timefmt.rfc3339(START)
    for i in range(nodes):
        name = f"fleet-{i:05d}"
        store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": {
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready",
                            "lastHeartbeatTime": stamp, "lastTransitionTime": stamp}],
            "allocatable": {"memory": "320Ki"}}})
        store.create(LEASES, {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {
            "name": name, "namespace": constants.NODE_LEASE_NAMESPACE}, "spec": {
            "holderIdentity": name, "leaseDurationSeconds": 15, "renewTime": timefmt.rfc3339_micro(START)}})
    now = START
    with store.lock:
        controller.reconcile(now)                # the first pass looks at every node
    renewed, quiet = [], []
    batch = max(1, nodes // 10)
    for k in range(PASSES):
        now += interval
        with store.lock:
            for j in range(batch):
                name = f"fleet-{(k * batch + j) % nodes:05d}"
                lease = store.get(LEASES, constants.NODE_LEASE_NAMESPACE, name)
                lease["spec"]["renewTime"] = timefmt.rfc3339_micro(now - j * 1e-4)
                store.update(LEASES, lease)
            t0 = time.process_time()
            controller.reconcile(now)
            renewed.append(time.process_time() - t0)
            t0 = time.process_time()
            controller.reconcile(now)            # (same time, nothing written since)
            quiet.append(time.process_time() - t0)
    cp.stop()
    return statistics.median(renewed) * 1000, statistics.median(quiet) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--baseline", metavar="REF", help="run the same on commit REF at the same time")
    args = ap.parse_args(argv)
    with _servers.beside(args.baseline, __file__, "--nodes", str(args.nodes)) as other:
        renewed, quiet = passes(args.nodes)
        return _servers.side_by_side([
            f"lifecycle pass, {args.nodes} nodes, {max(1, args.nodes // 10)} Leases renewed since the last: "
            f"{renewed:.2f} ms CPU; nothing written since: {quiet:.2f} ms CPU"], other)

if __name__ == "__main__":
    sys.exit(main())
