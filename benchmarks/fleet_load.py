"""Load: a fleet of N nodes renewing their Leases every 5 s over loopback HTTP, against a real-clock
``kube32-conformance serve``.

Run: ``.venv/bin/python benchmarks/fleet_load.py [--nodes 5000] [--seconds 60] [--baseline REF]``.
A script, not a test. It registers N Ready nodes with Leases (leaseDurationSeconds 15), then renews
every Lease every ``--interval`` seconds (renewals spread evenly: N/interval writes per second, from
``--clients`` processes x 8 keep-alive connections) for ``--seconds``; each node reports Ready
just before its first renewal (so the registration phase does not count against its Lease). Reports:

- renewal p50/p99 latency and the achieved renewal rate;
- client lag p99 (how late the clients sent against their schedule; if this is large the CLIENT,
  not the server, fell behind on the shared machine);
- nodes not Ready at the end and NodeNotReady events recorded (both must be 0);
- server CPU per renewal.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _servers  # noqa: E402

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
TIMEOUT = 20.0
FIGURES = {"memory": "320Ki", "esp32.io/gpio": "12"}


def stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


def node_name(i: int) -> str:
    return f"fleet-{i:05d}"


def lease_body(name: str, t: float) -> str:
    return json.dumps({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                       "metadata": {"name": name, "namespace": "kube-node-lease"},
                       "spec": {"holderIdentity": name, "leaseDurationSeconds": 15, "renewTime": stamp(t)}})


def call(conn, method: str, path: str, body: str | None = None) -> tuple[int, bytes]:
    conn.request(method, path, body, {"Content-Type": "application/json"} if body else {})
    resp = conn.getresponse()
    return resp.status, resp.read()


def register(port: int, indices: range) -> None:
    """Nodes without status (the lifecycle controller does not time them yet) and their Leases."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    for i in indices:
        name = node_name(i)
        code, body = call(conn, "POST", "/api/v1/nodes", json.dumps(
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}))
        assert code == 201, body[:300]
        code, body = call(conn, "POST", LEASES, lease_body(name, time.time()))
        assert code == 201, body[:300]


def report_ready(conn, name: str) -> None:
    """The kubelet's first status report (Ready): from now on the node's Lease is timed."""
    _, body = call(conn, "GET", f"/api/v1/nodes/{name}")
    node = json.loads(body)
    now = stamp(time.time())
    node["status"] = {"capacity": FIGURES, "allocatable": FIGURES,
                      "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                      "message": "ready", "lastHeartbeatTime": now, "lastTransitionTime": now}]}
    code, body = call(conn, "PUT", f"/api/v1/nodes/{name}/status", json.dumps(node))
    assert code == 200, body[:300]


def renewer(port: int, indices: list[int], n_nodes: int, interval: float, start: float, seconds: float,
            out) -> None:
    """One client process: 8 threads renew ``indices`` on schedule."""
    lat: list[float] = []
    lag: list[float] = []
    failures = [0]

    def run(mine: list[int]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        schedule = sorted((start + i / n_nodes * interval, i) for i in mine)
        k = 0
        while True:
            for due0, i in schedule:
                due = due0 + k * interval
                if due > start + seconds:
                    return
                delay = due - time.time()
                if delay > 0:
                    time.sleep(delay)
                t0 = time.time()
                lag.append(t0 - due)
                name = node_name(i)
                try:
                    if k == 0:
                        report_ready(conn, name)
                    code, _ = call(conn, "PUT", f"{LEASES}/{name}", lease_body(name, t0))
                except OSError:
                    code = 0
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
                if code == 200:
                    lat.append(time.time() - t0)
                else:
                    failures[0] += 1
            k += 1

    threads = [threading.Thread(target=run, args=(indices[j::8],)) for j in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put({"lat": lat, "lag": lag, "failures": failures[0]})


def run_load(url: str, pid: int, args) -> dict:
    port = int(url.rsplit(":", 1)[1])
    t0 = time.monotonic()
    step = (args.nodes + 15) // 16
    setup = [threading.Thread(target=register, args=(port, range(k, min(k + step, args.nodes))))
             for k in range(0, args.nodes, step)]
    for t in setup:
        t.start()
    for t in setup:
        t.join()
    out: dict = {"register_s": time.monotonic() - t0}
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    start = time.time() + 1.0
    cpu0 = _servers.cpu_seconds(pid)
    procs = [ctx.Process(target=renewer, args=(port, list(range(c, args.nodes, args.clients)), args.nodes,
                                               args.interval, start, args.seconds, q))
             for c in range(args.clients)]
    for p in procs:
        p.start()
    parts = [q.get(timeout=args.seconds + 600) for _ in procs]
    for p in procs:
        p.join()
    out["cpu_s"] = _servers.cpu_seconds(pid) - cpu0
    lat = [x for p in parts for x in p["lat"]]
    lag = [x for p in parts for x in p["lag"]]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    _, body = call(conn, "GET", "/api/v1/nodes")
    nodes = json.loads(body)["items"]
    not_ready = sum(1 for n in nodes if not any(c.get("type") == "Ready" and c.get("status") == "True"
                                                 for c in (n.get("status") or {}).get("conditions") or []))
    _, body = call(conn, "GET", "/api/v1/events?fieldSelector=reason%3DNodeNotReady")
    events = len(json.loads(body)["items"])
    out.update(renewals=len(lat), failures=sum(p["failures"] for p in parts),
               rate=len(lat) / args.seconds, p50=_servers.percentile(lat, 50), p99=_servers.percentile(lat, 99),
               max=max(lat or [0]), lag_p99=_servers.percentile(lag, 99), not_ready=not_ready,
               not_ready_events=events, rss_mb=_servers.rss_kb(pid) / 1024)
    out["cpu_us_per_renewal"] = out["cpu_s"] / max(1, len(lat)) * 1e6
    return out


def show(name: str, r: dict, args) -> None:
    print(f"\n{name}: registered {args.nodes} nodes in {r['register_s']:.0f} s")
    print(f"  renewals {r['renewals']} ({r['failures']} failed), {r['rate']:.0f}/s "
          f"(schedule: {args.nodes / args.interval:.0f}/s)")
    print(f"  renewal p50 {r['p50'] * 1000:.1f} ms  p99 {r['p99'] * 1000:.1f} ms  max {r['max'] * 1000:.0f} ms"
          f"   (target p99 <= 250)")
    print(f"  client lag p99 {r['lag_p99'] * 1000:.0f} ms (the clients' own delay on this machine)")
    print(f"  nodes not Ready at the end: {r['not_ready']}; NodeNotReady events: {r['not_ready_events']}"
          f"   (target 0)")
    print(f"  server CPU {r['cpu_s']:.1f} s = {r['cpu_us_per_renewal']:.0f} us per renewal; RSS {r['rss_mb']:.0f} MB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--interval", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=2, help="client processes")
    ap.add_argument("--baseline", metavar="REF", help="also run the same load against commit REF")
    args = ap.parse_args(argv)
    print(f"{args.nodes} nodes renewing every {args.interval:g} s for {args.seconds:g} s; {_servers.load()}")
    runs = [("this checkout", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
    for name, ref in runs:
        with _servers.tree(ref) as source, _servers.server(source) as (url, pid):
            show(name, run_load(url, pid, args), args)
    print(f"\n{_servers.load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
