"""The store contract, run against both backends (memory and SQLite with fsync): identity,
resourceVersions, generation, optimistic concurrency, label-index reads without copies, watches and
410 Gone, and durability across a reopen (SQLite). On SQLite each write is acknowledged as the API
acknowledges it (``wait_durable``) before the test reads: readers see only durable writes."""

from __future__ import annotations

import copy
import threading

import pytest

from kube32.reference import errors
from kube32.reference.clock import ManualClock
from kube32.reference.store import MemoryBackend, SqliteBackend, Store, history
from kube32.reference.store import store as store_module
from kube32.spec import timefmt

START = 1_800_000_000.0


class Acknowledged:
    """A store whose writes return once durable (and so visible), as the API answers them."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def _acknowledged(self, write: str, *args, **kwargs):
        out = getattr(self._store, write)(*args, **kwargs)
        self._store.wait_durable()
        return out

    def create(self, *args, **kwargs):
        return self._acknowledged("create", *args, **kwargs)

    def update(self, *args, **kwargs):
        return self._acknowledged("update", *args, **kwargs)

    def delete(self, *args, **kwargs):
        return self._acknowledged("delete", *args, **kwargs)


@pytest.fixture(params=["memory", "sqlite"])
def backend_factory(request, tmp_path):
    if request.param == "memory":
        return MemoryBackend
    return lambda: SqliteBackend(str(tmp_path / "data"))


def opened(backend_factory, clock):
    store = Store(backend_factory(), clock)
    return Acknowledged(store) if store._backend.deferred else store


@pytest.fixture
def clock():
    return ManualClock(START)


@pytest.fixture
def store(backend_factory, clock):
    s = opened(backend_factory, clock)
    yield s
    s.close()


def pod(name: str, ns: str = "default", labels: dict | None = None, image: str = "a") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": image}]}}


def node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def test_create_assigns_identity(store):
    created = store.create("pods", pod("a"))
    meta = created["metadata"]
    assert meta["uid"] and meta["generation"] == 1
    assert meta["creationTimestamp"] == timefmt.rfc3339(START)
    assert meta["resourceVersion"] == str(store.resource_version) == "1"


def test_cluster_scoped_objects_have_no_namespace(store):
    created = store.create("nodes", node("n1"))
    assert "namespace" not in created["metadata"]
    assert store.get("nodes", "", "n1")["metadata"]["name"] == "n1"


def test_duplicate_create_is_already_exists(store):
    store.create("pods", pod("a"))
    with pytest.raises(errors.AlreadyExists):
        store.create("pods", pod("a"))
    store.create("pods", pod("a", ns="other"))     # same name, other namespace: fine


def test_resource_versions_are_store_wide_and_strictly_increasing(store):
    rvs = [int(store.create("pods", pod(f"p{i}"))["metadata"]["resourceVersion"]) for i in range(3)]
    rvs.append(int(store.create("nodes", node("n"))["metadata"]["resourceVersion"]))
    p = store.get("pods", "default", "p0")
    p["metadata"]["labels"] = {"x": "y"}
    rvs.append(int(store.update("pods", p)["metadata"]["resourceVersion"]))
    rvs.append(int(store.delete("pods", "default", "p1")["metadata"]["resourceVersion"]))
    assert rvs == [1, 2, 3, 4, 5, 6]
    assert store.resource_version == 6


def test_generation_moves_on_spec_change_only(store):
    store.create("pods", pod("a"))
    p = store.get("pods", "default", "a")
    p["metadata"]["labels"] = {"x": "y"}
    p["status"] = {"phase": "Running"}
    p = store.update("pods", p)
    assert p["metadata"]["generation"] == 1
    p["spec"]["containers"][0]["image"] = "b"
    p = store.update("pods", p)
    assert p["metadata"]["generation"] == 2


def test_no_op_update_keeps_the_resource_version(store):
    created = store.create("pods", pod("a"))
    again = store.update("pods", copy.deepcopy(created))
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    no_rv = copy.deepcopy(created)
    del no_rv["metadata"]["resourceVersion"]
    assert store.update("pods", no_rv)["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert store.resource_version == 1


def test_stale_update_is_conflict_and_changes_nothing(store):
    created = store.create("pods", pod("a"))
    fresh = copy.deepcopy(created)
    fresh["metadata"]["labels"] = {"v": "1"}
    store.update("pods", fresh)
    stale = copy.deepcopy(created)
    stale["metadata"]["labels"] = {"v": "stale"}
    with pytest.raises(errors.Conflict):
        store.update("pods", stale)
    assert store.get("pods", "default", "a")["metadata"]["labels"] == {"v": "1"}
    assert store.resource_version == 2
    forced = store.update("pods", stale, check_rv=False)
    assert forced["metadata"]["labels"] == {"v": "stale"}


def test_update_keeps_uid_creation_time_and_deletion_mark(store, clock):
    created = store.create("pods", pod("a"))
    marked = copy.deepcopy(created)
    marked["metadata"]["deletionTimestamp"] = timefmt.rfc3339(START + 30)
    store.update("pods", marked)
    clock.advance(10)
    later = store.get("pods", "default", "a")
    del later["metadata"]["deletionTimestamp"]
    later["metadata"]["uid"] = "forged"
    later["metadata"]["creationTimestamp"] = timefmt.rfc3339(START + 10)
    out = store.update("pods", later)
    assert out["metadata"]["uid"] == created["metadata"]["uid"]
    assert out["metadata"]["creationTimestamp"] == created["metadata"]["creationTimestamp"]
    assert out["metadata"]["deletionTimestamp"] == timefmt.rfc3339(START + 30)


def test_missing_objects_are_not_found(store):
    with pytest.raises(errors.NotFound):
        store.get("pods", "default", "nope")
    with pytest.raises(errors.NotFound):
        store.update("pods", pod("nope"))
    with pytest.raises(errors.NotFound):
        store.delete("pods", "default", "nope")
    assert store.try_get("pods", "default", "nope") is None


def test_get_returns_a_private_copy(store):
    store.create("pods", pod("a"))
    p = store.get("pods", "default", "a")
    p["metadata"]["labels"]["mutated"] = "yes"
    assert "mutated" not in store.get("pods", "default", "a")["metadata"]["labels"]


def test_list_is_sorted_and_scoped(store):
    for ns, name in [("b", "z"), ("a", "y"), ("b", "a")]:
        store.create("pods", pod(name, ns=ns))
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in store.list("pods")] == [
        ("a", "y"), ("b", "a"), ("b", "z")]
    assert [p["metadata"]["name"] for p in store.list("pods", "b")] == ["a", "z"]
    assert store.list("pods", "none") == []


def test_list_selector_uses_the_label_index(store):
    for i in range(6):
        store.create("pods", pod(f"p{i}", labels={"app": f"a{i % 3}", "tier": "x" if i < 3 else "y"}))
    assert [p["metadata"]["name"] for p in store.list("pods", "default", selector={"app": "a1"})] == ["p1", "p4"]
    assert [p["metadata"]["name"] for p in store.list("pods", "default", selector={"app": "a1", "tier": "y"})] \
        == ["p4"]
    p4 = store.get("pods", "default", "p4")
    p4["metadata"]["labels"] = {"app": "other"}
    store.update("pods", p4)
    assert [p["metadata"]["name"] for p in store.list("pods", "default", selector={"app": "a1"})] == ["p1"]
    store.delete("pods", "default", "p1")
    assert store.list("pods", "default", selector={"app": "a1"}) == []


def test_list_does_not_copy(store, monkeypatch):
    """Reads stay O(result): list() hands out the stored snapshots themselves, never deep copies."""
    for i in range(50):
        store.create("pods", pod(f"p{i}", labels={"app": "web" if i % 10 == 0 else "other"}))
    calls = []
    real = store_module.clone
    monkeypatch.setattr(store_module, "clone", lambda *a, **k: calls.append(1) or real(*a, **k))
    items = store.list("pods", "default", selector={"app": "web"})
    everything = store.list("pods")
    assert len(items) == 5 and len(everything) == 50
    assert calls == []
    assert items[0] is store.peek("pods", "default", "p0")


def test_a_list_snapshot_survives_later_writes(store):
    store.create("pods", pod("a", labels={"v": "1"}))
    snapshot = store.list("pods")
    p = store.get("pods", "default", "a")
    p["metadata"]["labels"] = {"v": "2"}
    store.update("pods", p)
    assert snapshot[0]["metadata"]["labels"] == {"v": "1"}


def test_watch_from_a_resource_version(store):
    store.create("pods", pod("a"))
    since = store.resource_version
    store.create("nodes", node("n"))                  # another resource: not in this watch
    p = store.get("pods", "default", "a")
    p["metadata"]["labels"] = {"x": "y"}
    store.update("pods", p)
    store.delete("pods", "default", "a")
    w = store.watch("pods", None, since)
    events = [w.next(0.01), w.next(0.01), w.next(0.01)]
    assert [e[0] if e else None for e in events] == ["MODIFIED", "DELETED", None]
    assert events[0][1]["metadata"]["labels"] == {"x": "y"}


def test_watch_filters_by_namespace(store):
    since = store.resource_version
    store.create("pods", pod("a", ns="one"))
    store.create("pods", pod("b", ns="two"))
    w = store.watch("pods", "two", since)
    kind, obj = w.next(0.01)
    assert (kind, obj["metadata"]["name"]) == ("ADDED", "b")
    assert w.next(0.01) is None


def test_watch_wakes_on_a_write_from_another_thread(store):
    w = store.watch("pods", None, None)
    got = []
    t = threading.Thread(target=lambda: got.append(w.next(10)))
    t.start()
    store.create("pods", pod("late"))
    t.join(10)
    assert got and got[0][0] == "ADDED" and got[0][1]["metadata"]["name"] == "late"


def test_watch_from_a_trimmed_version_is_gone(store, monkeypatch):
    monkeypatch.setattr(history, "MAX_BYTES", 5 * (history.EVENT_OVERHEAD + 200))
    for i in range(12):
        store.create("pods", pod(f"p{i}"))
    with pytest.raises(errors.Gone) as exc:
        store.watch("pods", None, 1)
    assert exc.value.code == 410 and exc.value.reason == "Expired"
    assert exc.value.message == "too old resource version: 1 (12)"
    floor = store.history.floor
    w = store.watch("pods", None, floor)              # the oldest version still served
    first = w.next(0.01)
    assert int(first[1]["metadata"]["resourceVersion"]) == floor + 1


def test_reopen_keeps_objects_and_resource_version(backend_factory, clock):
    s = opened(backend_factory, clock)
    created = s.create("pods", pod("a", labels={"app": "web"}))
    s.create("nodes", node("n"))
    gone = s.create("pods", pod("b"))
    s.delete("pods", "default", "b")
    rv = s.resource_version
    s.close()
    reopened = opened(backend_factory, clock)
    if isinstance(reopened._backend, MemoryBackend):
        assert reopened.list("pods") == [] and reopened.resource_version == 0
        return
    got = reopened.get("pods", "default", "a")
    assert got == created
    assert reopened.try_get("pods", "default", gone["metadata"]["name"]) is None
    assert reopened.resource_version == rv
    assert reopened.list("pods", "default", selector={"app": "web"})[0]["metadata"]["uid"] == created["metadata"]["uid"]
    assert int(reopened.create("pods", pod("c"))["metadata"]["resourceVersion"]) == rv + 1
    with pytest.raises(errors.Gone):
        reopened.watch("pods", None, rv - 1)          # history does not survive a restart
    reopened.close()


def test_generate_name(store):
    body = pod("x")
    body["metadata"] = {"generateName": "web-", "namespace": "default"}
    name = store.create("pods", body)["metadata"]["name"]
    assert name.startswith("web-") and len(name) == len("web-") + 5


def test_clone_copies_every_container_of_a_json_tree():
    obj = {"a": [1, {"b": None, "c": [True, 1.5, "x"]}], "d": {}, "e": "text"}
    copied = store_module.clone(obj)
    assert copied == obj and copy.deepcopy(obj) == copied
    pairs = [(copied, obj), (copied["a"], obj["a"]), (copied["a"][1], obj["a"][1]),
             (copied["a"][1]["c"], obj["a"][1]["c"]), (copied["d"], obj["d"])]
    assert all(a is not b for a, b in pairs)
