"""What one request costs the app in CPU, without HTTP and without the machine's other work in it:
a pod create (bound by the scheduler in the request) at 1,000 identical and 1,000 distinct Ready
nodes, as the server runs it (below Flask, ``api.creates``, where the code has it), and a Lease
renewal (PUT) through the Flask app and through the WSGI app the server runs.

Run: ``.venv/bin/python benchmarks/request_cpu.py [--baseline REF]``. A script, not a test. The app
is called as WSGI in a tight loop on one thread, controllers stopped; each figure is the best of 5
batches of process CPU per request. ``--baseline REF`` runs the same script on commit REF (a
temporary worktree) AT THE SAME TIME, in a process of its own: on a shared machine both then see the
same conditions. Over HTTP and at a low request rate the server's CPU per request is several times
these figures (the serving layer, and caches other processes keep evicting between requests):
``schedule_load.py`` and ``fleet_load.py`` give that.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _tree  # noqa: E402

_tree.from_environment()                     # --baseline: import the old code

import _servers  # noqa: E402

from kube32.reference.app import create_app  # noqa: E402
from kube32.reference.config import Config  # noqa: E402

NODES = 1000
BATCH = 400
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


def caller(app):
    def call(method: str, path: str, body: bytes, ctype: str = "application/json") -> tuple[str, bytes]:
        env = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
               "SERVER_PORT": "6443", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": ctype,
               "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
               "wsgi.run_once": False, "REMOTE_ADDR": "127.0.0.1"}
        status: list[str] = []
        out = b"".join(app(env, lambda s, h, e=None: status.append(s)))
        return status[0], out
    return call


def best(batches: list[list[tuple]], call, expect: str) -> float:
    """The best batch's process CPU per request, in ms."""
    figures = []
    for batch in batches:
        t0 = time.process_time()
        for args in batch:
            status, out = call(*args)
            if not status.startswith(expect):
                raise SystemExit(f"{args[0]} {args[1]}: {status} {out[:300]!r}")
        figures.append((time.process_time() - t0) / len(batch) * 1000)
    return min(figures)


def served(app):
    """The WSGI app a ``serve`` process runs for pod creates: below Flask where the code has it."""
    try:
        from kube32.reference.api.creates import Creates
    except ImportError:
        return app
    return Creates(app)


def pod_creates(identical: bool) -> float:
    app = create_app(Config(listen="127.0.0.1:0", run_loops=False))
    call = caller(served(app))
    for i in range(NODES):
        k = 0 if identical else i
        figures = {"memory": f"{2000 + k % 37}Ki", "esp32.io/gpio": str(8 + k % 5)}
        name = f"esp-{i:05d}"
        call("POST", "/api/v1/nodes", json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": name, "labels": {"board": "s3"}}}).encode())
        call("PATCH", f"/api/v1/nodes/{name}/status", json.dumps({"status": {
            "capacity": figures, "allocatable": figures,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}).encode(),
            "application/merge-patch+json")
    batches = [[("POST", "/api/v1/namespaces/default/pods", json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{b}-{i}"},
        "spec": {"nodeSelector": {"board": "s3"}, "containers": [
            {"name": "c", "image": "blink", "resources": {"requests": {"memory": "1Ki"}}}]}}).encode())
        for i in range(BATCH)] for b in range(6)]
    best(batches[:1], call, "201")          # warm up
    return best(batches[1:], call, "201")


def lease_renewals() -> tuple[float, float | None]:
    """(through the Flask app, through the server's WSGI app or None when it is the Flask app)."""
    app = create_app(Config(listen="127.0.0.1:0", run_loops=False))
    try:
        from kube32.reference.api import renewals
    except ImportError:
        served = None
    else:       # (named Renewals in older baselines)
        served = getattr(renewals, "LeaseRenewals", None) or renewals.Renewals
        served = served(app)
    call = caller(app)

    def lease(i: int, t: int) -> bytes:
        return json.dumps({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": f"n{i}"},
                           "spec": {"holderIdentity": f"n{i}", "leaseDurationSeconds": 40,
                                    "renewTime": f"2026-12-01T10:00:{t:02d}.000000Z"}}).encode()
    for i in range(BATCH):
        call("POST", LEASES, lease(i, 0))
    rounds = iter(range(1, 60))

    def batches() -> list[list[tuple]]:
        return [[("PUT", f"{LEASES}/n{i}", lease(i, t)) for i in range(BATCH)] for t in (next(rounds) for _ in range(6))]
    flask = best(batches(), call, "200")
    return flask, None if served is None else best(batches(), caller(served), "200")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", metavar="REF", help="run the same on commit REF at the same time")
    args = ap.parse_args(argv)
    with _servers.beside(args.baseline, __file__) as other:
        lines = [f"pod create, {NODES} identical nodes: {pod_creates(True):.3f} ms CPU",
                 f"pod create, {NODES} distinct nodes:  {pod_creates(False):.3f} ms CPU"]
        flask, served = lease_renewals()
        lines.append(f"Lease renewal (PUT) through Flask: {flask:.3f} ms CPU; as served: "
                     + (f"{served:.3f} ms CPU" if served is not None else "(the same: the Flask app)"))
        return _servers.side_by_side(lines, other)

if __name__ == "__main__":
    sys.exit(main())
