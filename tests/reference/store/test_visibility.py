"""Readers see only durable writes: while the WAL's fsync is held, every read (get, peek, list with
and without a selector, namespaces, resourceVersion, watches) shows the store as it was, the head
(what writers check against) shows everything; a failed fsync takes the pending writes back, in
memory and in the file, and the store refuses writes until it is opened again."""

from __future__ import annotations

import errno
import os
import threading

import pytest

from kube32.reference import errors
from kube32.reference.clock import ManualClock
from kube32.reference.store import SqliteBackend, Store, backends


def pod(name: str, ns: str = "default", labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "a"}]}}


class HeldFsync:
    def __init__(self, monkeypatch) -> None:
        self.gate = threading.Event()
        self.gate.set()
        self.fail = False
        real = os.fsync

        def fsync(fd: int) -> None:
            self.gate.wait(30)
            if self.fail:
                raise OSError(errno.EIO, "Input/output error")
            real(fd)

        monkeypatch.setattr(backends.os, "fsync", fsync)


@pytest.fixture
def fsync(monkeypatch):
    return HeldFsync(monkeypatch)


@pytest.fixture
def store(tmp_path, fsync):
    s = Store(SqliteBackend(str(tmp_path / "data")), ManualClock(1_800_000_000))
    yield s
    fsync.gate.set()
    s.close()


def acknowledged(store: Store, write, *args):
    store.forget_commits()
    out = write(*args)
    store.wait_durable()
    return out


def names(objs) -> list[str]:
    return [o["metadata"]["name"] for o in objs]


def test_pending_writes_are_invisible_to_readers_and_visible_to_writers(store, fsync):
    acknowledged(store, store.create, "pods", pod("kept", labels={"app": "web"}))
    acknowledged(store, store.create, "pods", pod("gone", labels={"app": "web"}))
    acknowledged(store, store.create, "pods", pod("old", ns="other"))
    rv = store.resource_version
    watch = store.watch("pods", None, rv)
    fsync.gate.clear()
    store.create("pods", pod("new", labels={"app": "web"}))
    store.create("pods", pod("elsewhere", ns="third"))
    changed = store.head.get("pods", "default", "kept")
    changed["metadata"]["labels"] = {"app": "db"}
    store.update("pods", changed)
    store.delete("pods", "default", "gone")
    store.delete("pods", "other", "old")
    # readers: as before the writes
    assert store.resource_version == rv
    assert store.peek("pods", "default", "new") is None and store.try_get("pods", "third", "elsewhere") is None
    assert store.get("pods", "default", "kept")["metadata"]["labels"] == {"app": "web"}
    assert store.peek("pods", "default", "gone") is not None
    assert names(store.list("pods")) == ["gone", "kept", "old"]
    assert names(store.list("pods", "default", selector={"app": "web"})) == ["gone", "kept"]
    assert store.list("pods", "default", selector={"app": "db"}) == []
    assert store.namespaces_of("pods") == ["default", "other"]
    assert watch.next(0.05) is None
    assert list(store.events_after(rv, "pods", None)) == []
    # writers: everything committed
    assert store.head.resource_version == rv + 5
    assert names(store.head.list("pods")) == ["kept", "new", "elsewhere"]
    assert names(store.head.list("pods", "default", selector={"app": "db"})) == ["kept"]
    with pytest.raises(errors.AlreadyExists):
        store.create("pods", pod("new"))
    fsync.gate.set()
    store.wait_durable()
    assert store.resource_version == rv + 5
    assert names(store.list("pods")) == ["kept", "new", "elsewhere"]
    assert names(store.list("pods", "default", selector={"app": "web"})) == ["new"]
    got = [watch.next(1) for _ in range(5)]
    assert [(t, o["metadata"]["name"]) for t, o in got] == [
        ("ADDED", "new"), ("ADDED", "elsewhere"), ("MODIFIED", "kept"), ("DELETED", "gone"), ("DELETED", "old")]
    assert store.namespaces_of("pods") == ["default", "third"]


def test_a_watch_gets_each_write_once_it_is_durable_in_order(store, fsync):
    rv = store.resource_version
    watch = store.watch("pods", None, rv)
    fsync.gate.clear()
    store.create("pods", pod("a"))
    store.create("pods", pod("b"))
    assert watch.next(0.05) is None
    fsync.gate.set()
    got = [watch.next(5), watch.next(5)]
    assert [(t, o["metadata"]["name"]) for t, o in got] == [("ADDED", "a"), ("ADDED", "b")]


def test_a_failed_fsync_takes_the_pending_writes_back_and_refuses_writes(tmp_path, store, fsync):
    acknowledged(store, store.create, "pods", pod("durable"))
    seen = []
    store.listeners.append(lambda kind, res, obj: seen.append((kind, obj["metadata"]["name"])))
    rv = store.resource_version
    fsync.gate.clear()
    fsync.fail = True
    store.forget_commits()
    store.create("pods", pod("lost"))
    changed = store.head.get("pods", "default", "durable")
    changed["metadata"]["labels"] = {"changed": "yes"}
    store.update("pods", changed)
    fsync.gate.set()
    with pytest.raises(errors.InternalError, match="was not stored"):
        store.wait_durable()
    # the head is back where readers stand; the caches that follow it were told
    assert store.head.resource_version == store.resource_version == rv
    assert names(store.head.list("pods")) == ["durable"]
    assert store.head.peek("pods", "default", "durable")["metadata"]["labels"] == {}
    assert ("DELETED", "lost") in seen and seen[-1][0] == "MODIFIED"
    assert store.changes_after(rv) == []
    for write in (lambda: store.create("pods", pod("more")), lambda: store.delete("pods", "default", "durable")):
        with pytest.raises(errors.ServiceUnavailable, match="restart the server"):
            write()
    fsync.fail = False
    store.close()
    again = Store(SqliteBackend(str(tmp_path / "data")), ManualClock(1_800_000_000))
    try:
        assert names(again.list("pods")) == ["durable"] and again.resource_version == rv
        assert again.get("pods", "default", "durable")["metadata"]["labels"] == {}
    finally:
        again.close()
