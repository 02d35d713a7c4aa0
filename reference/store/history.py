"""The store's history: the watch log, bounded by bytes and by age.

Every write is an ``Event`` appended in resourceVersion order. Watches resume from it and the
controllers read it as their change feed; a resourceVersion older than what it still holds answers
410 Gone (Expired), as upstream's watch cache does, and the client lists again.

Bounds (memory by bytes, never by a count): the events together hold at most ``MAX_BYTES`` (each
counted as its object's JSON size plus ``EVENT_OVERHEAD`` for the Python containers an old version
keeps alive), and none is kept longer than ``MAX_AGE`` seconds of the control plane's clock
(upstream's watch cache keeps the last 75 s: ``eventFreshDuration``), so the history of an object
that was written many times, or was large, is let go after a while even when nothing else is written.
"""

from __future__ import annotations

import bisect

from kube32.reference.machinery import encoding

MAX_BYTES = 32 * 1024 * 1024
MAX_AGE = 75.0
EVENT_OVERHEAD = 1024


class Event:
    """One entry of the watch log. ``obj`` is the stored object (READ-ONLY, shared by every
    watcher); ``line()`` is its watch encoding, computed once whatever the number of watchers."""

    __slots__ = ("rv", "type", "res", "obj", "namespace", "size", "at", "_line")

    def __init__(self, rv: int, type_: str, res: str, obj: dict, size: int = 0, at: float = 0.0) -> None:
        self.rv, self.type, self.res, self.obj = rv, type_, res, obj
        self.namespace = obj["metadata"].get("namespace") or ""
        self.size = size + EVENT_OVERHEAD       # what holding it costs (bytes, estimated)
        self.at = at                            # when it was written (control plane clock)
        self._line: bytes | None = None

    def line(self) -> bytes:
        """``{"type": ..., "object": ...}`` and a newline, as a watch stream carries it."""
        line = self._line
        if line is None:
            line = self._line = (encoding.compact({"type": self.type, "object": self.obj}) + "\n").encode()
        return line


class History:
    """Events in resourceVersion order. Not thread-safe: the store calls it under its lock."""

    def __init__(self, floor: int) -> None:
        self.floor = floor            # the newest resourceVersion no longer held (watches after it work)
        self.bytes = 0
        self.peak = 0                 # the most it held since ``peak`` was last set (the housekeeping's cue)
        self._events: list[Event] = []
        self._rvs: list[int] = []
        self._start = 0               # events before this index are dropped (compacted in batches)

    def __len__(self) -> int:
        return len(self._events) - self._start

    def append(self, event: Event) -> None:
        events = self._events
        events.append(event)
        self._rvs.append(event.rv)
        self.bytes += event.size
        if self.bytes > self.peak:
            self.peak = min(self.bytes, MAX_BYTES)
        if self.bytes > MAX_BYTES:
            i = self._start
            while self.bytes > MAX_BYTES and i < len(events):
                i = self._drop(i)
            self._compact(i)

    def trim(self, now: float) -> None:
        """Drop what is older than ``MAX_AGE``."""
        events, i, oldest = self._events, self._start, now - MAX_AGE
        while i < len(events) and events[i].at < oldest:
            i = self._drop(i)
        self._compact(i)

    def _drop(self, i: int) -> int:
        event = self._events[i]
        self.bytes -= event.size
        self.floor = event.rv
        self._events[i] = None              # released now, the slot compacted below
        return i + 1

    def _compact(self, start: int) -> None:
        self._start = start
        if start > 1024 and start * 2 > len(self._events):
            del self._events[:start]
            del self._rvs[:start]
            self._start = 0

    def oldest(self) -> float | None:
        """When the oldest event held was written."""
        return self._events[self._start].at if len(self) else None

    def after(self, cursor: int, upto: int | None = None) -> list[Event]:
        """The events after ``cursor`` (and up to ``upto``), oldest first; O(log n + the answer)."""
        i = max(bisect.bisect_right(self._rvs, cursor), self._start)
        j = len(self._rvs) if upto is None else bisect.bisect_right(self._rvs, upto)
        return self._events[i:j]

    def drop_after(self, rv: int) -> None:
        """Forget the events after ``rv`` (writes that were never made durable)."""
        j = max(bisect.bisect_right(self._rvs, rv), self._start)
        for event in self._events[j:]:
            self.bytes -= event.size
        del self._events[j:]
        del self._rvs[j:]
