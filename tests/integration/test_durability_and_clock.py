"""Durability (kill -9 and restart on the same data dir keeps every acknowledged object with its
resourceVersion and uid; readers see a write only once it is on disk; a failed fsync stores nothing
and the server refuses writes until restart) and the manual clock (``/debug/clock`` moves
timestamps; absent with the real clock)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import threading
import time

import requests
from integration_helpers import Serve

from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread
from kube32.reference.store import backends
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


# -- readers see only durable writes; a failed fsync stores nothing ---------------------------------
@contextlib.contextmanager
def served(data_dir: str):
    """The reference in this process on an SQLite data dir (its fsync can be held or failed here)."""
    running = start_in_thread(Config(data_dir=data_dir, listen="127.0.0.1:0", clock="manual"))
    try:
        yield running
    finally:
        running.stop()


class WalFsync:
    """``os.fsync`` of the store's WAL file, held until ``release()`` or failing with EIO."""

    def __init__(self, monkeypatch, running) -> None:
        self.wal = running.control_plane.store._backend._wal_fd
        self.gate = threading.Event()
        self.gate.set()
        self.fail = False
        real = os.fsync

        def fsync(fd: int) -> None:
            if fd == self.wal:
                self.gate.wait(30)
                if self.fail:
                    raise OSError(errno.EIO, "Input/output error")
            real(fd)

        monkeypatch.setattr(backends.os, "fsync", fsync)

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()


class Watcher:
    """A watch of pods from ``rv``, its events with the time they arrived."""

    def __init__(self, url: str, rv: str) -> None:
        self.events: list[tuple[float, dict]] = []
        self.resp = requests.get(f"{url}{PODS}?watch=true&resourceVersion={rv}", stream=True, timeout=30)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.resp.iter_lines():
                if line.strip():
                    self.events.append((time.monotonic(), json.loads(line)))
        except (requests.RequestException, AttributeError):     # closed under the reader
            pass

    def close(self) -> None:
        self.resp.close()


def test_readers_see_a_write_only_once_it_is_on_disk(tmp_path, monkeypatch):
    """While the creator's fsync is held, no other client's GET, LIST or watch shows the pod; it is
    there for everybody once the creator has its 201."""
    with served(str(tmp_path / "data")) as running:
        url = running.url
        fsync = WalFsync(monkeypatch, running)
        rv = requests.get(url + PODS).json()["metadata"]["resourceVersion"]
        watcher = Watcher(url, rv)
        fsync.hold()
        answer: dict = {}
        creator = threading.Thread(target=lambda: answer.update(
            resp=requests.post(url + PODS, json=pod("held"), timeout=60)))
        creator.start()
        reader = requests.Session()
        seen_while_held = []
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            seen_while_held.append(reader.get(f"{url}{PODS}/held").status_code)
            seen_while_held.append(len(reader.get(url + PODS).json()["items"]))
        assert "resp" not in answer, "the create was answered before its fsync"
        assert set(seen_while_held) == {404, 0}, "another client saw a write that was not on disk"
        assert watcher.events == [], "a watcher was sent a write that was not on disk"
        fsync.release()
        creator.join(30)
        assert answer["resp"].status_code == 201
        assert reader.get(f"{url}{PODS}/held").json()["metadata"]["uid"] == answer["resp"].json()["metadata"]["uid"]
        until = time.monotonic() + 10                  # a bound on waiting, not a timing assertion
        while not watcher.events and time.monotonic() < until:
            time.sleep(0.01)
        watcher.close()
        first = watcher.events[0][1]
        assert first["type"] == "ADDED" and first["object"]["metadata"]["name"] == "held"


def test_a_failed_fsync_stores_nothing_and_the_server_refuses_writes_until_restart(tmp_path, monkeypatch, caplog):
    data = str(tmp_path / "data")
    with served(data) as running:
        url = running.url
        http = requests.Session()
        assert http.post(url + PODS, json=pod("before")).status_code == 201
        fsync = WalFsync(monkeypatch, running)
        fsync.fail = True
        failed = http.post(url + PODS, json=pod("lost"))
        assert failed.status_code == 500 and failed.json()["reason"] == "InternalError"
        assert http.get(f"{url}{PODS}/lost").status_code == 404            # never visible
        assert [p["metadata"]["name"] for p in http.get(url + PODS).json()["items"]] == ["before"]
        assert "was not stored" in failed.json()["message"]
        # no more durability claimed: every write is refused with a Status, reads go on
        for refused in (http.post(url + PODS, json=pod("lost")),
                        http.patch(f"{url}{PODS}/before", json={"metadata": {"labels": {"a": "b"}}},
                                   headers={"Content-Type": "application/merge-patch+json"}),
                        http.delete(f"{url}{PODS}/before")):
            status = refused.json()
            assert refused.status_code == 503 and status["kind"] == "Status"
            assert status["reason"] == "ServiceUnavailable" and "restart the server" in status["message"]
        assert http.get(f"{url}{PODS}/before").status_code == 200
        lines = [r for r in caplog.records if "fsync failed" in r.getMessage()]
        assert len(lines) == 1 and lines[0].levelname == "ERROR"
        fsync.fail = False
    with served(data) as again:                        # a restart on the same data dir
        http = requests.Session()
        assert http.get(f"{again.url}{PODS}/lost").status_code == 404
        assert http.post(again.url + PODS, json=pod("lost")).status_code == 201    # not 409: it was never stored
        assert http.get(f"{again.url}{PODS}/before").status_code == 200
