"""Objects that live for a while after their last write: Events (upstream's ``--event-ttl``, one
hour by default: etcd drops an Event when the lease its last write attached runs out).

``Expiry`` knows when each such object is due: the time of its last write plus the resource's time
to live. One heap entry per object (a rewrite only moves its deadline; an entry found early is put
back at the moved deadline), so its memory follows the number of objects, not of writes.
"""

from __future__ import annotations

import heapq

from kube32.spec import timefmt

Key = tuple[str, str, str]     # (resource, namespace, name)


class Expiry:
    """Not thread-safe: the store calls it under its lock."""

    def __init__(self, ttls: dict[str, float]) -> None:
        self.ttls = {res: float(ttl) for res, ttl in ttls.items() if ttl and ttl > 0}
        self._due: dict[Key, float] = {}
        self._heap: list[tuple[float, Key]] = []
        self._queued: set[Key] = set()     # keys with their one heap entry

    def __len__(self) -> int:
        return len(self._due)

    def written(self, key: Key, at: float) -> None:
        ttl = self.ttls.get(key[0])
        if ttl is None:
            return
        self._due[key] = at + ttl
        if key not in self._queued:
            self._queued.add(key)
            heapq.heappush(self._heap, (at + ttl, key))

    def loaded(self, key: Key, obj: dict) -> None:
        """An object read at start: its last write is its ``lastTimestamp`` (an Event's) or creation."""
        if key[0] not in self.ttls:
            return
        meta = obj.get("metadata") or {}
        stamps = [s for s in (obj.get("lastTimestamp"), meta.get("creationTimestamp")) if isinstance(s, str)]
        times = []
        for stamp in stamps:
            try:
                times.append(timefmt.parse(stamp))
            except ValueError:
                pass
        self.written(key, max(times, default=0.0))

    def removed(self, key: Key) -> None:
        self._due.pop(key, None)          # its heap entry is skipped when it comes up

    def due(self, now: float, limit: int) -> list[Key]:
        """Up to ``limit`` keys whose time is up (taken out: each is deleted by the caller)."""
        out: list[Key] = []
        heap = self._heap
        while heap and heap[0][0] <= now and len(out) < limit:
            _, key = heapq.heappop(heap)
            due = self._due.get(key)
            if due is None:
                self._queued.discard(key)
                continue
            if due > now:
                heapq.heappush(heap, (due, key))
                continue
            del self._due[key]
            self._queued.discard(key)
            out.append(key)
        return out

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None
