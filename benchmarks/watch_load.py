"""Load: N concurrent pod watches while pods are written at a steady rate, over loopback HTTP.

Run: ``.venv/bin/python benchmarks/watch_load.py [--watchers 1000] [--rate 100] [--seconds 20]
[--baseline REF]``. A script, not a test. It starts ``kube32-conformance serve`` from this checkout
(and, with ``--baseline``, from the commit REF in a temporary worktree, the same load right after)
and reports, per server:

- delivered: events counted by every watcher (each must see every write: watchers x writes);
- delivery p50/p99: write sent -> event read, measured on ``--probes`` watchers that parse each event;
- write p50/p99: the pod creates, paced at ``--rate``/s by a client of their own;
- GET p99: another client reading one pod 20 times a second meanwhile;
- idle sockets: with ``--idle`` connections open that never send a full request, how long a GET
  from another client takes (timeout 10 s = locked out);
- server CPU per delivered event.

Watchers that only count read their sockets every 100 ms in bulk (the clients share the machine's
CPU with the server); probes read at once.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import multiprocessing as mp
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _servers  # noqa: E402

PODS = "/api/v1/namespaces/default/pods"
TIMEOUT = 10.0


def request_bytes(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n\r\n".encode()


def open_watch(port: int, rv: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    s.sendall(request_bytes(f"{PODS}?watch=true&resourceVersion={rv}"))
    return s


def counters(port: int, rv: str, n: int, ready, stop, result) -> None:
    """``n`` watches that count ``"type":"`` occurrences, swept every 100 ms."""
    socks = []
    for _ in range(n):
        try:
            socks.append(open_watch(port, rv))
        except OSError:
            break
    for s in socks:
        s.setblocking(False)
    ready.set()
    counts = [0] * len(socks)
    tails = [b""] * len(socks)
    closed = 0
    while True:
        done = stop.is_set()
        for i, s in enumerate(socks):
            if s is None:
                continue
            while True:
                try:
                    data = s.recv(1 << 16)
                except BlockingIOError:
                    break
                except OSError:
                    data = b""
                if not data:
                    socks[i] = None
                    closed += 1
                    break
                buf = tails[i] + data
                counts[i] += buf.count(b'"type":"')
                tails[i] = buf[-8:]
                counts[i] -= tails[i].count(b'"type":"')
        if done:
            break
        time.sleep(0.1)
    for i, tail in enumerate(tails):
        counts[i] += tail.count(b'"type":"')
    result.put({"opened": len(socks), "counts": counts, "closed": closed})


def probes(port: int, rv: str, n: int, ready, stop, result) -> None:
    """``n`` watches that parse every event and time it against the write's send time."""
    latencies: list[float] = []
    counts = [0] * n
    lock = threading.Lock()

    def run(i: int) -> None:
        try:
            s = open_watch(port, rv)
        except OSError:
            return
        s.settimeout(0.5)
        buf = b""
        while not stop.is_set():
            try:
                data = s.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data:
                return
            now = time.time()
            buf += data
            while True:
                start = buf.find(b'{"type"')
                end = buf.find(b"\n", start)
                if start < 0 or end < 0:
                    break
                event = json.loads(buf[start:end])
                buf = buf[end + 1:]
                counts[i] += 1
                sent = ((event["object"].get("metadata") or {}).get("annotations") or {}).get("sent")
                if sent:
                    with lock:
                        latencies.append(now - float(sent))

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    ready.set()
    for t in threads:
        t.join()
    result.put({"latencies": latencies, "counts": counts})


def writer(port: int, rate: float, seconds: float, tag: str) -> tuple[list[float], int]:
    """Pod creates paced at ``rate``/s from a few keep-alive connections; (latencies, failures)."""
    latencies: list[float] = []
    failures = [0]
    n_total = int(rate * seconds)
    start = time.monotonic()
    numbers = itertools.count()          # next() on a count is atomic: each number goes to one thread

    def run() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        while True:
            i = next(numbers)
            if i >= n_total:
                return
            if time.monotonic() > start + seconds + 2 * TIMEOUT:     # the server is stuck: stop trying
                failures[0] += 1
                continue
            due = start + i / rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            body = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"{tag}-{i}", "annotations": {"sent": repr(time.time())}},
                "spec": {"nodeName": "bench-node", "containers": [{"name": "c", "image": "app"}]}})
            t0 = time.monotonic()
            try:
                conn.request("POST", PODS, body, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                ok = resp.status == 201
            except OSError:
                ok = False
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
            if ok:
                latencies.append(time.monotonic() - t0)
            else:
                failures[0] += 1

    threads = [threading.Thread(target=run, daemon=True) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, failures[0]


def getter(port: int, stop: threading.Event, path: str) -> list[float]:
    out: list[float] = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            conn.request("GET", path)
            conn.getresponse().read()
            out.append(time.monotonic() - t0)
        except OSError:
            out.append(TIMEOUT)
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        time.sleep(0.05)
    return out


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
    ready_c.wait(120)
    ready_p.wait(120)
    out["open_s"] = time.monotonic() - t_open
    time.sleep(1.0)
    cpu0 = _servers.cpu_seconds(pid)
    get_stop = threading.Event()
    got: list[list[float]] = []
    g = threading.Thread(target=lambda: got.append(getter(port, get_stop, f"{PODS}/{tag}-probe")))
    g.start()
    write_lat, failures = writer(port, args.rate, args.seconds, tag)
    get_stop.set()
    g.join()
    time.sleep(args.drain)
    out["cpu_s"] = _servers.cpu_seconds(pid) - cpu0
    stop.set()
    parts = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(30)
    c = next(r for r in parts if "closed" in r)
    pr = next(r for r in parts if "latencies" in r)
    writes = len(write_lat)
    every = c["counts"] + pr["counts"]
    out.update(writes=writes, write_failures=failures, watchers=c["opened"] + len(pr["counts"]),
               delivered=sum(every), expected=writes * len(every),
               complete=sum(1 for n in every if n == writes), closed=c["closed"],
               write_p50=_servers.percentile(write_lat, 50), write_p99=_servers.percentile(write_lat, 99),
               get_p99=_servers.percentile(got[0], 99), get_max=max(got[0] or [0]),
               delivery_p50=_servers.percentile(pr["latencies"], 50),
               delivery_p99=_servers.percentile(pr["latencies"], 99))
    out["cpu_us_per_event"] = out["cpu_s"] / max(1, out["delivered"]) * 1e6
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
    print(f"  server CPU {r['cpu_s']:.1f} s = {r['cpu_us_per_event']:.1f} us per delivered event")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--watchers", type=int, default=1000)
    ap.add_argument("--probes", type=int, default=20)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--drain", type=float, default=3.0, help="seconds to wait for the last events")
    ap.add_argument("--baseline", metavar="REF", help="also run the same load against commit REF")
    args = ap.parse_args(argv)
    print(f"{args.watchers} watchers, {args.rate:g} writes/s for {args.seconds:g} s; {_servers.load()}")
    runs = [("this checkout", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
    results = {}
    for name, ref in runs:
        with _servers.tree(ref) as source, _servers.server(source) as (url, pid):
            results[name] = run_load(url, pid, args, "w")
            show(name, results[name])
    print(f"\n{_servers.load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
