"""Memory bounded by bytes: the history by bytes and age (older resourceVersions: 410 Gone), Events
by their time to live (and the recorder's table of repeats with them), the shared-container table by
what stored objects still use, the file by giving free pages back."""

from __future__ import annotations

import os

import pytest

from kube32.reference import errors
from kube32.reference import events as recorder
from kube32.reference.clock import ManualClock
from kube32.reference.config import Config
from kube32.reference.controlplane import ControlPlane
from kube32.reference.store import MemoryBackend, SqliteBackend, Store, history, housekeeping

START = 1_800_000_000.0


def pod(name: str, annotation: str = "", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": {"big": annotation}},
            "spec": {"containers": [{"name": "c", "image": "a", **spec}]}}


def test_the_history_holds_at_most_its_bytes(monkeypatch):
    monkeypatch.setattr(history, "MAX_BYTES", 4 * 1024 * 1024)
    store = Store(MemoryBackend(), ManualClock(START))
    store.create("pods", pod("p"))
    for i in range(200):                       # 200 writes of a 200 KiB annotation: 40 MiB of history unbounded
        current = store.get("pods", "default", "p")
        current["metadata"]["annotations"]["big"] = str(i) * (200 * 1024 // len(str(i)))
        store.update("pods", current)
    assert store.history.bytes <= history.MAX_BYTES
    assert len(store.history) < 25
    with pytest.raises(errors.Gone):           # what is no longer held answers 410 (Expired)
        store.watch("pods", None, 5)
    recent = store.watch("pods", None, store.history.floor)
    assert recent.next(0.01)[0] == "MODIFIED"


def test_the_history_lets_go_of_what_is_older_than_its_age():
    clock = ManualClock(START)
    store = Store(MemoryBackend(), clock)
    for i in range(10):
        store.create("pods", pod(f"p{i}"))
    clock.advance(history.MAX_AGE - 1)
    store.trim_history(clock.now())
    assert len(store.history) == 10
    clock.advance(2)
    store.create("pods", pod("fresh"))
    store.trim_history(clock.now())
    assert len(store.history) == 1 and store.history.floor == 10
    with pytest.raises(errors.Gone) as gone:
        store.watch("pods", None, 3)
    assert gone.value.code == 410 and gone.value.reason == "Expired"
    assert store.changes_after(3) is None       # a controller's feed is cut too: it does a full pass


def test_the_shared_table_forgets_what_deleted_objects_used():
    store = Store(MemoryBackend(), ManualClock(START))
    for i in range(20):
        store.create("pods", pod("kept", image="shared") | {"metadata": {"name": f"kept{i}", "namespace": "default"}})
    kept = len(store._compactor)
    for i in range(3000):                      # each with parts of its own
        store.create("pods", pod(f"p{i}", command=[f"run-{i}"], args=[f"--n={i}"]))
    for i in range(3000):
        store.delete("pods", "default", f"p{i}")
    store.history.trim(START + history.MAX_AGE + 1)      # (the history no longer holds them either)
    assert store.sweep() > 0
    assert len(store._compactor) <= kept + 5
    again = store.create("pods", pod("again", image="shared") | {"metadata": {"name": "x", "namespace": "default"}},
                         copy=False)
    assert again["spec"] is store.peek("pods", "default", "kept0")["spec"]       # sharing still works


def control_plane(tmp_path=None, ttl: float = 60.0) -> ControlPlane:
    cp = ControlPlane(Config(data_dir=str(tmp_path) if tmp_path else None, clock="manual", clock_start=START,
                             event_ttl=ttl))
    cp.start()
    return cp


def node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": f"uid-{name}"}}


def test_an_event_expires_its_time_to_live_after_its_last_write():
    cp = control_plane(ttl=60)
    try:
        seen: list[str] = []
        cp.store.sinks.append(lambda event: seen.append(event.type) if event.res == "events" else None)
        first = cp.events.record(node("a"), "Normal", "Tick", "once", "test")
        cp.clock.advance(30)
        cp.events.record(node("a"), "Normal", "Tick", "once", "test")        # a repeat: lives 60 s from here
        cp.events.record(node("b"), "Normal", "Tick", "once", "test")
        cp.clock.advance(59)
        assert {e["involvedObject"]["name"] for e in cp.store.list("events")} == {"a", "b"}
        cp.clock.advance(2)
        assert cp.store.list("events") == [] and len(cp.events) == 0
        assert seen == ["ADDED", "MODIFIED", "ADDED", "DELETED", "DELETED"]     # as watches see it
        again = cp.events.record(node("a"), "Normal", "Tick", "once", "test")
        assert again["count"] == 1 and again["metadata"]["name"] != first["metadata"]["name"]
    finally:
        cp.stop()


def test_a_client_written_event_expires_too_and_zero_keeps_events():
    cp = control_plane(ttl=60)
    try:
        cp.store.create("events", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"},
                                   "involvedObject": {"kind": "Node", "name": "a"}, "reason": "R", "message": "m"})
        cp.clock.advance(61)
        assert cp.store.list("events") == []
    finally:
        cp.stop()
    forever = control_plane(ttl=0)
    try:
        forever.events.record(node("a"), "Normal", "Tick", "once", "test")
        forever.clock.advance(10 * 3600)
        assert len(forever.store.list("events")) == 1
    finally:
        forever.stop()


def test_events_expire_after_a_restart_from_their_last_write(tmp_path):
    cp = control_plane(tmp_path, ttl=60)
    cp.events.record(node("a"), "Normal", "Tick", "once", "test")
    cp.clock.advance(40)
    cp.store.forget_commits()
    cp.events.record(node("b"), "Normal", "Tick", "once", "test")
    cp.store.wait_durable()
    cp.stop()
    again = ControlPlane(Config(data_dir=str(tmp_path), clock="manual", event_ttl=60))   # the clock goes on
    again.start()
    try:
        for seconds, left in ((21, ["b"]), (40, [])):
            again.store.forget_commits()
            again.clock.advance(seconds)
            again.store.wait_durable()              # the deletions this thread's clock jump made
            assert [e["involvedObject"]["name"] for e in again.store.list("events")] == left
    finally:
        again.stop()


def test_the_recorders_table_of_repeats_is_bounded(monkeypatch):
    monkeypatch.setattr(recorder, "MAX_SEEN", 50)
    cp = control_plane(ttl=0)
    try:
        for i in range(200):
            cp.events.record(node(f"n{i}"), "Normal", "Tick", "once", "test")
        assert len(cp.events) == 50
        cp.events.record(node("n199"), "Normal", "Tick", "once", "test")       # recent: still counted on
        cp.events.record(node("n0"), "Normal", "Tick", "once", "test")         # forgotten: a new Event

        def counts(name: str) -> list[int]:
            return [e["count"] for e in cp.store.list("events") if e["involvedObject"]["name"] == name]

        assert counts("n199") == [2] and counts("n0") == [1, 1]
    finally:
        cp.stop()


def test_housekeeping_deletes_a_bounded_number_per_hold_of_the_lock(monkeypatch):
    monkeypatch.setattr(housekeeping, "CHUNK", 10)
    monkeypatch.setattr(housekeeping, "PER_PASS", 30)
    clock = ManualClock(START)
    store = Store(MemoryBackend(), clock, ttls={"events": 5})
    for i in range(100):
        store.create("events", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"e{i}", "namespace": "d"}})
    chores = housekeeping.Housekeeping(store)
    clock.advance(6)
    chores.reconcile(clock.now())
    assert len(store.list("events")) == 70
    assert chores.idle_until(clock.now()) <= clock.now()       # more is due: it does not wait
    for _ in range(3):
        chores.reconcile(clock.now())
    assert store.list("events") == []


def test_the_file_gives_back_the_pages_of_deleted_objects(tmp_path):
    data = tmp_path / "data"
    store = Store(SqliteBackend(str(data), fsync=False), ManualClock(START))
    for i in range(400):
        store.create("pods", pod(f"p{i}", annotation="x" * 20000))
    store._backend._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    full = os.path.getsize(data / SqliteBackend.FILENAME)
    for i in range(400):
        store.delete("pods", "default", f"p{i}")
    for _ in range(40):
        store._backend.vacuum(housekeeping.VACUUM_PAGES)
    store._backend._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert os.path.getsize(data / SqliteBackend.FILENAME) < full / 4
    store.close()


def test_generate_name_tries_a_few_names_then_answers_already_exists(monkeypatch):
    from kube32.reference.store import store as store_module

    store = Store(MemoryBackend(), ManualClock(START))
    monkeypatch.setattr(store_module, "_SUFFIX_ALPHABET", "b")          # one name only: web-bbbbb
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-", "namespace": "default"}}
    assert store.create("pods", body)["metadata"]["name"] == "web-bbbbb"
    with pytest.raises(errors.AlreadyExists, match='"web-bbbbb" already exists'):
        store.create("pods", body)


def test_writes_waiting_for_a_stuck_disk_are_bounded(tmp_path, monkeypatch):
    import threading

    from kube32.reference.store import backends
    from kube32.reference.store import store as store_module

    store = Store(SqliteBackend(str(tmp_path / "data")), ManualClock(START))
    gate = threading.Event()
    real = os.fsync
    monkeypatch.setattr(backends.os, "fsync", lambda fd: (gate.wait(30), real(fd)))
    monkeypatch.setattr(store_module, "MAX_PENDING_BYTES", 20 * 1024)
    try:
        with pytest.raises(errors.ServiceUnavailable, match="has not synced"):
            for i in range(100):
                store.create("pods", pod(f"p{i}"))
        assert store._pending.bytes > 20 * 1024 and i < 40
        store.delete("pods", "default", "p0")          # deletes still go (they free what they hold)
        gate.set()
        store.wait_durable()
        store.create("pods", pod("after"))              # the disk caught up
    finally:
        gate.set()
        store.close()
