"""Load: pods bound per second end to end over HTTP at N identical and N distinct nodes.

Run: ``.venv/bin/python benchmarks/schedule_load.py [--nodes 1000] [--pods 1000] [--baseline REF]``.
A script, not a test. Against a real-clock ``kube32-conformance serve`` (``--not-ready-timeout``
large, so the nodes stay Ready without renewals), it registers N Ready nodes, then creates
``--pods`` small pods from 8 keep-alive connections as fast as the server answers (the scheduler
binds in the create request: the answer names the node) and reports pods bound per second and the
create latency p50/p99; the server's CPU per pod. Target: >= 300 pods/s at 1,000 nodes, both kinds.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _servers  # noqa: E402

TIMEOUT = 30.0


def call(conn, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    conn.request(method, path, json.dumps(body) if body is not None else None,
                 {"Content-Type": "application/json"} if body is not None else {})
    resp = conn.getresponse()
    return resp.status, json.loads(resp.read() or b"{}")


def register(port: int, indices: range, identical: bool) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    for i in indices:
        k = 0 if identical else i
        figures = {"memory": f"{2000 + k % 37}Ki", "esp32.io/gpio": str(8 + k % 5)}
        name = f"esp-{i:05d}"
        code, node = call(conn, "POST", "/api/v1/nodes",
                          {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"board": "s3"}}})
        assert code == 201, node
        node["status"] = {"capacity": figures, "allocatable": figures,
                          "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}
        code, body = call(conn, "PUT", f"/api/v1/nodes/{name}/status", node)
        assert code == 200, body


def create_pods(port: int, n: int, tag: str) -> tuple[list[float], int, float]:
    lat: list[float] = []
    unbound = [0]
    numbers = itertools.count()          # next() on a count is atomic: each number goes to one thread

    def run() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        while True:
            i = next(numbers)
            if i >= n:
                return
            t0 = time.monotonic()
            code, pod = call(conn, "POST", "/api/v1/namespaces/default/pods", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{tag}-{i}"},
                "spec": {"nodeSelector": {"board": "s3"}, "containers": [
                    {"name": "c", "image": "blink", "resources": {"requests": {"memory": "1Ki"}}}]}})
            lat.append(time.monotonic() - t0)
            if code != 201 or not (pod.get("spec") or {}).get("nodeName"):
                unbound[0] += 1

    start = time.monotonic()
    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lat, unbound[0], time.monotonic() - start


def run(source: Path, args, identical: bool) -> dict:
    with _servers.server(source, "--not-ready-timeout", "100000") as (url, pid):
        port = int(url.rsplit(":", 1)[1])
        step = (args.nodes + 7) // 8
        ts = [threading.Thread(target=register, args=(port, range(k, min(k + step, args.nodes)), identical))
              for k in range(0, args.nodes, step)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        time.sleep(1.5)          # the lifecycle controller has seen every node
        cpu0 = _servers.cpu_seconds(pid)
        lat, unbound, took = create_pods(port, args.pods, "p")
        cpu = _servers.cpu_seconds(pid) - cpu0
    return {"rate": (args.pods - unbound) / took, "unbound": unbound, "p50": _servers.percentile(lat, 50),
            "p99": _servers.percentile(lat, 99), "cpu_ms_per_pod": cpu / args.pods * 1000}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--baseline", metavar="REF", help="also run the same load against commit REF")
    args = ap.parse_args(argv)
    print(f"{args.pods} pods onto {args.nodes} nodes over HTTP; {_servers.load()}")
    runs = [("this checkout", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
    for name, ref in runs:
        with _servers.tree(ref) as source:
            for identical in (True, False):
                r = run(source, args, identical)
                kind = "identical" if identical else "distinct"
                print(f"{name:>24} {kind:>9} nodes: {r['rate']:6.0f} pods/s bound ({r['unbound']} unbound), "
                      f"create p50 {r['p50'] * 1000:.0f} ms p99 {r['p99'] * 1000:.0f} ms, "
                      f"server CPU {r['cpu_ms_per_pod']:.2f} ms/pod   (target >= 300 pods/s)")
    print(_servers.load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
