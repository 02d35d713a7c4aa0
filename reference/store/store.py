"""The store: objects by resource, namespace and name, with optimistic concurrency and watches.

Contract (every caller, every mode):
- Stored objects are never changed in place. Every write replaces the object; what ``peek``,
  ``list``, ``copy=False``, watch events and ``Store.head`` hand out is the stored object itself
  (shared with every other reader, and sharing equal subtrees with other objects: ``compact``), so
  it is READ-ONLY; ``get``/``try_get`` return deep copies a caller may change. The frozen-store
  mode (``frozen.ENV``, on in the test suite) makes a breach raise where it happens.
- Readers see only durable writes. A write is checked, committed to the backend and applied to the
  head under ``lock``; it becomes visible to ``get``/``peek``/``list``/``resource_version``/watches
  once the backend has it on disk (group commit, ``pending``), and ``wait_durable()`` returns once
  the calling thread's writes are durable and visible: a request is answered only then.
- Writers (controllers, admission, the API's write paths), who hold ``lock`` for a
  read-modify-write, read ``Store.head``: every committed write, durable or not. What they write
  after reading a pending write comes later in the backend's log, so it can never be durable
  without it.
- A write the backend could not make durable (a failed fsync) is taken back: the head returns to
  what readers saw, nothing of it is ever visible, and the store refuses every later write
  (``errors.ServiceUnavailable``) until the server restarts: after a failed fsync the state of the
  file is unknown, and acknowledging more writes would claim a durability the disk no longer gives.
- Memory is bounded by bytes: the history (``history``) by bytes and age, the shared-container
  table by what stored objects still use (``Compactor.sweep``), Events by their time to live
  (``expiry``, run by ``housekeeping``).
"""

from __future__ import annotations

import logging
import secrets
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable

from kube32.reference import errors
from kube32.reference.clock import Clock
from kube32.reference.machinery import encoding, limits
from kube32.reference.resources import BY_KEY
from kube32.reference.store import frozen as frozen_mode
from kube32.reference.store.compact import Compactor
from kube32.reference.store.expiry import Expiry
from kube32.reference.store.history import Event, History
from kube32.reference.store.pending import Key, Pending
from kube32.spec import timefmt

log = logging.getLogger(__name__)

_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
GENERATE_NAME_ATTEMPTS = 8          # upstream's maxNameGenerationCreateAttempts
MAX_PENDING_BYTES = 64 * 1024 * 1024     # writes waiting for their fsync; more: 503 until the disk catches up
PUBLISH_WAIT = 0.05     # seconds the fsync thread waits for the store lock before it goes on fsyncing
SWEEP_BYTES = 16 * 1024 * 1024     # containers tabled (estimated bytes) that make the table swept

Listener = Callable[[str, str, dict], None]   # (event type, resource key, object)


def clone(value):
    """A deep copy of a JSON tree (dicts, lists, scalars): what ``copy.deepcopy`` gives, at a
    third of its cost (no memo, no dispatch on types a JSON object cannot hold). Always plain
    dicts and lists, frozen ones included."""
    kind = type(value)
    if kind in _DICTS:
        return {k: clone(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if kind in _CONTAINERS:
        return [clone(v) if type(v) in _CONTAINERS else v for v in value]
    return value


_DICTS = frozenset((dict, frozen_mode.FrozenDict))
_CONTAINERS = frozenset((dict, list, frozen_mode.FrozenDict, frozen_mode.FrozenList))


class Changed(Exception):
    """A compare-and-swap update found another write in between (the caller reads again)."""


def generation_moves(old: dict, new: dict) -> bool:
    """``metadata.generation`` counts spec changes only (not metadata, not status)."""
    return new.get("spec") != old.get("spec")


def _names(res: str) -> tuple[str, str]:
    r = BY_KEY.get(res)
    return (r.plural, r.group) if r else (res, "")


def _bounded(body: str, res: str, name: str) -> str:
    """An object's JSON as stored, refused past ``limits.MAX_OBJECT_BYTES`` (etcd's request limit)."""
    if len(body) > limits.MAX_OBJECT_BYTES:
        plural, group = _names(res)
        raise errors.RequestEntityTooLarge(
            f'{plural}{"." + group if group else ""} "{name}" would be {len(body)} bytes as stored; the limit is '
            f"{limits.MAX_OBJECT_BYTES} bytes", name=name, kind=plural, group=group)
    return body


def _labels_match(obj: dict, selector: dict[str, str]) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(k in labels and str(labels[k]) == v for k, v in selector.items())


class Reads:
    """``try_get`` and ``get`` over a view's ``peek``: a copy the caller may change, or a 404. The
    readers' view (``Store``) and the writers' (``Head``) differ only in what ``peek`` sees."""

    def peek(self, res: str, namespace: str, name: str) -> dict | None:
        raise NotImplementedError

    def try_get(self, res: str, namespace: str, name: str) -> dict | None:
        obj = self.peek(res, namespace, name)
        return clone(obj) if obj is not None else None

    def get(self, res: str, namespace: str, name: str) -> dict:
        obj = self.try_get(res, namespace, name)
        if obj is None:
            raise errors.NotFound.object(*_names(res), name)
        return obj


class Head(Reads):
    """The writers' view: every committed write, durable or not (see the module doc). Call with
    the store lock held when what is read decides a write."""

    def __init__(self, store: Store) -> None:
        self._store = store

    @property
    def resource_version(self) -> int:
        return self._store._rv

    def peek(self, res: str, namespace: str, name: str) -> dict | None:
        """The stored object itself (READ-ONLY)."""
        return self._store._objects[res].get(namespace or "", {}).get(name)

    def list(self, res: str, namespace: str | None = None, *, selector: dict[str, str] | None = None) -> list[dict]:
        """READ-ONLY objects, sorted by namespace and name."""
        return self._store._list(res, namespace, selector, durable=False)


class Store(Reads):
    def __init__(self, backend, clock: Clock, *, ttls: dict[str, float] | None = None,
                 frozen: bool | None = None) -> None:
        self.closed = False
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._backend = backend
        self._clock = clock
        self._frozen = frozen_mode.enabled() if frozen is None else frozen
        self._compactor = Compactor(frozen=self._frozen)
        # resource -> namespace -> name -> object (the head)
        self._objects: dict[str, dict[str, dict[str, dict]]] = defaultdict(lambda: defaultdict(dict))
        # (resource, namespace) -> its names sorted, kept until a name comes or goes (list())
        self._sorted: dict[tuple[str, str], list[str]] = {}
        # resource -> (namespace, label key, label value) -> names
        self._labels: dict[str, dict[tuple[str, str, str], set[str]]] = defaultdict(lambda: defaultdict(set))
        self._pending = Pending()
        self._published = 0               # the backend commit up to which writes are visible
        self.expiry = Expiry(ttls or {})
        self.failure: errors.ApiError | None = None    # set once a write could not be made durable
        self.head = Head(self)
        self.listeners: list[Listener] = []   # every head write, under the lock (internal caches)
        self._committed = threading.local()    # the last commit of this thread (wait_durable)
        self.changed_at: dict[str, int] = {}     # resource key -> the rv of its last write (head)
        # called with every Event once it is durable, in order, under the lock (the watch hub: must only enqueue)
        self.sinks: list[Callable[[Event], None]] = []
        rv, rows = backend.load()
        self._rv = self._durable_rv = rv
        for res, ns, name, obj in rows:
            obj = self._seal(self._compactor.compact_object(obj))
            self._put(res, ns, name, obj)
            self.expiry.loaded((res, ns, name), obj)
        self.history = History(floor=rv)
        self._compactor.swept_at = len(self._compactor)
        backend.on_durable = self._publish_from_backend
        backend.on_failure = self._lose_pending

    # -- reads (durable writes only) -----------------------------------------------------------
    @property
    def resource_version(self) -> int:
        """The resourceVersion readers see: that of the last durable write."""
        return self._durable_rv

    def peek(self, res: str, namespace: str, name: str) -> dict | None:
        """The stored object itself (READ-ONLY): no copy."""
        obj = self._objects[res].get(namespace or "", {}).get(name)
        if self._pending.visible:        # read after the head: an entry is added before the head moves
            entry = self._pending.visible.get((res, namespace or "", name))
            if entry is not None:
                return entry[0]
        return obj

    def list(self, res: str, namespace: str | None = None, *, selector: dict[str, str] | None = None) -> list[dict]:
        """READ-ONLY snapshots, sorted by namespace and name. ``selector``: label equalities."""
        return self._list(res, namespace, selector, durable=True)

    def namespaces_of(self, res: str) -> list[str]:
        with self.lock:
            changing = self._pending.namespaces(res)
            spaces = {ns for ns, items in self._objects[res].items() if items and ns not in changing}
            return sorted(spaces | {ns for ns in changing if self.list(res, ns)})

    def _list(self, res: str, namespace: str | None, selector: dict[str, str] | None, durable: bool) -> list[dict]:
        with self.lock:
            spaces = self._objects[res]
            pending = self._pending if durable and self._pending.by_resource.get(res) else None
            if namespace is not None:
                nss = [namespace]
            else:
                nss = sorted(ns for ns, items in spaces.items() if items)
                if pending is not None:
                    nss = sorted(set(nss) | pending.namespaces(res))
            out: list[dict] = []
            for ns in nss:
                items = spaces.get(ns, {})
                changing = pending.names(res, ns) if pending is not None else ()
                if changing:
                    out.extend(self._visible_items(res, ns, items, changing, selector))
                elif selector:
                    names = self._select(res, ns, selector)
                    out.extend(items[n] for n in sorted(names) if n in items)
                elif items:
                    out.extend(map(items.__getitem__, self._names_sorted(res, ns, items)))
            return out

    def _visible_items(self, res: str, ns: str, items: dict[str, dict], changing: set[str],
                       selector: dict[str, str] | None) -> list[dict]:
        """One namespace's objects as readers see them, where some have pending writes."""
        visible = self._pending.visible
        names = set(self._select(res, ns, selector) if selector else items) - changing
        for name in changing:
            obj = visible[(res, ns, name)][0]
            if obj is not None and (not selector or _labels_match(obj, selector)):
                names.add(name)
        return [visible[(res, ns, n)][0] if n in changing else items[n] for n in sorted(names)]

    def _names_sorted(self, res: str, ns: str, items: dict[str, dict]) -> list[str]:
        names = self._sorted.get((res, ns))
        if names is None:
            names = self._sorted[(res, ns)] = sorted(items)
        return names

    def _select(self, res: str, ns: str, selector: dict[str, str]) -> set[str]:
        index = self._labels[res]
        sets = [index.get((ns, k, v), set()) for k, v in selector.items()]
        sets.sort(key=len)
        result = set(sets[0])
        for s in sets[1:]:
            result &= s
        return result

    # -- the head ------------------------------------------------------------------------------
    def _put(self, res: str, ns: str, name: str, obj: dict) -> None:
        old = self._objects[res][ns].get(name)
        if old is not None:
            self._unindex(res, ns, name, old)
        else:
            self._sorted.pop((res, ns), None)
        self._objects[res][ns][name] = obj
        for k, v in (obj.get("metadata", {}).get("labels") or {}).items():
            self._labels[res][(ns, k, str(v))].add(name)

    def _remove(self, res: str, ns: str, name: str) -> None:
        old = self._objects[res][ns].pop(name, None)
        if old is not None:
            self._unindex(res, ns, name, old)
            self._sorted.pop((res, ns), None)

    def _unindex(self, res: str, ns: str, name: str, obj: dict) -> None:
        index = self._labels[res]
        for k, v in (obj.get("metadata", {}).get("labels") or {}).items():
            names = index.get((ns, k, str(v)))
            if names is not None:
                names.discard(name)
                if not names:
                    del index[(ns, k, str(v))]

    def _seal(self, obj: dict) -> dict:
        """What the store keeps: in the frozen-store mode, every container frozen."""
        return frozen_mode.freeze(obj) if self._frozen else obj

    # -- writes --------------------------------------------------------------------------------
    def _writable(self) -> None:
        if self.failure is not None:
            raise self.failure

    def _disk_keeps_up(self) -> None:
        """Call with the lock held: writes wait for a stuck disk in memory only up to a bound."""
        if self._pending.bytes > MAX_PENDING_BYTES:
            raise errors.ServiceUnavailable(
                f"the store's disk has not synced {self._pending.bytes} bytes of writes yet; try again later")

    def _apply(self, seq: int, kind: str, key: Key, after: dict | None, event_obj: dict, size: int) -> dict:
        """A committed write (backend commit ``seq``): pending until durable, in the head now."""
        res, ns, name = key
        event = Event(self._rv, kind, res, event_obj, size, self._clock.now())
        deferred = self._backend.deferred and seq
        if deferred:
            self._pending.add(seq, event, key, self._objects[res][ns].get(name), after)
        if after is None:
            self._remove(res, ns, name)
        else:
            self._put(res, ns, name, after)
        if res in self.expiry.ttls:
            self.expiry.written(key, event.at) if after is not None else self.expiry.removed(key)
        if seq:
            self._committed.seq = seq
        self.changed_at[res] = self._rv
        self.history.append(event)
        for listener in list(self.listeners):
            listener(kind, res, event_obj)
        if not deferred:                # durable already (no fsync to wait for): in sight at once
            if seq > self._published:
                self._published = seq
            self._durable_rv = event.rv
            for sink in self.sinks:
                sink(event)
            self._changed.notify_all()
        return event_obj

    def _put_backend(self, res: str, ns: str, name: str, obj: dict, made: int) -> tuple[int, int]:
        """Write through to a backend that keeps bodies (bounded: ``limits.MAX_OBJECT_BYTES``);
        (its commit, the write's size for the history: the JSON, or without a body what the
        compaction estimated the write added)."""
        if not self._backend.keeps_bodies:
            return 0, made
        body = _bounded(encoding.compact(obj), res, name)
        return self._backend.put(self._rv + 1, res, ns, name, body), len(body)

    def create(self, res: str, obj: dict, *, copy: bool = True) -> dict:
        """Store a new object; returns a copy of what was stored (``copy=False``: the stored object
        itself, READ-ONLY, for a caller that only reads it)."""
        if self.failure is not None:
            raise self.failure
        obj, made = self._compactor.compact_sized(obj)
        meta = obj.setdefault("metadata", {})
        r = BY_KEY.get(res)
        ns = (meta.get("namespace") or "default") if (r is None or r.namespaced) else ""
        with self.lock:
            if self.failure is not None:
                raise self.failure
            self._disk_keeps_up()
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = self._generate_name(res, ns, meta["generateName"])
            name = meta.get("name") or ""
            if name in self._objects[res].get(ns, {}):
                raise errors.AlreadyExists.object(*_names(res), name)
            if ns:
                meta["namespace"] = ns
            else:
                meta.pop("namespace", None)
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = timefmt.rfc3339(self._clock.now())
            meta["generation"] = 1
            return self._commit("ADDED", res, ns, name, obj, made, copy)

    def _commit(self, kind: str, res: str, ns: str, name: str, obj: dict, made: int, copy: bool) -> dict:
        """Give ``obj`` the next resourceVersion, store it and tell the history (under the lock);
        ``made``: the bytes compaction added."""
        obj["metadata"]["resourceVersion"] = str(self._rv + 1)
        obj = self._seal(obj)
        seq, size = self._put_backend(res, ns, name, obj, made)
        self._rv += 1
        self._apply(seq, kind, (res, ns, name), obj, obj, size)
        return clone(obj) if copy else obj

    def _generate_name(self, res: str, ns: str, prefix: str) -> str:
        """A free name of ``prefix`` and five random characters, as upstream: a few tries
        (``GENERATE_NAME_ATTEMPTS``), then AlreadyExists for the last one tried."""
        for _ in range(GENERATE_NAME_ATTEMPTS):
            name = prefix + "".join(secrets.choice(_SUFFIX_ALPHABET) for _ in range(5))
            if name not in self._objects[res].get(ns, {}):
                return name
        raise errors.AlreadyExists.object(*_names(res), name)

    def update(self, res: str, obj: dict, *, check_rv: bool = True, copy: bool = True,
               expected: dict | None = None) -> dict:
        """Replace a stored object. A stale ``metadata.resourceVersion`` gets 409 Conflict;
        ``generation`` moves when ``spec`` changed; uid and creationTimestamp are kept. ``obj``
        itself is not changed (the store keeps a compact copy), so it may share parts with the
        stored object. Returns a copy of what is stored (``copy=False``: the object itself, READ-ONLY).
        ``expected``: the stored object ``obj`` was computed from (compare-and-swap: ``Changed``
        when another write replaced it since)."""
        if self.failure is not None:
            raise self.failure
        sent = obj.get("metadata") or {}
        r = BY_KEY.get(res)
        ns = (sent.get("namespace") or "default") if (r is None or r.namespaced) else ""
        name = sent.get("name") or ""
        # the parts ``obj`` shares with the stored object are compact already (kept, not copied)
        obj, made = self._compactor.compact_sized(obj, self._objects[res].get(ns, {}).get(name))
        meta = obj.setdefault("metadata", {})
        with self.lock:
            if self.failure is not None:
                raise self.failure
            self._disk_keeps_up()
            old = self._objects[res].get(ns, {}).get(name)
            if expected is not None and old is not expected:
                raise Changed(f"{res} {ns}/{name} was written since it was read")
            if old is None:
                raise errors.NotFound.object(*_names(res), name)
            given = meta.get("resourceVersion")
            if check_rv and given and given != old["metadata"]["resourceVersion"]:
                raise errors.Conflict.stale(*_names(res), name)
            old_meta = old["metadata"]
            for key in ("uid", "creationTimestamp"):
                meta[key] = old_meta[key]
            if ns:
                meta["namespace"] = ns
            for key in ("deletionTimestamp", "deletionGracePeriodSeconds"):
                if key in old_meta and key not in meta:
                    meta[key] = old_meta[key]
            generation = old_meta.get("generation", 1)
            if generation_moves(old, obj):
                generation += 1
            meta["generation"] = generation
            meta["resourceVersion"] = old_meta["resourceVersion"]
            if obj == old:
                return clone(old) if copy else old
            return self._commit("MODIFIED", res, ns, name, obj, made, copy)

    def delete(self, res: str, namespace: str, name: str) -> dict:
        ns = namespace or ""
        self._writable()
        with self.lock:
            self._writable()
            old = self._objects[res].get(ns, {}).get(name)
            if old is None:
                raise errors.NotFound.object(*_names(res), name)
            # the object's last state (its parts shared with the stored object, never changed)
            gone = self._seal({**old, "metadata": {**old["metadata"], "resourceVersion": str(self._rv + 1)}})
            seq = self._backend.remove(self._rv + 1, res, ns, name)
            self._rv += 1
            # the history may be all that holds the object now: it counts in full
            self._apply(seq, "DELETED", (res, ns, name), None, gone, len(encoding.compact(gone)))
            return clone(gone)

    # -- durability ----------------------------------------------------------------------------
    def forget_commits(self) -> None:
        """A request starts: none of its writes are pending yet."""
        self._committed.seq = 0

    def wait_durable(self) -> None:
        """Return once every write this thread made is durable and visible, before a request is
        answered. ``errors.InternalError`` when it was taken back (nothing of it is stored),
        ``errors.Timeout`` when the disk did not answer in time (it may yet be stored)."""
        seq = getattr(self._committed, "seq", 0)
        if not seq or self._published >= seq:
            return
        self._backend.wait_durable(seq)
        if self._published < seq:
            with self.lock:
                self._publish(self._backend.synced)

    def _publish_from_backend(self, seq: int) -> bool:
        """The backend's fsync thread: commit ``seq`` is on disk. False when the lock was busy
        (it asks again; a waiting request or the next write publishes meanwhile)."""
        if not self.lock.acquire(timeout=PUBLISH_WAIT):
            return False
        try:
            self._publish(seq)
        finally:
            self.lock.release()
        return True

    def _publish(self, seq: int) -> None:
        """Call with the lock held: bring every write up to backend commit ``seq`` into sight."""
        if seq <= self._published or self.failure is not None:
            return
        self._published = seq
        self._show(self._pending.durable(seq))

    def _show(self, events: list[Event]) -> None:
        if not events:
            return
        self._durable_rv = events[-1].rv
        for event in events:
            for sink in self.sinks:
                sink(event)
        self._changed.notify_all()

    def _lose_pending(self, error: OSError) -> None:
        """The backend's fsync failed: what it had not synced may or may not be on disk. Take every
        pending write back (readers never saw them; their requests get 500), put the file back
        where readers stand if the disk still takes it, and refuse every later write."""
        with self.lock:
            if self.failure is not None:
                return
            self._publish(self._backend.synced)
            self.failure = errors.ServiceUnavailable(
                f"the store refuses writes: a write to {getattr(self._backend, 'path', 'the store')} could not be "
                f"made durable ({error}); restart the server once the disk is checked")
            lost = self._pending.lost()
            for key, before in lost:
                res, ns, name = key
                reverted = self._objects[res][ns].get(name)
                if before is None:
                    self._remove(res, ns, name)
                else:
                    self._put(res, ns, name, before)
                if before is not None or reverted is not None:
                    for listener in list(self.listeners):
                        listener("DELETED" if before is None else "MODIFIED", res, before or reverted)
            self.history.drop_after(self._durable_rv)
            self._rv = self._durable_rv
            log.error("storage: fsync failed (%s): %d pending writes taken back (answered 500); refusing writes "
                      "until restart", error, len(lost))
            self._backend.revert([(key, None if before is None else encoding.compact(before))
                                  for key, before in lost], self._durable_rv)
            self._changed.notify_all()

    # -- housekeeping (bounded work, called by ``housekeeping.Housekeeping``) -----------------
    def expire(self, now: float, limit: int) -> list[Key]:
        """Delete up to ``limit`` objects whose time to live ran out; their keys."""
        with self.lock:
            if self.failure is not None:
                return []
            keys = self.expiry.due(now, limit)
            for res, ns, name in keys:
                if self._objects[res].get(ns, {}).get(name) is not None:
                    self.delete(res, ns, name)
            return keys

    def trim_history(self, now: float) -> None:
        with self.lock:
            self.history.trim(now)

    def sweep(self, force: bool = False) -> int:
        """Forget the shared containers no object uses any more: once the table has doubled, or
        ``SWEEP_BYTES`` were tabled since the last sweep (a few large objects written many times),
        or ``force`` (the history let go of a lot: the old versions that used them)."""
        table = self._compactor
        if not force and len(table) < max(1024, 2 * table.swept_at) and table.added < SWEEP_BYTES:
            return 0
        return table.sweep()

    def close(self) -> None:
        """Close the backend; open watches end at once (their servers are shutting down)."""
        with self.lock:
            self.closed = True
            self._changed.notify_all()
        self._backend.close()

    # -- watches -------------------------------------------------------------------------------
    def watch(self, res: str, namespace: str | None, since_rv: int | None) -> Watch:
        """Events for ``res`` after ``since_rv``; None means "from now". 410 Gone when the history
        no longer reaches back that far (trimmed, or the server restarted since); 504 Timeout
        ("Too large resource version") when the store has not reached it."""
        with self.lock:
            start = self._durable_rv if since_rv is None else since_rv
            if start > self._durable_rv:
                raise errors.Timeout.too_large_resource_version(start, self._durable_rv)
            if start < self.history.floor:
                raise errors.Gone(f"too old resource version: {start} ({self._durable_rv})")
            return Watch(self, res, namespace, start)

    def changes_after(self, cursor: int) -> list[Event] | None:
        """Every head write after ``cursor``, all resources (a controller's change feed, with
        ``head.resource_version`` as its cursor); None when the history no longer reaches back
        that far. Call with the lock held."""
        if cursor < self.history.floor:
            return None
        return self.history.after(cursor)

    def events_after(self, cursor: int, res: str, namespace: str | None) -> Iterable[Event]:
        """Durable events after ``cursor`` (binary search: O(log n + events after the cursor)).
        Call with the lock held."""
        for event in self.history.after(cursor, self._durable_rv):
            if event.res != res:
                continue
            if namespace is not None and event.namespace != namespace:
                continue
            yield event


class Watch:
    """An iterator over (type, object) for one resource; ``next(timeout)`` returns None on quiet.
    It closes itself when the history was trimmed past what it has delivered (the client
    watches again from its last resourceVersion and is told 410 Gone)."""

    def __init__(self, store: Store, res: str, namespace: str | None, cursor: int) -> None:
        self.store, self.res, self.namespace, self.cursor = store, res, namespace, cursor
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed or self.store.closed

    def next(self, timeout: float) -> tuple[str, dict] | None:
        """The next (type, object) (READ-ONLY), waiting up to ``timeout`` seconds; None when quiet."""
        event = self.next_event(timeout)
        return (event.type, event.obj) if event is not None else None

    def next_event(self, timeout: float) -> Event | None:
        """The next Event, waiting up to ``timeout`` seconds; None when quiet or closed."""
        store = self.store
        with store.lock:
            for attempt in range(2):
                if self.cursor < store.history.floor:
                    self._closed = True          # events it has not delivered are gone
                    return None
                for event in store.events_after(self.cursor, self.res, self.namespace):
                    self.cursor = event.rv
                    return event
                # nothing up to the durable version concerns this watch: skip past it for good
                self.cursor = max(self.cursor, store._durable_rv)
                if self.closed or attempt:
                    return None
                store._changed.wait(timeout)
            return None

    def __iter__(self):
        """Blocking iteration until ``close()``."""
        while not self.closed:
            event = self.next(1.0)
            if event is not None:
                yield event

    def close(self) -> None:
        self._closed = True
