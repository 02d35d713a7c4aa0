"""Load: N concurrent pod watches while pods are written at a steady rate, over loopback HTTP.

Run: ``.venv/bin/python benchmarks/watch_load.py [--watchers 1000] [--rate 100] [--seconds 20]
[--baseline REF]``. A script, not a test. It starts ``kube32-conformance serve`` from this checkout
(and, with ``--baseline``, from the commit REF in a temporary worktree, the same load right after)
and reports, per server:

- delivered: events counted by every watcher (each must see every write: watchers x writes);
- delivery p50/p99: write sent -> event in the watcher's socket (the kernel's arrival stamp), on
  ``--probes`` watchers that read at once and find each event's ``sent`` stamp;
- write p50/p99: the pod creates, paced at ``--rate``/s by a client of their own;
- GET p99: another client reading one pod 20 times a second meanwhile;
- idle sockets: with ``--idle`` connections open that never send a full request, how long a GET
  from another client takes (timeout 10 s = locked out);
- server CPU per delivered event, and how long the server's threads (and the clients') waited
  runnable for a CPU (``schedstat``): when that is large, other processes, not the server, set the tail.

The clients run in processes of their own, so they do not share the server's GIL, and cheaply (the
machine's two cores are shared with the server): watchers that only count read each socket once per
250 ms sweep and count the bytes that start an event line; the probes read at once from one selector
loop, find the ``sent`` stamp without decoding the event and time it against the kernel's arrival
stamp, so a probe scheduled late does not count as a late server; the writes and the GETs come from
the asyncio client (``_client``), pre-encoded. Each client process's CPU is printed, the writer's lag
(how late it sent against its pace) and the probes' read lag (read time - arrival). The server runs
in a session of its own (``_servers.server(own_session=True)``): with the kernel's autogroup, each
busy session gets an equal share of the CPU whatever its processes' nice. ``--server-cpus 0
--client-cpus 1`` keeps the server and the clients off each other's core.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing as mp
import os
import queue
import selectors
import socket
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _client  # noqa: E402
import _servers  # noqa: E402

PODS = "/api/v1/namespaces/default/pods"
TIMEOUT = 10.0


def request_bytes(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n\r\n".encode()


def open_watch(port: int, rv: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    s.sendall(request_bytes(f"{PODS}?watch=true&resourceVersion={rv}"))
    return s


SETUP = 60.0          # seconds for every watch of one process to be set up (a server that cannot: a result)
MARK = b'\n{"type":"'  # once per event: an event starts a line (a chunk's size line or the event before
                        # ends in a newline); a condition's "type" inside an object never follows one
READ = 1 << 18        # bytes per recv
SWEEP = 0.25          # seconds between the counting watchers' sweeps (~16 KB wait per socket: far below its buffer)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)     # Linux: the kernel's arrival time of what recvmsg reads


def await_head(s: socket.socket, deadline: float) -> bytes:
    """Block until the watch's response head has arrived (the watch is set up on the server), at
    most until ``deadline`` (monotonic); returns what came after it."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        data = s.recv(1 << 16)
        if not data:
            raise ConnectionError("the server closed a watch before its head")
        buf += data
    return buf.split(b"\r\n\r\n", 1)[1]


def counters(port: int, rv: str, n: int, ready, stop, result) -> None:
    """``n`` watches that count events (``MARK``), swept every ``SWEEP`` s: one ``recv`` per
    socket and sweep (a second only when the first filled the buffer), no decoding."""
    meter = _client.Meter()
    socks = []
    for _ in range(n):
        try:
            socks.append(open_watch(port, rv))
        except OSError:
            break
    counts = [0] * len(socks)
    tails = []
    deadline = time.monotonic() + SETUP
    for i, s in enumerate(socks):
        try:
            rest = await_head(s, deadline)     # every watch is set up before the writes start
        except OSError:
            rest = b""
        counts[i] = rest.count(MARK)
        tails.append(rest[-len(MARK) + 1:])
        s.setblocking(False)
    ready.set()
    closed = 0
    while True:
        done = stop.is_set()
        for i, s in enumerate(socks):
            while s is not None:
                try:
                    data = s.recv(READ)
                except BlockingIOError:
                    break
                except OSError:
                    data = b""
                if not data:
                    socks[i] = s = None
                    closed += 1
                    break
                # a mark split across two reads is counted once, in the join of the old tail and the new head
                counts[i] += data.count(MARK) + (tails[i] + data[:len(MARK) - 1]).count(MARK)
                tails[i] = (tails[i] + data[-len(MARK) + 1:])[-len(MARK) + 1:]
                if len(data) < READ:
                    break
        if done:
            break
        time.sleep(SWEEP)
    result.put({"opened": len(socks), "counts": counts, "closed": closed, **meter.result()})


def probes(port: int, rv: str, n: int, ready, stop, result) -> None:
    """``n`` watches read as soon as data arrives (one selector loop, no threads). Each event's
    ``sent`` annotation is timed against the moment its bytes reached the probe's socket, as the
    kernel stamped it (``SO_TIMESTAMPNS``: the probe's own lateness is not the server's), and the
    probe's lateness is kept apart (read time - arrival)."""
    meter = _client.Meter()
    latencies: list[float] = []
    read_lag: list[float] = []
    sel = selectors.DefaultSelector()
    counts = [0] * n
    deadline = time.monotonic() + SETUP
    for i in range(n):
        try:
            s = open_watch(port, rv)
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            rest = await_head(s, deadline)
        except OSError:
            continue
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, [i, rest])
    ready.set()
    while not stop.is_set() and sel.get_map():
        for key, _ in sel.select(0.2):
            now = time.time()
            state = key.data
            try:
                data, anc, _, _ = key.fileobj.recvmsg(READ, 64)
            except BlockingIOError:
                continue
            except OSError:
                data, anc = b"", []
            if not data:
                sel.unregister(key.fileobj)
                continue
            # the stamp is the newest segment's of this read: an event in an older segment counts as later
            arrived = next((sec + ns / 1e9 for level, kind, stamp in anc if kind == SO_TIMESTAMPNS
                            for sec, ns in [struct.unpack("qq", stamp[:16])]), now)
            read_lag.append(now - arrived)
            buf = state[1] + data
            start = 0
            while True:
                at = buf.find(MARK, start)
                if at < 0:
                    start = max(start, len(buf) - len(MARK) + 1)     # keep-alive spaces, a split mark
                    break
                end = buf.find(b"\n", at + 1)
                if end < 0:
                    start = at                                      # the event's end comes later
                    break
                counts[state[0]] += 1
                mark = buf.find(b'"sent":"', at, end)
                if mark >= 0:
                    latencies.append(arrived - float(buf[mark + 8:buf.index(b'"', mark + 8)]))
                start = end
            state[1] = buf[start:]
    result.put({"latencies": latencies, "read_lag": read_lag, "counts": counts, **meter.result()})


def write_and_get(port: int, rate: float, seconds: float, tag: str, get_path: str) -> dict:
    """In a client process: pod creates paced at ``rate``/s (each carrying its send time), and
    another client's GET of one pod every 50 ms on a connection of its own."""
    meter = _client.Meter()
    write_lat: list[float] = []
    get_lat: list[float] = []
    failures = [0]
    n_total = int(rate * seconds)
    get_req = _client.request("GET", get_path)

    async def run() -> None:
        writes = _client.Pool(port, 8, TIMEOUT, queue_timeout=False)   # a write fails after TIMEOUT on the wire
        gets = _client.Pool(port, 1, TIMEOUT)
        await writes.open()
        await gets.open()
        t0 = time.monotonic()

        def written(status: int, body: bytes, took: float) -> None:
            if status == 201:
                write_lat.append(took)
            else:
                failures[0] += 1

        def write(i: int) -> None:
            body = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"{tag}-{i}", "annotations": {"sent": repr(time.time())}},
                "spec": {"nodeName": "bench-node", "containers": [{"name": "c", "image": "app"}]}}).encode()
            writes.submit(_client.request("POST", PODS, body), written)

        async def get_loop() -> None:
            """One GET at a time, the next 50 ms after the last answer."""
            loop = asyncio.get_running_loop()
            while time.monotonic() < t0 + seconds:
                answer = loop.create_future()
                gets.submit(get_req, lambda status, body, took, answer=answer:
                            answer.done() or answer.set_result((status, took)))
                status, took = await answer
                get_lat.append(took if status == 200 else TIMEOUT)
                await asyncio.sleep(0.05)

        getter = asyncio.ensure_future(get_loop())
        await _client.paced(((t0 + i / rate, i) for i in range(n_total)), write, meter)
        await getter
        await writes.drain(2 * TIMEOUT)
        await gets.drain(TIMEOUT)
        failures[0] += n_total - len(write_lat) - failures[0]
        writes.close()
        gets.close()

    asyncio.run(run())
    return {"write_lat": write_lat, "failures": failures[0], "get_lat": get_lat, **meter.result()}


def idle_lockout(port: int, n: int) -> float:
    """Open ``n`` sockets that send half a request and nothing more; time another client's GET."""
    idle = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
            s.sendall(b"GET /version HTTP/1.1\r\n")
            idle.append(s)
        except OSError:
            break
    time.sleep(0.5)
    t0 = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        conn.request("GET", "/version")
        conn.getresponse().read()
        took = time.monotonic() - t0
    except OSError:
        took = float("inf")
    for s in idle:
        s.close()
    return took


def run_load(url: str, pid: int, args, tag: str) -> dict:
    port = int(url.rsplit(":", 1)[1])
    if getattr(args, "server_cpus", None):
        _servers.pin(pid, _servers.cpus(args.server_cpus))
    out: dict = {"idle_get": idle_lockout(port, args.idle)}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    conn.request("POST", PODS, json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{tag}-probe"},
                                           "spec": {"nodeName": "bench-node", "containers": [{"name": "c"}]}}),
                 {"Content-Type": "application/json"})
    conn.getresponse().read()
    conn.request("GET", PODS)
    rv = json.loads(conn.getresponse().read())["metadata"]["resourceVersion"]
    ctx = mp.get_context("fork")
    stop, results = ctx.Event(), ctx.Queue()
    ready_c, ready_p = ctx.Event(), ctx.Event()
    n_count = max(0, args.watchers - args.probes)
    procs = [ctx.Process(target=counters, args=(port, rv, n_count, ready_c, stop, results)),
             ctx.Process(target=probes, args=(port, rv, min(args.probes, args.watchers), ready_p, stop, results))]
    t_open = time.monotonic()
    for p in procs:
        p.start()
    ready_c.wait(SETUP + 30)
    ready_p.wait(SETUP + 30)
    out["open_s"] = time.monotonic() - t_open
    time.sleep(1.0)
    cpu0, wait0, wall0 = _servers.cpu_seconds(pid), _servers.run_queue_wait(pid), time.monotonic()
    [w] = _client.in_processes(write_and_get, [(port, args.rate, args.seconds, tag, f"{PODS}/{tag}-probe")],
                               timeout=args.seconds + 4 * TIMEOUT + 60)
    if not w or "write_lat" not in w:
        w = {"write_lat": [], "failures": int(args.rate * args.seconds), "get_lat": [TIMEOUT],
             "client_cpu_s": 0.0, "client_lag": [], "error": (w or {}).get("error", "the writer died")}
    write_lat, failures, got = w["write_lat"], w["failures"], w["get_lat"]
    time.sleep(args.drain)
    out["cpu_s"] = _servers.cpu_seconds(pid) - cpu0
    out["wait_s"], out["wall_s"] = _servers.run_queue_wait(pid) - wait0, time.monotonic() - wall0
    stop.set()
    parts = []
    for _ in procs:
        try:
            parts.append(results.get(timeout=60))
        except queue.Empty:
            pass
    for p in procs:
        p.join(30)
        if p.is_alive():
            p.kill()
    c = next((r for r in parts if "closed" in r), {"opened": 0, "counts": [], "closed": 0})
    pr = next((r for r in parts if "latencies" in r), {"latencies": [], "read_lag": [], "counts": []})
    writes = len(write_lat)
    every = c["counts"] + pr["counts"]
    out.update(writes=writes, write_failures=failures, watchers=c["opened"] + len(pr["counts"]),
               delivered=sum(every), expected=writes * len(every),
               complete=sum(1 for n in every if n == writes), closed=c["closed"],
               write_p50=_servers.percentile(write_lat, 50), write_p99=_servers.percentile(write_lat, 99),
               get_p99=_servers.percentile(got, 99), get_max=max(got or [0]),
               delivery_p50=_servers.percentile(pr["latencies"], 50),
               delivery_p99=_servers.percentile(pr["latencies"], 99),
               probe_lag_p99=_servers.percentile(pr["read_lag"], 99))
    out["cpu_us_per_event"] = out["cpu_s"] / max(1, out["delivered"]) * 1e6
    out.update(writer_lag_p99=_servers.percentile(w["client_lag"], 99), writer_cpu_s=w["client_cpu_s"],
               probe_cpu_s=pr.get("client_cpu_s", 0.0), counter_cpu_s=c.get("client_cpu_s", 0.0),
               clients_wait_s=sum(x.get("client_wait_s", 0.0) for x in (w, pr, c)))
    return out


def show(name: str, r: dict) -> None:
    ms = 1000
    print(f"\n{name}: {r['watchers']} watchers open (took {r['open_s']:.1f} s), {r['writes']} writes "
          f"({r['write_failures']} failed/timed out)")
    print(f"  delivered {r['delivered']}/{r['expected']} events; watchers with every event: "
          f"{r['complete']}/{r['watchers']}; streams cut: {r['closed']}")
    print(f"  delivery p50 {r['delivery_p50'] * ms:.1f} ms  p99 {r['delivery_p99'] * ms:.1f} ms   (target p99 <= 100)")
    print(f"  write    p50 {r['write_p50'] * ms:.1f} ms  p99 {r['write_p99'] * ms:.1f} ms   (target p99 <= 50)")
    print(f"  other client's GET p99 {r['get_p99'] * ms:.1f} ms, max {r['get_max'] * ms:.1f} ms   (target p99 <= 50)")
    print(f"  GET beside idle half-open sockets: {r['idle_get'] * ms:.1f} ms (inf = locked out)")
    print(f"  server CPU {r['cpu_s']:.1f} s = {r['cpu_us_per_event']:.1f} us per delivered event; its threads "
          f"waited {r['wait_s']:.1f} s runnable for a CPU (in {r['wall_s']:.0f} s)")
    print(f"  clients: CPU of the writer+GET process {r['writer_cpu_s']:.1f} s (lag p99 "
          f"{r['writer_lag_p99'] * ms:.0f} ms), of the probes {r['probe_cpu_s']:.1f} s (read lag p99 "
          f"{r['probe_lag_p99'] * ms:.1f} ms), of the counting watchers {r['counter_cpu_s']:.1f} s; they "
          f"waited {r['clients_wait_s']:.1f} s runnable")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--watchers", type=int, default=1000)
    ap.add_argument("--probes", type=int, default=20)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--drain", type=float, default=3.0, help="seconds to wait for the last events")
    ap.add_argument("--baseline", metavar="REF", help="also run the same load against commit REF")
    ap.add_argument("--no-control", dest="control", action="store_false",
                    help="skip the control run (this checkout, the same writes and GETs, no watchers)")
    ap.add_argument("--server-cpus", metavar="LIST", help="keep the server on these CPUs (e.g. 0)")
    ap.add_argument("--client-cpus", metavar="LIST",
                    help="keep this script and its client processes on these CPUs (e.g. 1): with "
                         "--server-cpus, whether the clients' CPU makes the server's tail")
    ap.add_argument("--same-session", dest="own_session", action="store_false",
                    help="run the server in this script's session (by default it has one of its own)")
    args = ap.parse_args(argv)
    if args.client_cpus:
        os.sched_setaffinity(0, _servers.cpus(args.client_cpus))
    print(f"{args.watchers} watchers, {args.rate:g} writes/s for {args.seconds:g} s; {_servers.load()}")
    runs = [("this checkout", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
    for name, ref in runs:
        try:
            with _servers.tree(ref) as source, _servers.server(source, own_session=args.own_session) as (url, pid):
                show(name, run_load(url, pid, args, "w"))
        except (SystemExit, OSError) as exc:      # a baseline that cannot even start is a result too
            print(f"\n{name}: could not run: {str(exc).strip()[-500:]}")
    if args.control and args.watchers:
        # What the shared machine allows right now: the same writes and GETs with no watch open.
        # The latency figures above are the server's only as far as they exceed these.
        control = argparse.Namespace(**{**vars(args), "watchers": 0, "probes": 0, "idle": 0})
        with _servers.server(_servers.ROOT, own_session=args.own_session) as (url, pid):
            r = run_load(url, pid, control, "c")
        print(f"\ncontrol (this checkout, no watchers, same writes and GETs): write p99 "
              f"{r['write_p99'] * 1000:.1f} ms, other client's GET p99 {r['get_p99'] * 1000:.1f} ms")
    print(f"\n{_servers.load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
