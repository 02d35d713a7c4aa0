"""Watch streams: newline-delimited ``{"type", "object"}`` JSON, headers flushed at once.

``resourceVersion`` empty or "0" first sends the current objects as ADDED; otherwise the events after
that version (a view, Endpoints or EndpointSlices, keeps no history: its changes from now). A version older than the watch
log answers, as upstream, 200 with one ``ERROR`` event carrying a 410 ``Expired`` Status (clients
then re-list). ``timeoutSeconds`` ends the stream. The stream starts with a single space (JSON
decoders skip whitespace; some WSGI servers hold the headers until a non-empty chunk), and a quiet
stream sends another space every ``KEEPALIVE`` seconds so a vanished client is noticed.

Served by ``reference.serve`` (``environ[OFFLOAD]`` is there), every watch is handed to the watch
hub: the request thread only sets it up (selectors, the initial list, the backlog after
``resourceVersion``) and the loop writes the events, each encoded once for every plain-JSON watcher;
a view's watch is fed by the hub's computation of the view (``serving.views``). There each identity
(the authenticated user, or the client's address on a server without authentication) holds at most
the hub's share of watches: one more is a 429 TooManyRequests. Elsewhere (the Flask test client,
another WSGI server), a generator polls in the request's thread.
"""

from __future__ import annotations

import json
import time

from flask import Response, request, stream_with_context

from kube32.reference import errors
from kube32.reference.api import tables
from kube32.reference.auth.gate import current_user
from kube32.reference.auth.identity import DEVELOPMENT
from kube32.reference.machinery import selectors
from kube32.reference.serving.http import OFFLOAD, chunk
from kube32.reference.serving.hub import HubWatch
from kube32.reference.serving.views import ViewWatch, key_of

DEFAULT_TIMEOUT = 1800.0
POLL = 0.5
# The first chunk flushes the status line and headers (waitress holds them until a non-empty chunk;
# kubectl wait hangs without them). A space, not a newline: JSON decoders skip it, and it never makes
# an empty line (the official Python client turns an empty line into a ``None`` event).
FIRST_CHUNK = " "
KEEPALIVE = 10.0          # seconds of silence before another space is sent
KEEPALIVE_CHUNK = " "


def stream(cp, resource, namespace: str | None) -> Response:
    hub = getattr(cp, "watch_hub", None)
    offload = request.environ.get(OFFLOAD) if hub is not None else None
    ask = _Ask(cp, resource, namespace)          # selectors and parameters: every refusal before a count
    if offload is None:
        return ask.polled()
    identity = who_asks()
    if not hub.admit(identity):
        raise errors.TooManyRequests(f"Too many requests, please try again later: {identity} may hold at most "
                                     f"{hub.per_identity} watches, the server {hub.max_watches}")
    try:
        w = ask.on_the_hub(hub)
    except BaseException:
        hub.release(identity)
        raise
    if w is None:                       # an ERROR event answered, no watch made
        hub.release(identity)
        return ask.polled()
    w.identity = identity               # given back when the watch ends (its detach)
    offload(w)
    return Response(b"", content_type=ask.media, headers=HEADERS)


def who_asks() -> str:
    """Whose share of watches a request counts against."""
    user = current_user()
    return f"address {request.remote_addr}" if user is DEVELOPMENT else f"user {user.name}"


HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class _Ask:
    """One watch request: what it selects, how it is encoded, where it starts."""

    def __init__(self, cp, resource, namespace: str | None) -> None:
        self.cp, self.resource, self.namespace = cp, resource, namespace
        self.label_pred = selectors.parse_label_selector(request.args.get("labelSelector"))
        self.field_pred = selectors.parse_field_selector(request.args.get("fieldSelector"))
        self.selective = bool(request.args.get("labelSelector") or request.args.get("fieldSelector"))
        self.as_table = tables.wants_table()
        self.include = tables.include_object()
        self.timeout = timeout_seconds(request.args.get("timeoutSeconds"))
        self.view = cp.views.get(resource.key)
        self.media = tables.TABLE_MEDIA_TYPE if self.as_table else "application/json"
        rv_arg = request.args.get("resourceVersion", "")
        self.from_now = rv_arg not in ("", "0")
        try:
            self.rv = int(rv_arg) if self.from_now else None
        except ValueError as exc:
            raise errors.BadRequest(f"invalid resourceVersion {rv_arg!r}") from exc

    def matches(self, obj: dict) -> bool:
        return self.label_pred(obj.get("metadata", {}).get("labels")) and self.field_pred(obj)

    def encode(self, kind: str, obj: dict) -> str:
        if self.as_table:
            obj = tables.table(self.cp, self.resource, [obj], obj["metadata"].get("resourceVersion"),
                               columns=False, mode=self.include)
        return json.dumps({"type": kind, "object": obj}, separators=(",", ":")) + "\n"

    def encode_event(self, event) -> str:
        return self.encode(event.type, event.obj) if self.as_table else event.line().decode()

    def _start(self, backlog: bool):
        """(initial objects, version they are at, store watch or None, expired or None, backlog
        events, what a view's client has seen) read under the store lock."""
        cp, key, ns, view = self.cp, self.resource.key, self.namespace, self.view
        with cp.store.lock:
            initial: list[dict] = []
            if not self.from_now:
                source = view.list(ns) if view else cp.store.list(key, ns)
                initial = [o for o in source if self.matches(o)]
                since = cp.store.resource_version
            else:
                since = self.rv
            expired, w = None, None
            try:
                w = None if view else cp.store.watch(key, ns, since)
            except errors.Gone as exc:
                expired = exc
            events = []
            if backlog and expired is None and view is None:
                events = [e for e in cp.store.events_after(since, key, ns) if self.matches(e.obj)]
                since = cp.store.resource_version
            # a view has no history: changes are diffs against what the client has already seen
            if view is None:
                seen = {}
            elif self.from_now:
                seen = {key_of(o): o for o in view.list(ns) if self.matches(o)}
            else:
                seen = {key_of(o): o for o in initial}
        return initial, since, w, expired, events, seen

    def on_the_hub(self, hub) -> HubWatch | None:
        """The watch for the hub to serve (None: the version has expired; ``polled`` says so)."""
        initial, since, _, expired, backlog, seen = self._start(backlog=True)
        if expired is not None:
            return None
        # encoded here, in the request's thread, outside the store lock (stored objects are immutable)
        head = [FIRST_CHUNK] + [self.encode("ADDED", o) for o in initial] + [self.encode_event(e) for e in backlog]
        framed = chunk("".join(head).encode())
        view, ns = self.view, self.namespace
        if view is not None:
            return ViewWatch(hub, self.resource.key, ns, lambda: view.list(ns), seen, framed, self.timeout,
                             self.matches, self.encode, shared_encoding=not self.as_table)
        return _LoopWatch(hub, self.resource.key, ns, since, framed, self.timeout,
                          self.matches if self.selective else None, self.encode if self.as_table else None)

    def polled(self) -> Response:
        """The stream from a generator in the request's thread (no hub: the Flask test client,
        another WSGI server; or an expired version's one ERROR event)."""
        initial, _, w, expired, _, seen = self._start(backlog=False)
        view, ns, encode, matches, timeout = self.view, self.namespace, self.encode, self.matches, self.timeout
        store = self.cp.store

        def view_changes():
            nonlocal seen
            current = {key_of(o): o for o in view.list(ns) if matches(o)}
            for k, o in current.items():
                if k not in seen:
                    yield encode("ADDED", o)
                elif seen[k] != o:
                    yield encode("MODIFIED", o)
            for k, o in seen.items():
                if k not in current:
                    yield encode("DELETED", o)
            seen = current

        def generate():
            yield FIRST_CHUNK
            if expired is not None:
                yield json.dumps({"type": "ERROR", "object": expired.status()}, separators=(",", ":")) + "\n"
                return
            for obj in initial:
                yield encode("ADDED", obj)
            deadline = time.monotonic() + timeout
            quiet_since = time.monotonic()
            while time.monotonic() < deadline:
                if time.monotonic() - quiet_since >= KEEPALIVE:
                    yield KEEPALIVE_CHUNK          # finds clients that went away, freeing the thread
                    quiet_since = time.monotonic()
                if view is not None:
                    if store.closed:
                        return
                    time.sleep(POLL)
                    for line in view_changes():
                        quiet_since = time.monotonic()
                        yield line
                    continue
                event = w.next_event(POLL)
                if event is None:
                    if w.closed:
                        return
                    continue
                if matches(event.obj):
                    quiet_since = time.monotonic()
                    yield self.encode_event(event)

        return Response(stream_with_context(generate()), mimetype=None, content_type=self.media, headers=HEADERS)


class _LoopWatch(HubWatch):
    """A watch served from the hub: the request's selectors, and Table rows encoded per watch."""

    def __init__(self, hub, res, namespace, cursor, head, timeout, matches, table_encode) -> None:
        super().__init__(hub, res, namespace, cursor, head, timeout)
        self._matches, self._table_encode = matches, table_encode
        self.shared_encoding = table_encode is None
        self.selective = matches is not None

    def matches(self, event) -> bool:
        return self._matches(event.obj)

    def frame(self, event) -> bytes:
        if self._table_encode is None:
            return chunk(event.line())
        return chunk(self._table_encode(event.type, event.obj).encode())

    def expired(self) -> bytes:
        gone = errors.Gone(f"too old resource version: {self.cursor}")
        return chunk((json.dumps({"type": "ERROR", "object": gone.status()}, separators=(",", ":")) + "\n").encode())


def timeout_seconds(text: str | None) -> float:
    """``timeoutSeconds``: a non-negative number of seconds; absent or 0 means the default."""
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError as exc:
        raise errors.BadRequest(f"timeoutSeconds must be a number of seconds, got {text!r}") from exc
    if value < 0:
        raise errors.BadRequest(f"timeoutSeconds must not be negative, got {text!r}")
    return value or DEFAULT_TIMEOUT

