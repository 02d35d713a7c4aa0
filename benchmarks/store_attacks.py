"""Two hostile clients against the store of a real-clock ``serve`` on an SQLite data dir (fsync on),
and what another client sees meanwhile.

- ``patch``: one strategic merge patch adding 12,000 keyed entries (a container's ``env``, ~390 KiB)
  to a Deployment's pod template. Reported: how long the patch took, and the latency of another client's GETs and writes
  (a Lease PUT) sent every 10 ms while it ran: a patch computed under the store lock, in time
  quadratic in the list, stops every write for as long as it runs.
- ``history``: 5,000 merge patches from four clients, each setting a 200 KiB annotation of its pod to
  a new value, then the pods deleted. Reported: the server's RSS before, at its peak and once the history has let go
  (``history.MAX_AGE`` and a few housekeeping passes after the attacker left): memory bounded by
  bytes comes back.

Run: ``.venv/bin/python benchmarks/store_attacks.py [--attack patch|history|both] [--baseline REF]``.
A script, not a test (``tests/load/test_store_attacks.py`` runs both and checks what is not a time).
"""

from __future__ import annotations

import argparse
import json
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
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
MERGE = {"Content-Type": "application/merge-patch+json"}
ENTRIES = 12000
HISTORY_WRITES = 5000
ANNOTATION = 200 * 1024
ATTACKERS = 4
SETTLE = 75.0 + 15.0          # the history's age bound, and some housekeeping passes


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "blink", "env": [{"name": "A", "value": "1"}]}]}}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Prober(_probe.Background):
    """Another client: a GET and a Lease PUT every ``every`` seconds, each timed."""

    def __init__(self, url: str, every: float = 0.01) -> None:
        super().__init__(url, every)
        self.gets: list[tuple[float, float]] = []      # (sent, seconds)
        self.writes: list[tuple[float, float]] = []

    def setup(self, http) -> None:
        http.post(self.url + LEASES, json={"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                           "metadata": {"name": "probe"}, "spec": {"holderIdentity": "probe"}},
                  timeout=60)

    def once(self, http, i: int) -> None:
        t0 = time.monotonic()
        resp = http.get(f"{self.url}{LEASES}/probe", timeout=120)
        self.gets.append((t0, time.monotonic() - t0))
        lease = resp.json()
        lease["spec"]["leaseTransitions"] = i
        t1 = time.monotonic()
        put = http.put(f"{self.url}{LEASES}/probe", json=lease, timeout=120)
        self.writes.append((t1, time.monotonic() - t1))
        if put.status_code != 200:
            self.failures.append(f"PUT {put.status_code}")

    def during(self, start: float, end: float) -> dict:
        gets = [s for t, s in self.gets if start <= t <= end]
        writes = [s for t, s in self.writes if start <= t <= end]
        return {"gets": len(gets), "get_p99_ms": percentile(gets, 0.99) * 1000, "get_max_ms": max(gets, default=0) * 1000,
                "writes": len(writes), "write_p99_ms": percentile(writes, 0.99) * 1000,
                "write_max_ms": max(writes, default=0) * 1000, "failures": len(self.failures)}


def deployment(name: str) -> dict:
    """No replicas: the attack is on the store, not on the controllers."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod(name)["spec"]}}}


def patch_attack(url: str) -> dict:
    http = requests.Session()
    http.post(url + DEPLOYMENTS, json=deployment("victim"), timeout=60).raise_for_status()
    body = json.dumps({"spec": {"template": {"spec": {"containers": [{"name": "app", "env": [
        {"name": f"V{i:05d}", "value": "x"} for i in range(ENTRIES)]}]}}}})
    with Prober(url) as prober:
        time.sleep(1.0)
        start = time.monotonic()
        resp = http.patch(f"{url}{DEPLOYMENTS}/victim", data=body, headers=SMP, timeout=3600)
        end = time.monotonic()
        time.sleep(0.5)
    env = resp.json()["spec"]["template"]["spec"]["containers"][0].get("env", []) if resp.status_code == 200 else []
    return {"status": resp.status_code, "patch_kib": len(body) // 1024, "patch_s": end - start,
            "entries": len(env), **prober.during(start, end)}


def history_attack(url: str, pid: int, writes: int = HISTORY_WRITES, settle: float = SETTLE) -> dict:
    http = requests.Session()
    for k in range(ATTACKERS):                    # one pod each (the same pod: they would race for it)
        http.post(url + PODS, json=pod(f"diary-{k}"), timeout=60).raise_for_status()
    for i in range(20):                           # warm up: the code paths, the caches, the buffers
        http.patch(f"{url}{PODS}/diary-0", json={"metadata": {"annotations": {"note": str(i).ljust(ANNOTATION, "w")}}},
                   headers=MERGE, timeout=60).raise_for_status()
    http.patch(f"{url}{PODS}/diary-0", json={"metadata": {"annotations": None}}, headers=MERGE, timeout=60)
    time.sleep(settle)                            # and what the warm-up wrote is history no more
    start_kb = _servers.rss_kb(pid)
    peak = [start_kb]
    failed: list[str] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.5):
            peak.append(_servers.rss_kb(pid))

    def attacker(k: int, n: int) -> None:
        session = requests.Session()
        for i in range(n):
            value = f"{k}-{i}-".ljust(ANNOTATION, "x")
            resp = session.patch(f"{url}{PODS}/diary-{k}", json={"metadata": {"annotations": {"note": value}}},
                                 headers=MERGE, timeout=120)
            if resp.status_code != 200:
                failed.append(f"{resp.status_code} {resp.text[:200]}")

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.monotonic()
    threads = [threading.Thread(target=attacker, args=(k, writes // ATTACKERS)) for k in range(ATTACKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    for k in range(ATTACKERS):
        http.delete(f"{url}{PODS}/diary-{k}", params={"gracePeriodSeconds": "0"}, timeout=60)
    done.set()
    sampler.join()
    time.sleep(settle)                            # the attacker has left
    after_kb = _servers.rss_kb(pid)
    return {"writes": writes, "failed": len(failed), "first_failure": failed[0] if failed else "",
            "took_s": took, "start_mb": start_kb / 1024, "peak_mb": max(peak) / 1024, "after_mb": after_kb / 1024,
            "after_over_start": after_kb / start_kb}


def run(source: Path, attack: str) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as data, _servers.server(source, data_dir=data) as (url, pid):
        if attack in ("patch", "both"):
            out["patch"] = patch_attack(url)
        if attack in ("history", "both"):
            out["history"] = history_attack(url, pid)
    return out


def show(name: str, r: dict) -> None:
    print(name)
    if "patch" in r:
        p = r["patch"]
        print(f"  patch: {p['patch_kib']} KiB, {ENTRIES} keyed entries -> {p['status']} in {p['patch_s']:.2f} s "
              f"({p['entries']} entries after)")
        print(f"    meanwhile another client: {p['gets']} GETs p99 {p['get_p99_ms']:.1f} ms max {p['get_max_ms']:.0f} ms; "
              f"{p['writes']} writes p99 {p['write_p99_ms']:.1f} ms max {p['write_max_ms']:.0f} ms; "
              f"{p['failures']} failed")
    if "history" in r:
        h = r["history"]
        print(f"  history: {h['writes']} patches of a {ANNOTATION // 1024} KiB annotation in {h['took_s']:.0f} s "
              f"({h['failed']} failed{': ' + h['first_failure'] if h['failed'] else ''})")
        print(f"    RSS {h['start_mb']:.0f} MB before, {h['peak_mb']:.0f} MB at the peak, {h['after_mb']:.0f} MB "
              f"{SETTLE:.0f} s after the attacker left ({h['after_over_start']:.2f}x; target <= 1.2x)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attack", choices=("patch", "history", "both"), default="both")
    ap.add_argument("--baseline", metavar="REF", help="also run the same attacks against commit REF")
    args = ap.parse_args(argv)
    show("this checkout", run(_servers.ROOT, args.attack))
    if args.baseline:
        with _servers.tree(args.baseline) as source:
            show(f"baseline {args.baseline}", run(source, args.attack))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
