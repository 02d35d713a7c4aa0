"""Load: a fleet of N nodes renewing their Leases every 5 s over loopback HTTP, against a real-clock
``kube32-conformance serve``.

Run: ``.venv/bin/python benchmarks/fleet_load.py [--nodes 5000] [--seconds 60] [--baseline REF]``.
A script, not a test. It registers N nodes with Leases (leaseDurationSeconds 15), then renews every
Lease every ``--interval`` seconds (renewals spread evenly: N/interval pre-encoded PUTs per second)
for ``--seconds``, from ``--clients`` processes of the cheap asyncio client (``_client``), each
with ``--connections`` keep-alive connections. Between registration and the first renewal round
every node reports Ready (a merge patch of its status, as fast as the server answers: the boot),
so the registration phase does not count against its Lease and the renewal phase carries renewals
only. (Until 2026-12-01 evening each node reported Ready right after its first renewal: 1,000 status
patches a second through Flask on top of the first round's renewals, a boot storm whose backlog
set the whole run's p99; ``--ready-in-first-round`` still runs that shape.)

Reports, per server: the boot (how long the Ready reports took, their p99), renewal p50/p99
(submit -> answer) over the whole run and from the third round on, the latency by when it was sent
(``--slice`` s at a time: which phase a p99 comes from), and the achieved rate; nodes not Ready at
the end and NodeNotReady events (both must be 0); the server's CPU per renewal; and the CLIENT's
own figures: its CPU and its lag p99 (how late its loop sent against the schedule: if that is large
the client, not the server, fell behind on the shared machine, and the run is inconclusive).

A server that stops answering is a result, not a crash: once renewals fail (time out or are
refused) for ``--give-up`` seconds in a row the run stops and prints "collapsed after N s, M
renewals failed".
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _client  # noqa: E402
import _servers  # noqa: E402

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
TIMEOUT = 20.0
FIGURES = {"memory": "320Ki", "esp32.io/gpio": "12"}
INCONCLUSIVE_LAG = 5.0      # s: a client this late cannot tell anything about the server
SETTLE_ROUNDS = 2           # renewal rounds before the steady state (with --ready-in-first-round the first carries every Ready report)
INCONCLUSIVE_SHARE = 0.5    # of a core: a machine that gives a busy process less is too busy to judge


def stamp(t: float) -> str:
    """RFC 3339 with microseconds: always 27 bytes, so a pre-encoded body keeps its length."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


def node_name(i: int) -> str:
    return f"fleet-{i:05d}"


def lease_body(name: str, t: float) -> bytes:
    return json.dumps({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                       "metadata": {"name": name, "namespace": "kube-node-lease"},
                       "spec": {"holderIdentity": name, "leaseDurationSeconds": 15,
                                "renewTime": stamp(t)}}).encode()


class Renewal:
    """The PUT of one node's Lease, encoded once; only the 27 bytes of renewTime change."""

    __slots__ = ("head", "tail", "status_path", "status_body")

    def __init__(self, name: str) -> None:
        marker = "0000-00-00T00:00:00.000000Z"
        body = lease_body(name, 0).replace(stamp(0).encode(), marker.encode())
        whole = _client.request("PUT", f"{LEASES}/{name}", body)
        self.head, self.tail = whole.split(marker.encode())
        ready = json.dumps({"status": {"capacity": FIGURES, "allocatable": FIGURES, "conditions": [
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready",
             "lastHeartbeatTime": "@", "lastTransitionTime": "@"}]}}).encode()
        self.status_path, self.status_body = f"/api/v1/nodes/{name}/status", ready

    def put(self, t: float) -> bytes:
        return self.head + stamp(t).encode() + self.tail

    def ready(self, t: float) -> bytes:
        """The kubelet's first status report (Ready, merge patch): from now on the Lease is timed."""
        body = self.status_body.replace(b"@", (stamp(t)[:19] + "Z").encode())
        return _client.request("PATCH", self.status_path, body, "application/merge-patch+json")


def register(port: int, indices: list[int], connections: int) -> dict:
    """In a client process: create the nodes (no status yet: not timed) and their Leases."""
    failed: list[str] = []

    async def run() -> None:
        pool = _client.Pool(port, connections, TIMEOUT)
        await pool.open()

        def check(status: int, body: bytes, _s: float) -> None:
            if status != 201:
                failed.append(f"{status} {body[:200]!r}")

        for i in indices:
            name = node_name(i)
            pool.submit(_client.request("POST", "/api/v1/nodes", json.dumps(
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}).encode()), check)
            pool.submit(_client.request("POST", LEASES, lease_body(name, time.time())), check)
            if pool.pending() > 4 * connections:
                await pool.drain(0.05 * connections)
        await pool.drain(TIMEOUT + 5)
        pool.close()

    asyncio.run(run())
    return {"failed": len(failed), "first_failure": failed[0] if failed else None}


def report_ready(port: int, indices: list[int], connections: int) -> dict:
    """In a client process: every node's first status report (Ready), as fast as the server answers."""
    lat: list[float] = []
    failed: list[str] = []

    async def run() -> None:
        pool = _client.Pool(port, connections, TIMEOUT)
        await pool.open()

        def check(status: int, body: bytes, seconds: float) -> None:
            if status == 200:
                lat.append(seconds)
            else:
                failed.append(f"{status} {body[:200]!r}")

        for i in indices:
            pool.submit(Renewal(node_name(i)).ready(time.time()), check)
            if pool.pending() > 4 * connections:
                await pool.drain(0.05 * connections)
        await pool.drain(TIMEOUT + 5)
        pool.close()

    asyncio.run(run())
    return {"lat": lat, "failed": len(failed), "first_failure": failed[0] if failed else None}


def renewer(port: int, indices: list[int], args, start_wall: float, start_mono: float) -> dict:
    """In a client process: renew ``indices`` on schedule; give up once the server has failed
    every renewal for ``args.give_up`` seconds."""
    lat: list[float] = []
    sent: list[float] = []        # when each answered renewal was submitted (s into the run)
    failures = [0]
    last_ok = [start_mono]
    first_failure = [None]
    stopped = [None]
    meter = _client.Meter()
    renewals = {i: Renewal(node_name(i)) for i in indices}
    n, interval = args.nodes, args.interval

    def schedule():
        rounds = int(args.seconds // interval) + 1
        mine = sorted(indices)
        for k in range(rounds):
            for i in mine:
                due = start_mono + i / n * interval + k * interval
                if due > start_mono + args.seconds:
                    return
                yield due, (k, i)

    async def run() -> None:
        pool = _client.Pool(port, args.connections, TIMEOUT)
        await pool.open()

        def renewed(k: int, i: int):
            def done(status: int, body: bytes, seconds: float) -> None:
                if status == 200:
                    lat.append(seconds)
                    sent.append(time.monotonic() - seconds - start_mono)
                    last_ok[0] = time.monotonic()
                    if k == 0 and args.ready_in_first_round:
                        pool.submit(renewals[i].ready(time.time()), reported)
                else:
                    failures[0] += 1
                    if first_failure[0] is None:
                        first_failure[0] = (time.monotonic() - start_mono, status, body[:200])
            return done

        def reported(status: int, body: bytes, seconds: float) -> None:
            if status != 200:
                failures[0] += 1

        def act(item) -> None:
            k, i = item
            now = time.monotonic()
            pool.submit(renewals[i].put(start_wall + (now - start_mono)), renewed(k, i))

        def collapsed() -> bool:
            if failures[0] and time.monotonic() - last_ok[0] > args.give_up:
                stopped[0] = time.monotonic() - start_mono
                return True
            return False

        await _client.paced(schedule(), act, meter, collapsed)
        await pool.drain(TIMEOUT + 5)
        pool.close()

    asyncio.run(run())
    return {"lat": lat, "sent": sent, "failures": failures[0], "first_failure": first_failure[0], "stopped": stopped[0],
            **meter.result()}


def timeline(sent: list[float], lat: list[float], width: float) -> list[tuple]:
    """Renewal latency by when it was sent: (slice start s, renewals, p50, p99, max) per ``width`` s,
    so a p99 tells whether it comes from one phase (the first renewals, when every node also reports
    Ready) or from pauses spread over the run."""
    slices: dict[int, list[float]] = {}
    for t, x in zip(sent, lat, strict=True):
        slices.setdefault(int(max(0.0, t) // width), []).append(x)
    return [(k * width, len(v), _servers.percentile(v, 50), _servers.percentile(v, 99), max(v))
            for k, v in sorted(slices.items())]


def fetch(port: int, path: str):
    """One JSON GET after the run (None if the server cannot answer)."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", path)
        resp = conn.getresponse()
        return json.loads(resp.read()) if resp.status == 200 else None
    except (OSError, http.client.HTTPException, ValueError):
        return None


def run_load(url: str, pid: int, args) -> dict:
    port = int(url.rsplit(":", 1)[1])
    t0 = time.monotonic()
    clients = max(1, args.clients)
    share = [list(range(c, args.nodes, clients)) for c in range(clients)]
    regs = _client.in_processes(register, [(port, s, 16) for s in share], timeout=600)
    out: dict = {"register_s": time.monotonic() - t0,
                 "register_failed": sum(r.get("failed", 0) if r else len(s) for r, s in zip(regs, share, strict=True))}
    if out["register_failed"]:
        out["collapsed"] = f"registration: {out['register_failed']} of {2 * args.nodes} creates failed " \
                           f"({next((r.get('first_failure') or r.get('error') for r in regs if r), 'no answer')})"
        return out
    if not args.ready_in_first_round:
        t1 = time.monotonic()
        reports = _client.in_processes(report_ready, [(port, s, 16) for s in share], timeout=600)
        ready_lat = [x for r in reports if r for x in r["lat"]]
        out.update(ready_s=time.monotonic() - t1, ready_p99=_servers.percentile(ready_lat, 99),
                   ready_failed=sum(r["failed"] if r else len(s) for r, s in zip(reports, share, strict=True)))
        if out["ready_failed"]:
            out["collapsed"] = f"boot: {out['ready_failed']} of {args.nodes} Ready reports failed " \
                               f"({next((r.get('first_failure') or r.get('error') for r in reports if r), 'no answer')})"
            return out
    share_before = _servers.cpu_share()
    cpu0 = _servers.cpu_seconds(pid)
    start_mono, start_wall = time.monotonic() + 1.0, time.time() + 1.0   # fork shares the monotonic clock
    parts = _client.in_processes(renewer, [(port, s, args, start_wall, start_mono) for s in share],
                                 timeout=args.seconds + 2 * TIMEOUT + 120)
    out["cpu_s"] = _servers.cpu_seconds(pid) - cpu0
    good = [p for p in parts if p and "lat" in p]
    lat = [x for p in good for x in p["lat"]]
    lag = [x for p in good for x in p["client_lag"]]
    stops = [p["stopped"] for p in good if p["stopped"] is not None]
    out.update(renewals=len(lat), failures=sum(p["failures"] for p in good),
               lost_clients=len(parts) - len(good), rate=len(lat) / args.seconds,
               p50=_servers.percentile(lat, 50), p99=_servers.percentile(lat, 99), max=max(lat or [0]),
               lag_p99=_servers.percentile(lag, 99), client_cpu_s=sum(p["client_cpu_s"] for p in good),
               rss_mb=_servers.rss_kb(pid) / 1024)
    sent = [x for p in good for x in p["sent"]]
    settled = [x for t, x in zip(sent, lat, strict=True) if t >= SETTLE_ROUNDS * args.interval]
    out.update(p50_settled=_servers.percentile(settled, 50), p99_settled=_servers.percentile(settled, 99))
    width = getattr(args, "slice", 0)
    out["timeline"] = timeline(sent, lat, width) if width else []
    out["cpu_us_per_renewal"] = out["cpu_s"] / max(1, len(lat)) * 1e6
    out["client_cpu_us_per_renewal"] = out["client_cpu_s"] / max(1, len(lat)) * 1e6
    if stops or out["lost_clients"]:
        firsts = [p["first_failure"] for p in good if p["first_failure"]]
        why = f"first failure at {min(firsts)[0]:.0f} s: {min(firsts)[1]} {min(firsts)[2]!r}" if firsts else ""
        lost = f", {out['lost_clients']} client processes lost" if out["lost_clients"] else ""
        out["collapsed"] = (f"collapsed after {min(stops or [args.seconds]):.0f} s, "
                            f"{out['failures']} renewals failed{lost}{'; ' + why if why else ''}")
    time.sleep(2.0)         # (the server finishes what the clients left behind)
    out["cpu_share"] = min(share_before, _servers.cpu_share())
    nodes = fetch(port, "/api/v1/nodes")
    events = fetch(port, "/api/v1/events?fieldSelector=reason%3DNodeNotReady")
    out["not_ready"] = None if nodes is None else sum(
        1 for n in nodes["items"] if not any(c.get("type") == "Ready" and c.get("status") == "True"
                                             for c in (n.get("status") or {}).get("conditions") or []))
    out["not_ready_events"] = None if events is None else len(events["items"])
    out["inconclusive"] = None
    if out["lag_p99"] > INCONCLUSIVE_LAG:
        out["inconclusive"] = f"the load clients ran {out['lag_p99']:.1f} s behind their schedule"
    elif out["cpu_share"] < INCONCLUSIVE_SHARE:
        out["inconclusive"] = (f"the machine gave a busy process {out['cpu_share']:.2f} of a core around the run "
                               f"({_servers.load()}): other work, not the server, set the pace")
    return out


def show(name: str, r: dict, args) -> None:
    print(f"\n{name}: registered {args.nodes} nodes in {r['register_s']:.0f} s")
    if "ready_s" in r:
        print(f"  boot: {args.nodes} Ready reports in {r['ready_s']:.1f} s, p99 {r['ready_p99'] * 1000:.0f} ms"
              f" ({r['ready_failed']} failed); the renewal rounds carry renewals only")
    if "renewals" not in r:
        print(f"  {name.split()[0]}: {r['collapsed']}")
        return
    if r.get("collapsed"):
        print(f"  {name.split()[0]}: {r['collapsed']}")
    print(f"  renewals {r['renewals']} ({r['failures']} failed), {r['rate']:.0f}/s "
          f"(schedule: {args.nodes / args.interval:.0f}/s)")
    print(f"  renewal p50 {r['p50'] * 1000:.1f} ms  p99 {r['p99'] * 1000:.1f} ms  max {r['max'] * 1000:.0f} ms"
          f"   (target p99 <= 250)")
    unknown = "unknown (the server did not answer)"
    print(f"  from round {SETTLE_ROUNDS + 1} on: p50 {r['p50_settled'] * 1000:.1f} ms  p99 {r['p99_settled'] * 1000:.1f} ms")
    if r.get("timeline"):
        print(f"  by when sent (every {args.slice:g} s): " + "; ".join(
            f"{t:.0f}s {n} p50 {p50 * 1000:.0f} p99 {p99 * 1000:.0f} max {top * 1000:.0f}"
            for t, n, p50, p99, top in r["timeline"]))
    print(f"  nodes not Ready at the end: {unknown if r['not_ready'] is None else r['not_ready']}; NodeNotReady "
          f"events: {unknown if r['not_ready_events'] is None else r['not_ready_events']}   (target 0)")
    print(f"  server CPU {r['cpu_s']:.1f} s = {r['cpu_us_per_renewal']:.0f} us per renewal; RSS {r['rss_mb']:.0f} MB")
    print(f"  client: CPU {r['client_cpu_s']:.1f} s = {r['client_cpu_us_per_renewal']:.0f} us per renewal, "
          f"lag p99 {r['lag_p99'] * 1000:.0f} ms; a busy process got {r['cpu_share']:.2f} of a core around the run")
    if r["inconclusive"]:
        print(f"  INCONCLUSIVE: {r['inconclusive']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--interval", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=2, help="client processes")
    ap.add_argument("--connections", type=int, default=64, help="keep-alive connections per client process")
    ap.add_argument("--give-up", type=float, default=30.0,
                    help="stop once every renewal has failed for this long (the server collapsed)")
    ap.add_argument("--slice", type=float, default=5.0,
                    help="print renewal latency per slice of this many seconds of the run (0: not)")
    ap.add_argument("--ready-in-first-round", action="store_true",
                    help="each node reports Ready right after its first renewal (a boot storm in the first round)")
    ap.add_argument("--baseline", metavar="REF", help="also run the same load against commit REF")
    args = ap.parse_args(argv)
    print(f"{args.nodes} nodes renewing every {args.interval:g} s for {args.seconds:g} s; {_servers.load()}")
    runs = [("this checkout", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
    for name, ref in runs:
        try:
            with _servers.tree(ref) as source, _servers.server(source) as (url, pid):
                show(name, run_load(url, pid, args), args)
        except (SystemExit, OSError) as exc:      # a baseline that cannot even start is a result too
            print(f"\n{name}: could not run: {str(exc).strip()[-500:]}")
    print(f"\n{_servers.load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
