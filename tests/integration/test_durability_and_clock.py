"""Durability (kill -9 and restart on the same data dir keeps every acknowledged object with its
resourceVersion and uid) and the manual clock (``/debug/clock`` moves timestamps; absent with the
real clock)."""

from __future__ import annotations

import threading
import time

import requests
from integration_helpers import Serve

from kube32.spec import timefmt

PODS = "/api/v1/namespaces/default/pods"


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "durable"}},
            "spec": {"containers": [{"name": "a", "image": "x"}]}}


def test_kill_9_and_restart_keep_every_acknowledged_object(tmp_path):
    data = str(tmp_path / "data")
    first = Serve("--clock", "manual", data_dir=data).start()
    http = requests.Session()
    acknowledged = {}
    try:
        for i in range(25):
            resp = http.post(first.url + PODS, json=pod(f"p{i}"))
            assert resp.status_code == 201
            acknowledged[f"p{i}"] = resp.json()
        resp = http.patch(f"{first.url}{PODS}/p3", json={"metadata": {"labels": {"changed": "yes"}}},
                          headers={"Content-Type": "application/merge-patch+json"})
        acknowledged["p3"] = resp.json()
        assert http.delete(f"{first.url}{PODS}/p4").status_code == 200
        del acknowledged["p4"]
        ns = http.post(first.url + "/api/v1/namespaces",
                       json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kept"}}).json()
        last_rv = int(http.get(first.url + PODS).json()["metadata"]["resourceVersion"])
    finally:
        first.kill()                                   # SIGKILL: no shutdown, no flush

    second = Serve("--clock", "manual", data_dir=data, port=first.port).start()
    try:
        stored = {p["metadata"]["name"]: p for p in http.get(second.url + PODS).json()["items"]}
        assert set(stored) == set(acknowledged)
        for name, obj in acknowledged.items():
            got = stored[name]["metadata"]
            assert (got["uid"], got["resourceVersion"]) == (obj["metadata"]["uid"], obj["metadata"]["resourceVersion"])
        assert stored["p3"]["metadata"]["labels"]["changed"] == "yes"
        assert http.get(f"{second.url}/api/v1/namespaces/kept").json()["metadata"]["uid"] == ns["metadata"]["uid"]
        # the resourceVersion sequence continues where it stopped
        created = http.post(second.url + PODS, json=pod("after")).json()
        assert int(created["metadata"]["resourceVersion"]) > last_rv
    finally:
        second.stop()


def test_kill_9_during_writes_loses_no_acknowledged_object(tmp_path):
    """Writers keep creating pods while the process is killed: every 201 they received names an object
    that is there after the restart, with the same uid and resourceVersion."""
    data = str(tmp_path / "data")
    first = Serve("--clock", "manual", data_dir=data).start()
    acknowledged: dict[str, dict] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def writer(prefix: str) -> None:
        http = requests.Session()
        i = 0
        while not stop.is_set():
            try:
                resp = http.post(first.url + PODS, json=pod(f"{prefix}-{i}"), timeout=60)   # fsync on a busy disk
            except requests.RequestException:
                return                                    # the server is gone
            if resp.status_code == 201:
                with lock:
                    acknowledged[resp.json()["metadata"]["name"]] = resp.json()
            i += 1

    threads = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60                      # a bound on waiting, not a timing assertion
    while time.monotonic() < deadline:                    # until enough writes were acknowledged
        with lock:
            if len(acknowledged) >= 60:
                break
        time.sleep(0.01)
    assert len(acknowledged) >= 60, f"only {len(acknowledged)} writes were acknowledged"
    first.kill()
    stop.set()
    for t in threads:
        t.join(10)
    second = Serve("--clock", "manual", data_dir=data, port=first.port).start()
    try:
        stored = {p["metadata"]["name"]: p["metadata"] for p in requests.get(second.url + PODS).json()["items"]}
        missing = sorted(set(acknowledged) - set(stored))
        assert not missing, f"{len(missing)} acknowledged pods are gone after kill -9: {missing[:5]}"
        for name, obj in acknowledged.items():
            assert (stored[name]["uid"], stored[name]["resourceVersion"]) == \
                (obj["metadata"]["uid"], obj["metadata"]["resourceVersion"])
    finally:
        second.stop()


def test_manual_clock_moves_timestamps():
    server = Serve("--clock", "manual").start()
    try:
        http = requests.Session()
        clock = http.get(server.url + "/debug/clock").json()
        before = http.post(server.url + PODS, json=pod("before")).json()
        assert before["metadata"]["creationTimestamp"] == timefmt.rfc3339(clock["epoch"])
        moved = http.post(server.url + "/debug/clock", json={"advance": 330}).json()
        assert moved["epoch"] == clock["epoch"] + 330
        after = http.post(server.url + PODS, json=pod("after")).json()
        assert timefmt.parse(after["metadata"]["creationTimestamp"]) - \
            timefmt.parse(before["metadata"]["creationTimestamp"]) == 330
        bad = http.post(server.url + "/debug/clock", json={"advance": -5})
        assert bad.status_code == 400 and bad.json()["reason"] == "BadRequest"
    finally:
        server.stop()


def test_real_clock_has_no_clock_endpoint():
    server = Serve().start()
    try:
        resp = requests.get(server.url + "/debug/clock")
        assert resp.status_code == 404 and resp.json()["reason"] == "NotFound"
        assert requests.post(server.url + "/debug/clock", json={"advance": 1}).status_code == 404
    finally:
        server.stop()
