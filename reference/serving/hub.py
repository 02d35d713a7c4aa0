"""The watch hub: every store event fanned out to the open watches from the server's event loop.

The store hands each Event to ``publish`` under its lock; ``publish`` only enqueues and wakes the
loop. On the loop, ``_drain`` takes what has queued up: each event is framed once; a plain watch
(every event of its resource, in one namespace or all, as plain JSON) gets the drain's frames as one
bytes object, the same object for every plain watch of that namespace, and the others (selectors,
Table rows) are matched event by event; each watch gets one write per drain. A watch is registered from a store
version (``cursor``): events the hub has already passed on are replayed from a short ring (at most
``RING_BYTES``: it only bridges a watch's set-up), and if the ring no longer reaches back that far
the watch gets the 410 ``Expired`` ERROR event upstream sends (the client re-lists). Quiet watches
get a keep-alive space every ``keepalive`` seconds so a vanished client is noticed.

Watches of computed views (``serving.views``) live here too: no thread per watch. And no client
holds more than its share: ``admit(identity)`` counts the watches of each identity (upstream's
max-in-flight in spirit; watches are its long-running requests) and of the whole server.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from kube32.reference.serving.http import Stream, StreamChannel, chunk

if TYPE_CHECKING:
    from kube32.reference.store import Event

RING = 4096
# What the ring may hold: an event costs about its object twice (the stored object, its encoding).
RING_BYTES = 16 << 20
# With many watches, events are gathered for this long before the loop writes them: one write per
# watch carries several events (a socket write costs more than the rest of a delivery together).
# (A window that grew with the last fan-out's wall time was tried: under CPU contention it added its
# own length to every delivery and saved little, as drains that overlap a slow fan-out already merge.)
BATCH_WINDOW = 0.02
BATCH_FROM = 64        # watches
# Writes to the watches of one drain go out in slices of this many sockets, the loop's other work
# (reading requests, writing answers) running between slices: 1,000 watches do not hold it for a
# whole fan-out.
SLICE = 128


class HubWatch(Stream):
    """One watch on the loop. Subclasses (``api.watch``) say which events match and how to encode."""

    def __init__(self, hub: WatchHub, res: str, namespace: str | None, cursor: int,
                 head: bytes, timeout: float) -> None:
        self.hub, self.res, self.namespace, self.cursor = hub, res, namespace, cursor
        self.head, self.timeout = head, timeout
        self.channel: StreamChannel | None = None
        self.pending: list[bytes] = []
        self.last_sent = time.monotonic()
        self._timer = None

    # -- what subclasses decide --------------------------------------------------------------------
    def matches(self, event: Event) -> bool:
        return True

    selective = True           # False: every event of the resource (and namespace) matches

    shared_encoding = True     # False: ``frame`` differs per watch (e.g. Table rows)

    replays = True             # False: no store history (a view's watch): no ring, no 410

    identity: str | None = None     # whose share of watches this one counts against (``admit``)

    def frame(self, event: Event) -> bytes:
        return chunk(event.line())

    def expired(self) -> bytes:
        """The framed ERROR event for a cursor the hub cannot serve any more."""
        raise NotImplementedError

    # -- Stream ------------------------------------------------------------------------------------
    def attach(self, channel: StreamChannel) -> None:
        self.channel = channel
        self._timer = self.hub.loop.call_later(self.timeout, self.end)
        self.hub.add(self)

    def detach(self) -> None:
        self.hub.remove(self)
        if self._timer is not None:
            self._timer.cancel()
        if self.identity is not None:
            self.hub.release(self.identity)
            self.identity = None

    def end(self) -> None:
        self.detach()
        if self.channel is not None:
            self.channel.finish()

    def flush(self) -> bool:
        data = b"".join(self.pending)
        self.pending.clear()
        self.last_sent = time.monotonic()
        return self.channel.send(data)


class WatchHub:
    """``submit(fn, *args)`` runs work in a pool thread and ``call(fn, *args)`` back on the loop
    (the server's); ``per_identity`` and ``max_watches`` bound the watches ``admit`` lets in."""

    def __init__(self, loop, keepalive: float = 10.0, *, submit: Callable | None = None,
                 call: Callable | None = None, per_identity: int = 1024, max_watches: int = 3072) -> None:
        self.loop = loop
        self.keepalive = keepalive
        self.submit = submit or (lambda fn, *args: fn(*args))
        self.call = call or (lambda fn, *args: loop.call_soon_threadsafe(fn, *args))
        self.per_identity, self.max_watches = per_identity, max_watches
        self._admitted: collections.Counter[str] = collections.Counter()
        self._admitted_total = 0
        self._admit_lock = threading.Lock()
        self.feeds: dict = {}                     # (view key, namespace) -> views.ViewFeed
        self._queue: collections.deque[Event] = collections.deque()
        self._scheduled = False
        self._ring: collections.deque[Event] = collections.deque()
        self._ring_bytes = 0
        self._last_rv: int | None = None          # the newest event drained
        self._by_res: dict[str, set[HubWatch]] = collections.defaultdict(set)
        self._watches = 0
        self._keepalive_timer = None

    # -- any thread ----------------------------------------------------------------------------------
    def admit(self, identity: str) -> bool:
        """Count one more watch of ``identity``; False (nothing counted) past its share or the
        server's. ``release`` gives it back (a watch's ``detach`` does)."""
        with self._admit_lock:
            if self._admitted[identity] >= self.per_identity or self._admitted_total >= self.max_watches:
                return False
            self._admitted[identity] += 1
            self._admitted_total += 1
            return True

    def release(self, identity: str) -> None:
        with self._admit_lock:
            self._admitted[identity] -= 1
            self._admitted_total -= 1
            if self._admitted[identity] <= 0:
                del self._admitted[identity]

    def publish(self, event: Event) -> None:
        self._queue.append(event)
        if not self._scheduled:
            self._scheduled = True
            try:
                self.loop.call_soon_threadsafe(self._wake)
            except RuntimeError:    # the loop is closed: the server is stopping
                pass

    def _wake(self) -> None:
        if self._watches >= BATCH_FROM:
            self.loop.call_later(BATCH_WINDOW, self._drain)
        else:
            self._drain()

    # -- the loop ----------------------------------------------------------------------------------
    def _drain(self) -> None:
        """Pass on what has queued up. A plain watch (every event of its resource, in one namespace
        or all, the shared encoding) gets one bytes object per drain, the same object for every
        plain watch of that namespace; the others are matched event by event."""
        self._scheduled = False
        events = list(self._queue)
        self._queue.clear()
        if not events:
            return
        self._remember(events)
        self._last_rv = events[-1].rv
        for feed in list(self.feeds.values()):       # a view may change with any write
            feed.touch()
        by_res: dict[str, list[Event]] = {}
        for event in events:
            by_res.setdefault(event.res, []).append(event)
        touched: dict[HubWatch, bool] = {}
        for res, evs in by_res.items():
            watchers = self._by_res.get(res)
            if not watchers:
                continue
            frames = [chunk(e.line()) for e in evs]
            joined: dict[str | None, bytes] = {}         # namespace (None: all) -> its plain bytes
            for w in watchers:
                if w.shared_encoding and not w.selective:
                    data = joined.get(w.namespace)
                    if data is None:
                        data = joined[w.namespace] = b"".join(
                            f for f, e in zip(frames, evs, strict=True)
                            if w.namespace is None or w.namespace == e.namespace)
                    if data:
                        w.pending.append(data)
                        touched[w] = True
                    continue
                for f, e in zip(frames, evs, strict=True):
                    if (w.namespace is None or w.namespace == e.namespace) and (not w.selective or w.matches(e)):
                        w.pending.append(f if w.shared_encoding else w.frame(e))
                        touched[w] = True
        self._flush(list(touched))

    def _remember(self, events: list[Event]) -> None:
        ring = self._ring
        ring.extend(events)
        self._ring_bytes += sum(2 * e.size for e in events)
        while ring and (len(ring) > RING or self._ring_bytes > RING_BYTES):
            self._ring_bytes -= 2 * ring.popleft().size

    def _flush(self, watches: list[HubWatch]) -> None:
        for w in watches[:SLICE]:
            if w.pending and not w.flush():      # (an earlier slice may have written them already)
                w.detach()
        if len(watches) > SLICE:
            self.loop.call_soon(self._flush, watches[SLICE:])

    def add(self, w: HubWatch) -> None:
        """Register ``w`` (already attached): its head, the ring's events after its cursor, then live."""
        ring = self._ring if w.replays else ()
        head, w.head = w.head, b""          # (sent once: not kept for the watch's life)
        if w.replays and self._last_rv is not None and w.cursor < self._last_rv:
            oldest = ring[0].rv if ring else self._last_rv + 1
            if oldest > w.cursor + 1:           # the ring has lost events this watch needs
                w.pending[:] = [head, w.expired()]
                w.flush()
                w.end()
                return
        w.pending.append(head)
        for event in ring:
            if event.rv > w.cursor and event.res == w.res \
                    and (w.namespace is None or w.namespace == event.namespace) \
                    and (not w.selective or w.matches(event)):
                w.pending.append(w.frame(event))
        if self._last_rv is not None and w.replays:
            w.cursor = max(w.cursor, self._last_rv)
        self._by_res[w.res].add(w)
        self._watches += 1
        if not w.flush():
            w.detach()
        if self._keepalive_timer is None:
            self._keepalive_timer = self.loop.call_later(self.keepalive, self._keep_alive)

    def remove(self, w: HubWatch) -> None:
        watchers = self._by_res.get(w.res)
        if watchers is not None and w in watchers:
            watchers.discard(w)
            self._watches -= 1

    def count(self) -> int:
        return self._watches

    def _keep_alive(self) -> None:
        quiet_since = time.monotonic() - self.keepalive
        for watchers in list(self._by_res.values()):
            for w in list(watchers):
                if w.last_sent <= quiet_since:
                    w.pending.append(chunk(b" "))
                    if not w.flush():
                        w.detach()
        self._keepalive_timer = self.loop.call_later(self.keepalive, self._keep_alive)

    def close_all(self) -> None:
        """End every watch (the store is closing)."""
        for watchers in list(self._by_res.values()):
            for w in list(watchers):
                w.end()
        if self._keepalive_timer is not None:
            self._keepalive_timer.cancel()
            self._keepalive_timer = None
