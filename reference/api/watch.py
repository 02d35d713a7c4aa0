"""Watch streams: newline-delimited ``{"type", "object"}`` JSON, headers flushed at once.

``resourceVersion`` empty or "0" first sends the current objects as ADDED; otherwise the events after
that version. A view (Endpoints, EndpointSlices) is polled and diffed. A version older than the watch
log answers, as upstream, 200 with one ``ERROR`` event carrying a 410 ``Expired`` Status (clients
then re-list). ``timeoutSeconds`` ends the stream. The stream starts with a single space (JSON
decoders skip whitespace; some WSGI servers hold the headers until a non-empty chunk), and a quiet
stream sends another space every ``KEEPALIVE`` seconds so a vanished client is noticed.

Served by ``reference.serve`` (``environ[OFFLOAD]`` is there), a watch on stored objects is handed to
the watch hub: the request thread only sets it up (selectors, the initial list, the backlog after
``resourceVersion``) and the loop writes the events, each encoded once for every plain-JSON watcher.
Elsewhere (the Flask test client, another WSGI server) and for views, a generator polls in the
request's thread.
"""

from __future__ import annotations

import json
import time

from flask import Response, request, stream_with_context

from kube32.reference import errors
from kube32.reference.api import tables
from kube32.reference.machinery import selectors
from kube32.reference.serving.http import OFFLOAD, chunk
from kube32.reference.serving.hub import HubWatch

DEFAULT_TIMEOUT = 1800.0
POLL = 0.5
# The first chunk flushes the status line and headers (waitress holds them until a non-empty chunk;
# kubectl wait hangs without them). A space, not a newline: JSON decoders skip it, and it never makes
# an empty line (the official Python client turns an empty line into a ``None`` event).
FIRST_CHUNK = " "
KEEPALIVE = 10.0          # seconds of silence before another space is sent
KEEPALIVE_CHUNK = " "


def stream(cp, resource, namespace: str | None) -> Response:
    label_pred = selectors.parse_label_selector(request.args.get("labelSelector"))
    field_pred = selectors.parse_field_selector(request.args.get("fieldSelector"))
    as_table = tables.wants_table()
    include = tables.include_object()
    rv_arg = request.args.get("resourceVersion", "")
    timeout = timeout_seconds(request.args.get("timeoutSeconds"))
    view = cp.views.get(resource.key)

    def matches(obj: dict) -> bool:
        return label_pred(obj.get("metadata", {}).get("labels")) and field_pred(obj)

    def encode(kind: str, obj: dict) -> str:
        if as_table:
            obj = tables.table(cp, resource, [obj], obj["metadata"].get("resourceVersion"), columns=False,
                               mode=include)
        return json.dumps({"type": kind, "object": obj}, separators=(",", ":")) + "\n"

    def encode_event(event) -> str:
        return encode(event.type, event.obj) if as_table else event.line().decode()

    offload = request.environ.get(OFFLOAD)
    hub = getattr(cp, "watch_hub", None)
    loop_side = offload is not None and hub is not None and view is None

    with cp.store.lock:
        initial: list[dict] = []
        if rv_arg in ("", "0"):
            source = view.list(namespace) if view else cp.store.list(resource.key, namespace)
            initial = [o for o in source if matches(o)]
            since = cp.store.resource_version
        else:
            try:
                since = int(rv_arg)
            except ValueError as exc:
                raise errors.BadRequest(f"invalid resourceVersion {rv_arg!r}") from exc
        expired = None
        try:
            w = None if view else cp.store.watch(resource.key, namespace, since)
        except errors.Gone as exc:
            w, expired = None, exc
        backlog = []
        if loop_side and expired is None:
            backlog = [e for e in cp.store.events_after(since, resource.key, namespace) if matches(e.obj)]
            since = cp.store.resource_version
        # a view has no history: changes are diffs against what the client has already seen
        seen = {_key(o): o for o in (view.list(namespace) if view else []) if matches(o)}

    def view_changes():
        nonlocal seen
        current = {_key(o): o for o in view.list(namespace) if matches(o)}
        for k, o in current.items():
            if k not in seen:
                yield encode("ADDED", o)
            elif seen[k] != o:
                yield encode("MODIFIED", o)
        for k, o in seen.items():
            if k not in current:
                yield encode("DELETED", o)
        seen = current

    media = tables.TABLE_MEDIA_TYPE if as_table else "application/json"
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if loop_side and expired is None:
        # encoded here, in the request's thread, outside the store lock (stored objects are immutable)
        head = [FIRST_CHUNK] + [encode("ADDED", o) for o in initial] + [encode_event(e) for e in backlog]
        selective = bool(request.args.get("labelSelector") or request.args.get("fieldSelector"))
        offload(_LoopWatch(hub, resource.key, namespace, since, chunk("".join(head).encode()), timeout,
                           matches if selective else None, None if not as_table else encode))
        return Response(b"", content_type=media, headers=headers)

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
                if cp.store.closed:
                    return
                time.sleep(POLL)
                for chunk in view_changes():
                    quiet_since = time.monotonic()
                    yield chunk
                continue
            event = w.next_event(POLL)
            if event is None:
                if w.closed:
                    return
                continue
            if matches(event.obj):
                quiet_since = time.monotonic()
                yield encode_event(event)

    return Response(stream_with_context(generate()), mimetype=None, content_type=media, headers=headers)


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


def _key(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata", {})
    return meta.get("namespace", ""), meta.get("name", "")
