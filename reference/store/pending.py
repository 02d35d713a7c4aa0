"""Writes that are committed but not yet durable, and what readers see meanwhile.

A write is committed to the backend, and to the store's memory (the head, which writers check
against), under the store lock; the backend's group commit makes it durable a little later. Until
then it is pending, and readers (GET, LIST, watches, computed views) see the object as it was
before, as etcd serves only committed revisions: nobody can act on a write that a power cut would
lose. ``Pending`` keeps, for each object with pending writes, the value readers see, and the
pending writes in commit order; ``durable(seq)`` brings the writes an fsync covered into sight,
``lost()`` gives back what readers saw when the writes will never be durable.
"""

from __future__ import annotations

from collections import deque

from kube32.reference.store.history import Event

Key = tuple[str, str, str]     # (resource, namespace, name)


class Pending:
    """Not thread-safe: the store calls it under its lock (readers without the lock only look up
    ``visible``; an entry is added before the head changes and dropped after, so they never see a
    pending value)."""

    def __init__(self) -> None:
        # key -> [the value readers see (None: absent), number of pending writes]
        self.visible: dict[Key, list] = {}
        self.by_resource: dict[str, dict[str, set[str]]] = {}    # resource -> namespace -> names
        self._queue: deque[tuple[int, Event, Key, dict | None]] = deque()
        self.bytes = 0                  # what the pending writes hold (their events' sizes)

    def __bool__(self) -> bool:
        return bool(self._queue)

    def add(self, seq: int, event: Event, key: Key, before: dict | None, after: dict | None) -> None:
        """Write ``seq`` (a backend commit) changed ``key`` from ``before`` to ``after``."""
        entry = self.visible.get(key)
        if entry is None:
            self.visible[key] = [before, 1]
            res, ns, name = key
            self.by_resource.setdefault(res, {}).setdefault(ns, set()).add(name)
        else:
            entry[1] += 1
        self._queue.append((seq, event, key, after))
        self.bytes += event.size

    def durable(self, seq: int) -> list[Event]:
        """Every write up to commit ``seq`` is on disk: now in sight; their events, in order."""
        out = []
        queue = self._queue
        while queue and queue[0][0] <= seq:
            _, event, key, after = queue.popleft()
            self.bytes -= event.size
            entry = self.visible[key]
            entry[0] = after
            entry[1] -= 1
            if not entry[1]:
                self._forget(key)
            out.append(event)
        return out

    def lost(self) -> list[tuple[Key, dict | None]]:
        """No pending write will ever be durable: each key with the value readers see (to put back)."""
        out = [(key, entry[0]) for key, entry in self.visible.items()]
        self.visible.clear()
        self.by_resource.clear()
        self._queue.clear()
        self.bytes = 0
        return out

    def names(self, res: str, ns: str) -> set[str]:
        return self.by_resource.get(res, {}).get(ns, set())

    def namespaces(self, res: str) -> set[str]:
        return set(self.by_resource.get(res, ()))

    def _forget(self, key: Key) -> None:
        del self.visible[key]
        res, ns, name = key
        spaces = self.by_resource[res]
        names = spaces[ns]
        names.discard(name)
        if not names:
            del spaces[ns]
            if not spaces:
                del self.by_resource[res]
