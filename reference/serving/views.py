"""Watches of computed views (Endpoints, EndpointSlices), served from the loop like every watch.

A view keeps no history: its objects are computed from the store when read. One ``ViewFeed`` per
view and namespace recomputes them in a pool task, after the store moved and at most every
``INTERVAL`` s however many watch it, and finds once which objects changed since the last time.
Each watch then gets, on the loop, the changes that concern it: an object that starts matching its
selectors is ADDED, one that changes MODIFIED, one that stops matching or goes DELETED (as
upstream's watch cache tells a filtered watch). A new watch starts from the list its request sent
and is compared whole once with the first computation that began after it joined. No thread is
held by a watch, whether its client reads or not (a lagging client is cut off as any stream is).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from kube32.reference.serving.http import chunk
from kube32.reference.serving.hub import HubWatch, WatchHub

log = logging.getLogger(__name__)

INTERVAL = 0.25      # seconds between two computations of one feed (at most one running at a time)

Key = tuple[str, str]


def key_of(obj: dict) -> Key:
    meta = obj.get("metadata", {})
    return meta.get("namespace", ""), meta.get("name", "")


class ViewFeed:
    """The objects of one view in one namespace (None: all), computed for the watches of it."""

    def __init__(self, hub: WatchHub, key: tuple, compute: Callable[[], list[dict]]) -> None:
        self.hub, self.key, self.compute = hub, key, compute
        self.watches: set[ViewWatch] = set()
        self.current: dict[Key, dict] = {}
        self.generation = 0          # computations started
        self.dirty = False
        self.busy = False            # a computation is scheduled or running
        self.last = float("-inf")    # loop time the last computation started

    def join(self, w: ViewWatch) -> None:
        self.watches.add(w)
        w.first_generation = self.generation + 1      # the first computation that begins after it joined
        self.touch()

    def leave(self, w: ViewWatch) -> None:
        self.watches.discard(w)
        if not self.watches and self.hub.feeds.get(self.key) is self:
            del self.hub.feeds[self.key]

    def touch(self) -> None:
        """The store moved: compute again (soon, once)."""
        self.dirty = True
        if self.busy or not self.watches:
            return
        self.busy = True
        loop = self.hub.loop
        loop.call_later(max(0.0, self.last + INTERVAL - loop.time()), self._start)

    def _start(self) -> None:
        self.dirty = False
        self.last = self.hub.loop.time()
        self.generation += 1
        self.hub.submit(self._compute, self.generation)

    def _compute(self, generation: int) -> None:
        """In a pool thread: the view's objects now."""
        try:
            objects = {key_of(o): o for o in self.compute()}
        except Exception:
            log.exception("computing a view for its watches failed")
            objects = None
        self.hub.call(self._apply, generation, objects)

    def _apply(self, generation: int, objects: dict[Key, dict] | None) -> None:
        """On the loop: tell each watch what changed for it."""
        self.busy = False
        if objects is not None:
            old = self.current
            changed = [k for k in old.keys() | objects.keys()
                       if (a := old.get(k)) is not (b := objects.get(k)) and a != b]
            self.current = objects
            frames: dict[tuple, bytes] = {}        # plain encodings, shared by the watches
            for w in list(self.watches):
                w.catch_up(generation, objects, changed, frames)
        if self.dirty:
            self.touch()


class ViewWatch(HubWatch):
    """One watch of a view: ``seen`` is what its client has been told (key -> object)."""

    replays = False
    selective = True

    def __init__(self, hub: WatchHub, view_key: str, namespace: str | None, compute: Callable[[], list[dict]],
                 seen: dict[Key, dict], head: bytes, timeout: float, matches: Callable[[dict], bool],
                 encode: Callable[[str, dict], str], shared_encoding: bool) -> None:
        super().__init__(hub, view_key, namespace, 0, head, timeout)
        self.compute, self.seen, self._matches, self._encode = compute, seen, matches, encode
        self.shared_encoding = shared_encoding     # plain JSON: one encoding serves every such watch
        self.feed: ViewFeed | None = None
        self.first_generation = 0
        self.synced = False

    def attach(self, channel) -> None:
        super().attach(channel)
        if self.channel is None or self.channel.done:
            return
        feed_key = (self.res, self.namespace)
        feed = self.hub.feeds.get(feed_key)
        if feed is None:
            feed = self.hub.feeds[feed_key] = ViewFeed(self.hub, feed_key, self.compute)
        self.feed = feed
        feed.join(self)

    def detach(self) -> None:
        super().detach()
        if self.feed is not None:
            self.feed.leave(self)
            self.feed = None

    def matches(self, event) -> bool:        # (no store event is ever of a view)
        return False

    def catch_up(self, generation: int, objects: dict[Key, dict], changed: list[Key],
                 frames: dict[tuple, bytes]) -> None:
        if not self.synced:
            if generation < self.first_generation:
                return                       # computed before this watch's list: it may be older
            self.synced = True
            keys = list(self.seen.keys() | objects.keys())
        else:
            keys = changed
        seen = self.seen
        for k in keys:
            new, had = objects.get(k), seen.get(k)
            if new is not None and self._matches(new):
                if had is None:
                    self.pending.append(self._frame("ADDED", k, new, frames))
                elif had is not new and had != new:
                    self.pending.append(self._frame("MODIFIED", k, new, frames))
                seen[k] = new
            elif had is not None:
                self.pending.append(self._frame("DELETED", k, new if new is not None else had, frames))
                del seen[k]
        if self.pending and not self.flush():
            self.detach()

    def _frame(self, kind: str, k: Key, obj: dict, frames: dict) -> bytes:
        if not self.shared_encoding:
            return chunk(self._encode(kind, obj).encode())
        framed = frames.get((kind, k, id(obj)))
        if framed is None:
            framed = frames[(kind, k, id(obj))] = chunk(self._encode(kind, obj).encode())
        return framed
