"""The store: objects by resource, namespace and name, with optimistic concurrency and watches."""

from __future__ import annotations

import bisect
import secrets
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable

from kube32.reference import errors
from kube32.reference.clock import Clock
from kube32.reference.machinery import encoding
from kube32.reference.resources import BY_KEY
from kube32.reference.store.compact import Compactor
from kube32.spec import timefmt

WATCH_LOG_SIZE = 20000
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

Listener = Callable[[str, str, dict], None]   # (event type, resource key, object)


class Event:
    """One entry of the watch log. ``obj`` is the stored object (READ-ONLY, shared by every
    watcher); ``line()`` is its watch encoding, computed once whatever the number of watchers."""

    __slots__ = ("rv", "type", "res", "obj", "namespace", "_line")

    def __init__(self, rv: int, type_: str, res: str, obj: dict) -> None:
        self.rv, self.type, self.res, self.obj = rv, type_, res, obj
        self.namespace = obj["metadata"].get("namespace") or ""
        self._line: bytes | None = None

    def line(self) -> bytes:
        """``{"type": ..., "object": ...}`` and a newline, as a watch stream carries it."""
        line = self._line
        if line is None:
            line = self._line = (encoding.compact({"type": self.type, "object": self.obj}) + "\n").encode()
        return line


def clone(value):
    """A deep copy of a JSON tree (dicts, lists, scalars): what ``copy.deepcopy`` gives, at a
    third of its cost (no memo, no dispatch on types a JSON object cannot hold)."""
    kind = type(value)
    if kind is dict:
        return {k: clone(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if kind is list:
        return [clone(v) if type(v) in _CONTAINERS else v for v in value]
    return value


_CONTAINERS = (dict, list)


def generation_moves(old: dict, new: dict) -> bool:
    """``metadata.generation`` counts spec changes only (not metadata, not status)."""
    return new.get("spec") != old.get("spec")


def _names(res: str) -> tuple[str, str]:
    r = BY_KEY.get(res)
    return (r.plural, r.group) if r else (res, "")


class Store:
    def __init__(self, backend, clock: Clock) -> None:
        self.closed = False
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._backend = backend
        self._clock = clock
        self._compactor = Compactor()
        # resource -> namespace -> name -> object
        self._objects: dict[str, dict[str, dict[str, dict]]] = defaultdict(lambda: defaultdict(dict))
        # (resource, namespace) -> its names sorted, kept until a name comes or goes (list())
        self._sorted: dict[tuple[str, str], list[str]] = {}
        # resource -> (namespace, label key, label value) -> names
        self._labels: dict[str, dict[tuple[str, str, str], set[str]]] = defaultdict(lambda: defaultdict(set))
        # the watch log, rv ascending; trimmed to WATCH_LOG_SIZE
        self._log: list[Event] = []
        self._log_rvs: list[int] = []
        self.listeners: list[Listener] = []
        self._committed = threading.local()    # the last commit of this thread (wait_durable)
        self.changed_at: dict[str, int] = {}     # resource key -> the rv of its last write
        # called with every Event, in order, under the lock (the watch hub: must only enqueue)
        self.sinks: list[Callable[[Event], None]] = []
        rv, rows = backend.load()
        self._rv = rv
        for res, ns, name, obj in rows:
            self._put(res, ns, name, self._compactor.compact_object(obj))
        self._log_floor = self._rv

    # -- reads ---------------------------------------------------------------------------
    @property
    def resource_version(self) -> int:
        return self._rv

    def try_get(self, res: str, namespace: str, name: str) -> dict | None:
        obj = self._objects[res].get(namespace or "", {}).get(name)
        return clone(obj) if obj is not None else None

    def get(self, res: str, namespace: str, name: str) -> dict:
        obj = self.try_get(res, namespace, name)
        if obj is None:
            raise errors.NotFound.object(*_names(res), name)
        return obj

    def peek(self, res: str, namespace: str, name: str) -> dict | None:
        """The stored object itself (READ-ONLY): no copy."""
        return self._objects[res].get(namespace or "", {}).get(name)

    def list(self, res: str, namespace: str | None = None, *, selector: dict[str, str] | None = None) -> list[dict]:
        """READ-ONLY snapshots, sorted by namespace and name. ``selector``: label equalities."""
        with self.lock:
            spaces = self._objects[res]
            nss = [namespace] if namespace is not None else sorted(spaces)
            out: list[dict] = []
            for ns in nss:
                items = spaces.get(ns, {})
                if selector:
                    names = self._select(res, ns, selector)
                    out.extend(items[n] for n in sorted(names) if n in items)
                elif items:
                    out.extend(map(items.__getitem__, self._names_sorted(res, ns, items)))
            return out

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

    def namespaces_of(self, res: str) -> list[str]:
        return sorted(ns for ns, items in self._objects[res].items() if items)

    # -- writes --------------------------------------------------------------------------
    def _next_rv(self) -> int:
        self._rv += 1
        return self._rv

    def _put(self, res: str, ns: str, name: str, obj: dict) -> None:
        old = self._objects[res][ns].get(name)
        if old is not None:
            self._unindex(res, ns, name, old)
        else:
            self._sorted.pop((res, ns), None)
        self._objects[res][ns][name] = obj
        for k, v in (obj.get("metadata", {}).get("labels") or {}).items():
            self._labels[res][(ns, k, str(v))].add(name)

    def _unindex(self, res: str, ns: str, name: str, obj: dict) -> None:
        index = self._labels[res]
        for k, v in (obj.get("metadata", {}).get("labels") or {}).items():
            names = index.get((ns, k, str(v)))
            if names is not None:
                names.discard(name)
                if not names:
                    del index[(ns, k, str(v))]

    def _emit(self, kind: str, res: str, obj: dict) -> None:
        event = Event(self._rv, kind, res, obj)
        self.changed_at[res] = self._rv
        self._log.append(event)
        self._log_rvs.append(self._rv)
        if len(self._log) > 2 * WATCH_LOG_SIZE:
            self._log_floor = self._log[-WATCH_LOG_SIZE - 1].rv
            del self._log[:-WATCH_LOG_SIZE]
            del self._log_rvs[:-WATCH_LOG_SIZE]
        self._changed.notify_all()
        for sink in self.sinks:
            sink(event)
        for listener in list(self.listeners):
            listener(kind, res, obj)

    def create(self, res: str, obj: dict, *, copy: bool = True) -> dict:
        """Store a new object; returns a copy of what was stored (``copy=False``: the stored object
        itself, READ-ONLY, for a caller that only reads it)."""
        obj = self._compactor.compact_object(obj)
        meta = obj.setdefault("metadata", {})
        r = BY_KEY.get(res)
        ns = (meta.get("namespace") or "default") if (r is None or r.namespaced) else ""
        with self.lock:
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
            rv = self._next_rv()
            meta["resourceVersion"] = str(rv)
            self._committed.seq = self._backend.put(rv, res, ns, name, obj)
            self._put(res, ns, name, obj)
            self._emit("ADDED", res, obj)
            return clone(obj) if copy else obj

    def _generate_name(self, res: str, ns: str, prefix: str) -> str:
        while True:
            name = prefix + "".join(secrets.choice(_SUFFIX_ALPHABET) for _ in range(5))
            if name not in self._objects[res].get(ns, {}):
                return name

    def update(self, res: str, obj: dict, *, check_rv: bool = True, copy: bool = True) -> dict:
        """Replace a stored object. A stale ``metadata.resourceVersion`` gets 409 Conflict;
        ``generation`` moves when ``spec`` changed; uid and creationTimestamp are kept. ``obj``
        itself is not changed (the store keeps a compact copy), so it may share parts with the
        stored object. Returns a copy of what is stored (``copy=False``: the object itself, READ-ONLY)."""
        sent = obj.get("metadata") or {}
        r = BY_KEY.get(res)
        ns = (sent.get("namespace") or "default") if (r is None or r.namespaced) else ""
        name = sent.get("name") or ""
        # the parts ``obj`` shares with the stored object are compact already (kept, not copied)
        obj = self._compactor.compact_object(obj, self._objects[res].get(ns, {}).get(name))
        meta = obj.setdefault("metadata", {})
        with self.lock:
            old = self._objects[res].get(ns, {}).get(name)
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
            rv = self._next_rv()
            meta["resourceVersion"] = str(rv)
            self._committed.seq = self._backend.put(rv, res, ns, name, obj)
            self._put(res, ns, name, obj)
            self._emit("MODIFIED", res, obj)
            return clone(obj) if copy else obj

    def delete(self, res: str, namespace: str, name: str) -> dict:
        ns = namespace or ""
        with self.lock:
            old = self._objects[res].get(ns, {}).get(name)
            if old is None:
                raise errors.NotFound.object(*_names(res), name)
            rv = self._next_rv()
            gone = clone(old)
            gone["metadata"]["resourceVersion"] = str(rv)
            self._committed.seq = self._backend.remove(rv, res, ns, name)
            self._unindex(res, ns, name, old)
            del self._objects[res][ns][name]
            self._sorted.pop((res, ns), None)
            self._emit("DELETED", res, gone)
            return clone(gone)

    def forget_commits(self) -> None:
        """A request starts: none of its writes are pending yet."""
        self._committed.seq = 0

    def wait_durable(self) -> None:
        """Return once every write this thread made is durable (fsync), before a request is answered."""
        self._backend.wait_durable(getattr(self._committed, "seq", 0))

    def close(self) -> None:
        """Close the backend; open watches end at once (their servers are shutting down)."""
        with self.lock:
            self.closed = True
            self._changed.notify_all()
            self._backend.close()

    # -- watches -------------------------------------------------------------------------
    def watch(self, res: str, namespace: str | None, since_rv: int | None) -> Watch:
        """Events for ``res`` after ``since_rv``; None means "from now". 410 Gone when the log no
        longer reaches back that far (trimmed, or the server restarted since); 504 Timeout ("Too
        large resource version") when the store has not reached it."""
        with self.lock:
            start = self._rv if since_rv is None else since_rv
            if start > self._rv:
                raise errors.Timeout.too_large_resource_version(start, self._rv)
            if start < self._log_floor:
                raise errors.Gone(f"too old resource version: {start} ({self._rv})")
            return Watch(self, res, namespace, start)

    def changes_after(self, cursor: int) -> list[Event] | None:
        """Every log entry after ``cursor``, all resources (a controller's change feed); None when
        the log no longer reaches back that far. Call with the lock held."""
        if cursor < self._log_floor:
            return None
        return self._log[bisect.bisect_right(self._log_rvs, cursor):]

    def events_after(self, cursor: int, res: str, namespace: str | None) -> Iterable[Event]:
        """Log entries after ``cursor`` (binary search: O(log n + entries after the cursor)).
        Call with the lock held."""
        i = bisect.bisect_right(self._log_rvs, cursor)
        for event in self._log[i:]:
            if event.res != res:
                continue
            if namespace is not None and event.namespace != namespace:
                continue
            yield event


class Watch:
    """An iterator over (type, object) for one resource; ``next(timeout)`` returns None on quiet."""

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
        with self.store.lock:
            for attempt in range(2):
                for event in self.store.events_after(self.cursor, self.res, self.namespace):
                    self.cursor = event.rv
                    return event
                # nothing up to the store's version concerns this watch: skip past it for good
                self.cursor = max(self.cursor, self.store._rv)
                if self.closed or attempt:
                    return None
                self.store._changed.wait(timeout)
            return None

    def __iter__(self):
        """Blocking iteration until ``close()``."""
        while not self.closed:
            event = self.next(1.0)
            if event is not None:
                yield event

    def close(self) -> None:
        self._closed = True
