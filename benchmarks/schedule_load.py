"""Load: pods bound per second end to end over HTTP at N identical and N distinct nodes.

Run: ``.venv/bin/python benchmarks/schedule_load.py [--nodes 1000] [--pods 1000] [--baseline REF]``.
A script, not a test. Against a real-clock ``kube32-conformance serve`` (``--not-ready-timeout``
large, so the nodes stay Ready without renewals), it registers N Ready nodes, then creates
``--pods`` small pods from ``--connections`` keep-alive connections as fast as the server answers
(the scheduler binds in the create request: the answer names the node) and reports pods bound per
second and the create latency p50/p99 (after one first create, timed apart: it compiles the Pod
schema check once per process); the server's CPU per pod, and the client's own CPU per pod
(the cheap ``_client`` in a process of its own, requests encoded before the run: it must stay well
below the server's, or the run measures the client). Target: >= 300 pods/s at 1,000 nodes, both kinds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _client  # noqa: E402
import _servers  # noqa: E402

TIMEOUT = 30.0
PODS = "/api/v1/namespaces/default/pods"


def register(port: int, nodes: int, identical: bool) -> dict:
    """In a client process: N nodes, each created and then reported Ready (a status merge patch)."""
    failed: list[str] = []

    async def run() -> None:
        pool = _client.Pool(port, 8, TIMEOUT)
        await pool.open()

        def check(status: int, body: bytes, _s: float) -> None:
            if status not in (200, 201):
                failed.append(f"{status} {body[:200]!r}")

        for i in range(nodes):
            k = 0 if identical else i
            figures = {"memory": f"{2000 + k % 37}Ki", "esp32.io/gpio": str(8 + k % 5)}
            name = f"esp-{i:05d}"
            status = json.dumps({"status": {"capacity": figures, "allocatable": figures, "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}).encode()
            then = _client.request("PATCH", f"/api/v1/nodes/{name}/status", status, "application/merge-patch+json")

            def created(code: int, body: bytes, s: float, then=then) -> None:
                check(code, body, s)
                pool.submit(then, check)

            pool.submit(_client.request("POST", "/api/v1/nodes", json.dumps(
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"board": "s3"}}}
            ).encode()), created)
            if pool.pending() > 64:
                await pool.drain(1.0)
        await pool.drain(TIMEOUT + 5)
        await pool.drain(TIMEOUT + 5)      # the status patches sent from the last answers
        pool.close()

    asyncio.run(run())
    return {"failed": len(failed), "first_failure": failed[0] if failed else None}


def create_pods(port: int, n: int, connections: int, tag: str) -> dict:
    """In a client process: ``n`` pod creates, each connection sending its next one as soon as the
    last is answered (a closed loop: the server sets the pace). Bodies are encoded before the run."""
    bodies = [_client.request("POST", PODS, json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{tag}-{i}"},
        "spec": {"nodeSelector": {"board": "s3"}, "containers": [
            {"name": "c", "image": "blink", "resources": {"requests": {"memory": "1Ki"}}}]}}).encode())
        for i in range(n)]
    lat: list[float] = []
    unbound = [0]
    took = [0.0]

    async def run() -> None:
        pool = _client.Pool(port, connections, TIMEOUT)
        await pool.open()
        meter = _client.Meter()
        it = iter(bodies)
        finished = asyncio.get_running_loop().create_future()
        answered = [0]

        def done(status: int, body: bytes, seconds: float) -> None:
            lat.append(seconds)
            if status != 201 or b'"nodeName"' not in body:
                unbound[0] += 1
            answered[0] += 1
            nxt = next(it, None)
            if nxt is not None:
                pool.submit(nxt, done)
            elif answered[0] == n and not finished.done():
                finished.set_result(None)

        t0 = time.monotonic()
        for _ in range(min(connections, n)):
            pool.submit(next(it), done)
        try:
            await asyncio.wait_for(finished, TIMEOUT * 4 + n / 5)
        except TimeoutError:
            unbound[0] += n - answered[0]
        took[0] = time.monotonic() - t0
        meter_result.update(meter.result())
        pool.close()

    meter_result: dict = {}
    asyncio.run(run())
    return {"lat": lat, "unbound": unbound[0], "took": took[0], "client_cpu_s": meter_result.get("client_cpu_s", 0.0)}


def run(source: Path, args, identical: bool) -> dict:
    with _servers.server(source, "--not-ready-timeout", "100000") as (url, pid):
        return run_load(url, pid, args, identical)


def run_load(url: str, pid: int, args, identical: bool) -> dict:
    port = int(url.rsplit(":", 1)[1])
    [reg] = _client.in_processes(register, [(port, args.nodes, identical)], timeout=600)
    if not reg or reg.get("failed") or reg.get("error"):
        return {"failed": f"registering the nodes failed: {reg}"}
    time.sleep(1.5)          # the lifecycle controller has seen every node
    # the server's first pod create compiles the Pod schema check (once per process): made, and
    # reported, before the clock starts, so the rate is the steady one
    [first] = _client.in_processes(create_pods, [(port, 1, 1, "first")], timeout=TIMEOUT + 60)
    if not first or "lat" not in first or first["unbound"]:
        return {"failed": f"the first pod create failed: {first}"}
    cpu0 = _servers.cpu_seconds(pid)
    [r] = _client.in_processes(create_pods, [(port, args.pods, args.connections, "p")],
                               timeout=TIMEOUT * 4 + args.pods / 5 + 60)
    cpu = _servers.cpu_seconds(pid) - cpu0
    if not r or "lat" not in r:
        return {"failed": f"the client failed: {r}"}
    return {"rate": (args.pods - r["unbound"]) / r["took"], "unbound": r["unbound"], "first": first["lat"][0],
            "p50": _servers.percentile(r["lat"], 50), "p99": _servers.percentile(r["lat"], 99),
            "cpu_ms_per_pod": cpu / args.pods * 1000, "client_ms_per_pod": r["client_cpu_s"] / args.pods * 1000}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--connections", type=int, default=8, help="keep-alive connections creating pods")
    ap.add_argument("--baseline", metavar="REF", help="also run the same load against commit REF")
    args = ap.parse_args(argv)
    print(f"{args.pods} pods onto {args.nodes} nodes over HTTP; {_servers.load()}")
    runs = [("this checkout", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
    for name, ref in runs:
        with _servers.tree(ref) as source:
            for identical in (True, False):
                try:
                    r = run(source, args, identical)
                except (SystemExit, OSError) as exc:      # a server that cannot even start is a result too
                    r = {"failed": f"could not run: {str(exc).strip()[-500:]}"}
                kind = "identical" if identical else "distinct"
                if "failed" in r:
                    print(f"{name:>24} {kind:>9} nodes: {r['failed']}")
                    continue
                print(f"{name:>24} {kind:>9} nodes: {r['rate']:6.0f} pods/s bound ({r['unbound']} unbound), "
                      f"create p50 {r['p50'] * 1000:.0f} ms p99 {r['p99'] * 1000:.0f} ms, "
                      f"server CPU {r['cpu_ms_per_pod']:.2f} ms/pod, client CPU {r['client_ms_per_pod']:.2f} ms/pod"
                      f"   (target >= 300 pods/s); the first create, before: {r['first'] * 1000:.0f} ms")
    print(_servers.load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
