"""Serving the reference: the asyncio HTTP server (``serving.http``) with the Flask app in a small
thread pool, watch streams on the event loop (``serving.hub``), plus the control loops.

``serve(config)`` blocks (the ``kube32-conformance serve`` command); ``start_in_thread(config)``
returns a ``RunningServer`` handle for embedding (the in-process conformance target, virtual boards).

TLS: pass an ``ssl.SSLContext`` (``ssl_context=``); the server terminates TLS in process and the WSGI
environ carries ``wsgi.url_scheme = https`` and the client certificate (``serving.http.PEER_CERT``),
so authentication stays a WSGI middleware around the Flask app (``wrap=``).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import os
import ssl
import threading
from collections.abc import Callable

from kube32.reference import errors, memory
from kube32.reference.api.creates import Creates
from kube32.reference.api.renewals import LeaseRenewals
from kube32.reference.app import create_app
from kube32.reference.config import Config
from kube32.reference.serving.http import HttpServer, Limits, bind
from kube32.reference.serving.hub import WatchHub
from kube32.spec import constants

log = logging.getLogger(__name__)

THREADS = 16          # requests only: watches live on the event loop, not in a thread
PARENT_POLL = 1.0     # seconds between looks at whether the parent (serve --exit-with-parent) still runs
GC_YOUNG = 10_000     # tracked objects allocated (net) before a young collection (Python's default: 700)


# Status reasons of the answers the serving layer gives before the app (upstream's where it has one)
_REASONS = {400: "BadRequest", 408: "Timeout", 413: "RequestEntityTooLarge", 429: "TooManyRequests",
            500: "InternalError"}


def status_body(code: int, message: str) -> tuple[str, bytes]:
    """An answer the app never sees (a malformed request, a body or head too large) as a Status."""
    err = errors.ApiError(message)
    err.code, err.reason = code, _REASONS.get(code, "")
    return "application/json", (json.dumps(err.status(), separators=(",", ":")) + "\n").encode()


def limits(config: Config) -> Limits:
    """The serving bounds: the request body limit is the API's own."""
    return Limits(max_connections=config.max_connections, max_body=constants.MAX_REQUEST_BODY_BYTES)


def watch_hub(config: Config, server: HttpServer) -> WatchHub:
    """The hub of ``server``'s watches; watches may take three quarters of the connections, so
    short requests always find room."""
    return WatchHub(server.loop, submit=server.submit, call=server.call, per_identity=config.max_watches_per_user,
                    max_watches=max(1, config.max_connections * 3 // 4))


@dataclasses.dataclass
class RunningServer:
    url: str
    app: object
    control_plane: object
    _server: HttpServer
    hub: WatchHub

    def stop(self) -> None:
        """Stop serving, stop the loops, close the store (the data dir stays for a restart)."""
        self._server.call(self.hub.close_all)
        self._server.stop()
        self.control_plane.stop()
        if self.hub.publish in self.control_plane.store.sinks:
            self.control_plane.store.sinks.remove(self.hub.publish)


def start_in_thread(config: Config, *, ssl_context: ssl.SSLContext | None = None,
                    wrap: Callable | None = None, bounds: Limits | None = None) -> RunningServer:
    """Start the loops and the server; ``wrap(wsgi_app)`` may put middleware (auth) around the app;
    ``bounds`` replaces the serving bounds the config implies (tests with short timeouts)."""
    app = create_app(config)
    cp = app.extensions["kube32"]
    host, port = config.host_port
    sock = bind(host, port)
    # Lease renewals and creates skip Flask (the gate of an authenticating server is Flask's: they go through it)
    wsgi = app if config.authenticates else LeaseRenewals(app, fallback=Creates(app))
    server = HttpServer(wrap(wsgi) if wrap else wsgi, sock, threads=THREADS, ssl_context=ssl_context,
                        ident="kube32-reference", limits=bounds or limits(config), error_body=status_body)
    hub = watch_hub(config, server)
    cp.watch_hub = hub
    cp.store.sinks.append(hub.publish)
    scheme = "https" if ssl_context is not None else "http"
    url = f"{scheme}://{host}:{server.port}"
    cp.start()
    server.start()
    return RunningServer(url, app, cp, server, hub)


def serve(config: Config, *, ssl_context: ssl.SSLContext | None = None, parent: int | None = None) -> None:
    """Run until interrupted or, with ``parent`` (a pid), until that process has ended: a runner
    killed with -9 must not leave its real-clock server ticking forever."""
    running = start_in_thread(config, ssl_context=ssl_context)
    # What exists now (modules, routes, compiled schemas, the store as loaded) lives as long as the
    # process: out of the cyclic collector's sight, a full collection, which stops every thread,
    # walks only what came since (5,000 renewing nodes: pauses of ~40 instead of ~120 ms).
    gc.freeze()
    # Collections start after GC_YOUNG tracked objects more than freed, not 700: a write replaces a
    # stored object (the store's objects are acyclic JSON trees, freed by reference counting), so
    # young collections mostly walked new store objects that survive them, and every third or so
    # pushed enough into the old generation to set off a full collection (5,000 nodes renewing
    # every 5 s: a 50-200 ms pause every ~7 s; none in 50,000 renewals with this threshold).
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    memory.keep_large_allocations_apart()      # memory an attacker's large objects took comes back
    log.info("kube32 reference listening on %s (profile %s, clock %s, data %s)",
             running.url, config.profile, config.clock, config.data_dir or "memory")
    never = threading.Event()
    try:
        while parent is None or os.getppid() == parent:
            never.wait(None if parent is None else PARENT_POLL)
        log.info("the process that started this server (pid %d) has ended; stopping", parent)
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
