"""Group commit: a write is acknowledged only after an fsync that covers it, and one fsync covers
every write committed while the previous one ran (counted by wrapping the real ``os.fsync``)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from kube32.reference.clock import ManualClock
from kube32.reference.store import SqliteBackend, Store, backends


@pytest.fixture
def fsyncs(monkeypatch):
    """The file descriptors of every fsync the backend makes; each takes >= 5 ms, as on a real disk."""
    calls: list[int] = []
    real = os.fsync

    def counting(fd):
        calls.append(fd)
        time.sleep(0.005)
        return real(fd)

    monkeypatch.setattr(backends.os, "fsync", counting)
    return calls


def lease(name: str) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name, "namespace": "default"}}


def open_store(tmp_path, fsync: bool = True) -> Store:
    return Store(SqliteBackend(str(tmp_path / "data"), fsync=fsync), ManualClock(1_800_000_000))


def acknowledge(store: Store, name: str) -> int:
    """A request's write and its answer: the commit number, once durable."""
    store.forget_commits()
    store.create("leases.coordination.k8s.io", lease(name))
    seq = store._committed.seq
    store.wait_durable()
    assert store._backend.synced >= seq, "answered before an fsync covered the write"
    return seq


def test_one_writer_one_fsync_per_acknowledged_write(tmp_path, fsyncs):
    store = open_store(tmp_path)
    before = len(fsyncs)
    for i in range(10):
        acknowledge(store, f"l{i}")
    assert len(fsyncs) - before == 10          # each batch is one write: one fsync each
    store.close()


def test_eight_writers_share_fsyncs(tmp_path, fsyncs):
    store = open_store(tmp_path)
    before = len(fsyncs)
    acked: list[int] = []

    def writer(k: int) -> None:
        for i in range(25):
            acked.append(acknowledge(store, f"w{k}-{i}"))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    wal_syncs = [fd for fd in fsyncs[before:] if fd == store._backend._wal_fd]
    syncs = len(wal_syncs)
    assert len(acked) == 200
    assert store._backend.syncs == syncs == len(fsyncs) - before      # every fsync was of the WAL
    assert 1 <= syncs < len(acked) / 2, f"{syncs} fsyncs for {len(acked)} acknowledged writes: no batching"
    store.close()


def test_unsafe_mode_answers_without_fsync(tmp_path, fsyncs):
    store = open_store(tmp_path, fsync=False)
    for i in range(5):
        created = store.create("leases.coordination.k8s.io", lease(f"u{i}"))
        store.wait_durable()
        assert created["metadata"]["name"] == f"u{i}"
    assert fsyncs == []
    store.close()
