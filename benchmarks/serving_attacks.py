"""Hostile clients against the serving layer of a real-clock ``serve``, and what another client sees
meanwhile: its GETs (one every 20 ms; latency p50/p99/max, failures) and the server's memory (RSS
before, at the peak, and once the attacker has left).

- ``selectors``: 4 clients sending list and watch requests whose label selector is 60,000 spaces
  and a '#' (read by backtracking expressions, one held the GIL for 32 s);
- ``pipelining``: 50 connections pipelining list requests as fast as they can and never reading
  (memory grew without bound: +801 MB in 14 s);
- ``silent``: 4,200 connections that never send a byte, reopened as the server closes them (past
  4,096 every new connection was refused, for everyone);
- ``tls``: the same against a server with TLS (connections in the handshake were not counted,
  ~300 KB each);
- ``views``: 40 watches of Endpoints and EndpointSlices that never read, while Services and pods
  change (each one held one of the 16 request threads, for good);
- ``watches``: one client opening 2,000 pod watches while pods are written (one identity holds at
  most its share; the rest are told 429).

Run: ``.venv/bin/python benchmarks/serving_attacks.py [--attack NAME ...] [--seconds 30]
[--baseline REF]``. A script, not a test (``tests/load/test_serving_attacks.py`` runs each and
checks what is not a time: nothing failed, memory came back). The attackers run in a process of
their own; the server in a session of its own (``_servers.server(own_session=True)``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import selectors as io_selectors
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _probe  # noqa: E402
import _servers  # noqa: E402

PODS = "/api/v1/namespaces/default/pods"
PROBE = "/api/v1/namespaces/default"
EVERY = 0.02            # seconds between the other client's GETs
SETTLE = 20.0           # seconds after the attacker left before memory is read again
SILENT = 4200
ATTACKS = ("selectors", "pipelining", "silent", "tls", "views", "watches")


class Prober(_probe.Background):
    """Another client: a GET of ``PROBE`` every ``EVERY`` s on a keep-alive connection, timed
    (``pki``: over TLS as the admin of ``serve --tls-self-signed pki``)."""

    def __init__(self, url: str, pki: str | None = None) -> None:
        super().__init__(url, EVERY)
        self.verify = os.path.join(pki, "ca.crt") if pki else True
        self.cert = (os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key")) if pki else None
        self.latencies: list[float] = []

    def once(self, http, i: int) -> None:
        t0 = time.monotonic()
        status = http.get(self.url + PROBE, timeout=60, verify=self.verify, cert=self.cert).status_code
        self.latencies.append(time.monotonic() - t0)
        if status != 200:
            self.failures.append(f"GET {status}")


def _connect_many(port: int, n: int, tls: bool) -> list[socket.socket]:
    out = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            continue
        out.append(s)
    return out


# -- the attackers (each in a process of its own; ``stop`` ends them) ------------------------------
def attack_selectors(url: str, stop, stats) -> None:
    hostile = "+" * 60_000 + "%23"
    paths = [f"{PODS}?labelSelector={hostile}", f"{PODS}?watch=true&labelSelector={hostile}",
             f"/api/v1/endpoints?labelSelector={hostile}"]
    answered: list[int] = []

    def client(k: int) -> None:
        http = requests.Session()
        i = 0
        while not stop.is_set():
            try:
                answered.append(http.get(url + paths[(k + i) % len(paths)], timeout=120).status_code)
            except requests.RequestException:
                http = requests.Session()
            i += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats.put({"answered": {str(c): answered.count(c) for c in sorted(set(answered))}})


def attack_pipelining(url: str, stop, stats) -> None:
    port = int(url.rsplit(":", 1)[1])
    request = f"GET {PODS} HTTP/1.1\r\nHost: x\r\n\r\n".encode() * 64
    socks = []
    for _ in range(50):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        socks.append(s)
    sent = 0
    while not stop.is_set():
        progress = False
        for s in socks:
            try:
                n = s.send(request)
                sent += n
                progress = progress or n > 0
            except (BlockingIOError, OSError):
                pass
        if not progress:
            time.sleep(0.05)
    for s in socks:
        s.close()
    stats.put({"sent_mb": sent / 1e6})


def _hold_silent(url: str, stop, stats, tls: bool) -> None:
    port = int(url.rsplit(":", 1)[1])
    sel = io_selectors.DefaultSelector()
    socks = set(_connect_many(port, SILENT, tls))
    for s in socks:
        sel.register(s, io_selectors.EVENT_READ)
    closed = opened = 0
    while not stop.is_set():
        for key, _ in sel.select(0.5):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:                    # the server closed it: open another (the attack renews itself)
                sel.unregister(s)
                socks.discard(s)
                s.close()
                closed += 1
                for fresh in _connect_many(port, 1, tls):
                    sel.register(fresh, io_selectors.EVENT_READ)
                    socks.add(fresh)
                    opened += 1
    for s in socks:
        s.close()
    stats.put({"closed_by_server": closed, "reopened": opened})


def attack_silent(url: str, stop, stats) -> None:
    _hold_silent(url, stop, stats, tls=False)


def attack_tls(url: str, stop, stats) -> None:
    _hold_silent(url, stop, stats, tls=True)


def _watch(port: int, path: str) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s


def attack_views(url: str, stop, stats) -> None:
    port = int(url.rsplit(":", 1)[1])
    socks = [_watch(port, "/api/v1/endpoints?watch=true" if i % 2 else
                    "/apis/discovery.k8s.io/v1/endpointslices?watch=true") for i in range(40)]
    http = requests.Session()
    i = 0
    while not stop.is_set():                # Services and their pods come and go
        name = f"churn-{i % 20}"
        http.post(f"{url}/api/v1/namespaces/default/services", timeout=60, json={
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80}]}})
        http.post(url + PODS, timeout=60, json={
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "blink"}]}})
        http.patch(f"{url}{PODS}/{name}/status", timeout=60, headers={"Content-Type": "application/merge-patch+json"},
                   json={"status": {"podIP": f"10.0.0.{i % 250 + 1}", "conditions": [{"type": "Ready", "status": "True"}]}})
        if i >= 10:
            old = f"churn-{(i - 10) % 20}"
            http.delete(f"{url}{PODS}/{old}", params={"gracePeriodSeconds": "0"}, timeout=60)
            http.delete(f"{url}/api/v1/namespaces/default/services/{old}", timeout=60)
        i += 1
        stop.wait(0.05)
    for s in socks:
        s.close()
    stats.put({"changes": i})


def attack_watches(url: str, stop, stats) -> None:
    port = int(url.rsplit(":", 1)[1])
    codes: dict[int, int] = {}
    socks = []
    for _ in range(2000):
        s = _watch(port, f"{PODS}?watch=true")
        s.settimeout(30)
        head = b""
        try:
            while b"\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    break
                head += chunk
            code = int(head.split(b" ", 2)[1]) if head else 0
        except (OSError, ValueError, IndexError):
            code = 0
        codes[code] = codes.get(code, 0) + 1
        socks.append(s)
    http = requests.Session()
    i = 0
    while not stop.is_set():                # writes every watch is told of
        http.post(url + PODS, timeout=60, json={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"w-{i}"},
                                                "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}})
        i += 1
        stop.wait(0.1)
    for s in socks:
        s.close()
    stats.put({"answers": {str(k): v for k, v in sorted(codes.items())}, "writes": i})


def _attacker(name: str, url: str, stop, stats) -> None:
    globals()[f"attack_{name}"](url, stop, stats)


def run_attack(name: str, source: Path, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as pki, \
            _servers.server(source, own_session=True, tls_dir=pki if name == "tls" else None) as (url, pid):
        warm = Prober(url, pki if name == "tls" else None)
        http = requests.Session()
        for _ in range(50):                                     # warm up: code paths, caches, pool threads
            for path in (PROBE, PODS):
                http.get(url + path, timeout=60, verify=warm.verify, cert=warm.cert).raise_for_status()
        time.sleep(2)
        start_kb = _servers.rss_kb(pid)
        peak = [start_kb]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.wait(0.5):
                peak.append(_servers.rss_kb(pid))

        ctx = mp.get_context("spawn")
        stop, stats = ctx.Event(), ctx.Queue()
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        with Prober(url, pki if name == "tls" else None) as prober:
            time.sleep(1)
            before = len(prober.latencies)
            attacker = ctx.Process(target=_attacker, args=(name, url, stop, stats))
            attacker.start()
            time.sleep(seconds)
            during = list(prober.latencies[before:])
            stop.set()
            try:
                figures = stats.get(timeout=180)
            except Exception:
                figures = {"attacker": "gave no figures"}
            attacker.join(60)
            if attacker.is_alive():
                attacker.kill()
        sampling.set()
        sampler.join()
        time.sleep(SETTLE)
        after_kb = _servers.rss_kb(pid)
        return {"attack": name, **figures, "gets": len(during),
                "get_p50_ms": _servers.percentile(during, 50) * 1000,
                "get_p99_ms": _servers.percentile(during, 99) * 1000,
                "get_max_ms": max(during, default=float("nan")) * 1000,
                "failures": len(prober.failures), "first_failure": prober.failures[0] if prober.failures else "",
                "start_mb": start_kb / 1024, "peak_mb": max(peak) / 1024, "after_mb": after_kb / 1024,
                "after_over_start": after_kb / start_kb}


def show(r: dict) -> str:
    extra = {k: v for k, v in r.items() if k not in {
        "attack", "gets", "get_p50_ms", "get_p99_ms", "get_max_ms", "failures", "first_failure", "start_mb",
        "peak_mb", "after_mb", "after_over_start"}}
    return (f"{r['attack']}: another client's GETs p50 {r['get_p50_ms']:.1f} ms, p99 {r['get_p99_ms']:.1f} ms, "
            f"max {r['get_max_ms']:.0f} ms ({r['gets']} GETs, {r['failures']} failed"
            f"{': ' + r['first_failure'] if r['failures'] else ''}); RSS {r['start_mb']:.0f} MB -> peak "
            f"{r['peak_mb']:.0f} MB -> {r['after_mb']:.0f} MB {SETTLE:.0f} s after ({r['after_over_start']:.2f}x); "
            f"{json.dumps(extra)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attack", choices=ATTACKS, action="append", help="one attack (repeatable; default all)")
    ap.add_argument("--seconds", type=float, default=30.0, help="how long each attack lasts")
    ap.add_argument("--baseline", metavar="REF", help="also run the same attacks against commit REF")
    args = ap.parse_args(argv)
    attacks = args.attack or list(ATTACKS)
    print(f"this checkout ({_servers.load()})")
    for name in attacks:
        print("  " + show(run_attack(name, _servers.ROOT, args.seconds)), flush=True)
    if args.baseline:
        with _servers.tree(args.baseline) as source:
            print(f"baseline {args.baseline} ({_servers.load()})")
            for name in attacks:
                print("  " + show(run_attack(name, source, args.seconds)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
