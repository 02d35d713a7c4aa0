"""Soak: ``serve --nodes 50`` on an SQLite data dir with Deployment churn (created, scaled, rolled,
deleted, a step every couple of seconds) for ``KUBE32_SOAK_SECONDS`` (30 minutes), Events living
``EVENT_TTL``. Once the first TTL has passed, Events expire as fast as they come: the server's RSS
and its database file must then stay flat (the second half of the rest no more than
``FLAT`` above the first). Run by ``tox -e soak`` only (``KUBE32_SOAK=1``); prints its samples."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _servers  # noqa: E402

pytestmark = pytest.mark.skipif(not os.environ.get("KUBE32_SOAK"), reason="the soak runs in tox -e soak")

SECONDS = float(os.environ.get("KUBE32_SOAK_SECONDS", 1800))
EVENT_TTL = 300.0                  # seconds: the flat part starts once the first Events have expired
SETTLE = 120.0                     # and the history, the tables and the file have caught up
SAMPLE = 30.0
FLAT = 0.10
NODES = 50
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
DATABASE = "kube32.sqlite3"


def deployment(name: str, replicas: int, image: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [
                         {"name": "blink", "image": image, "resources": {"requests": {"memory": "8Ki"}}}]}}}}


class Churn:
    """Deployments d0..d9: each step creates, scales, rolls (a new image) or deletes one of them."""

    def __init__(self, url: str) -> None:
        self.url, self.http, self.step, self.failed = url, requests.Session(), 0, []

    def next(self) -> None:
        k = self.step % 10
        phase = (self.step // 10) % 4
        name = f"d{k}"
        self.step += 1
        try:
            if phase == 0:
                resp = self.http.post(self.url + DEPLOYMENTS, json=deployment(name, 1 + k % 5, "blink:1"), timeout=60)
            elif phase == 1:
                resp = self.http.patch(f"{self.url}{DEPLOYMENTS}/{name}", json={"spec": {"replicas": 5 - k % 5}},
                                       headers={"Content-Type": "application/merge-patch+json"}, timeout=60)
            elif phase == 2:
                resp = self.http.patch(f"{self.url}{DEPLOYMENTS}/{name}", json={"spec": {"template": {"spec": {
                    "containers": [{"name": "blink", "image": f"blink:{self.step}"}]}}}},
                    headers={"Content-Type": "application/strategic-merge-patch+json"}, timeout=60)
            else:
                resp = self.http.delete(f"{self.url}{DEPLOYMENTS}/{name}", timeout=60)
            if resp.status_code >= 500:
                self.failed.append(f"{resp.status_code} {resp.text[:200]}")
        except requests.RequestException as exc:
            self.failed.append(repr(exc))


def ready_nodes(url: str) -> int:
    nodes = requests.get(url + "/api/v1/nodes", timeout=60).json()["items"]
    return sum(any(c["type"] == "Ready" and c["status"] == "True" for c in (n.get("status") or {}).get("conditions", []))
               for n in nodes)


def sample(url: str, pid: int, data: str, t0: float) -> dict:
    events = len(requests.get(url + "/api/v1/events", timeout=60).json()["items"])
    pods = len(requests.get(url + "/api/v1/pods", timeout=60).json()["items"])
    wal = Path(data, DATABASE + "-wal")
    return {"t": time.monotonic() - t0, "rss_mb": _servers.rss_kb(pid) / 1024,
            "db_mb": os.path.getsize(Path(data, DATABASE)) / 2**20,
            "wal_mb": os.path.getsize(wal) / 2**20 if wal.exists() else 0.0, "events": events, "pods": pods,
            "ready": ready_nodes(url)}


@pytest.mark.timeout(SECONDS + 900)
def test_rss_and_the_database_stay_flat_once_events_expire():
    with tempfile.TemporaryDirectory() as data, _servers.server(
            _servers.ROOT, "--nodes", str(NODES), "--event-ttl", f"{EVENT_TTL:g}", data_dir=data) as (url, pid):
        deadline = time.monotonic() + 120
        while ready_nodes(url) < NODES and time.monotonic() < deadline:
            time.sleep(1)
        churn = Churn(url)
        t0 = time.monotonic()
        samples = []
        next_sample = t0
        while time.monotonic() - t0 < SECONDS:
            churn.next()
            if time.monotonic() >= next_sample:
                samples.append(sample(url, pid, data, t0))
                s = samples[-1]
                print(f"{s['t'] / 60:5.1f} min  RSS {s['rss_mb']:6.1f} MB  db {s['db_mb']:6.2f} MB  "
                      f"wal {s['wal_mb']:5.2f} MB  events {s['events']:5d}  pods {s['pods']:3d}  "
                      f"Ready {s['ready']}", flush=True)
                next_sample += SAMPLE
            time.sleep(2.0)
    assert not churn.failed, churn.failed[:5]
    assert all(s["ready"] == NODES for s in samples), "a simulated board went NotReady"
    steady = [s for s in samples if s["t"] >= EVENT_TTL + SETTLE]
    assert len(steady) >= 4, "too short a soak to judge"
    first, second = steady[:len(steady) // 2], steady[len(steady) // 2:]
    for field in ("rss_mb", "db_mb"):
        before, after = max(s[field] for s in first), max(s[field] for s in second)
        print(f"{field}: at most {before:.1f} in the first half after the first TTL, {after:.1f} in the second")
        assert after <= before * (1 + FLAT), f"{field} grows: {before:.1f} -> {after:.1f}"
