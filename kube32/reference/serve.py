"""Serving the reference: waitress (threaded, production WSGI) plus the control loops.

``serve(config)`` blocks (the ``kube32-conformance serve`` command); ``start_in_thread(config)``
returns a ``RunningServer`` handle for embedding (the in-process conformance target, virtual boards).
"""

from __future__ import annotations

import dataclasses
import logging
import threading

import waitress
from waitress.server import create_server

from kube32.reference.app import create_app
from kube32.reference.config import Config

log = logging.getLogger(__name__)

THREADS = 32          # watches hold a thread each; kubectl -w, wait and the runner's watches add up


@dataclasses.dataclass
class RunningServer:
    url: str
    app: object
    control_plane: object
    _server: object
    _thread: threading.Thread

    def stop(self) -> None:
        """Stop serving, stop the loops, close the store (the data dir stays for a restart)."""
        server = self._server

        def close_everything() -> None:   # runs inside waitress's loop thread: no select() races
            for channel in list(server._map.values()):
                channel.close()

        try:
            server.trigger.pull_trigger(close_everything)
        except OSError:   # the trigger is already gone (the loop ended): close what is left from here
            close_everything()
        self._thread.join(timeout=5)
        self.control_plane.stop()       # closes the store first: open watch streams end at once
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)


def start_in_thread(config: Config) -> RunningServer:
    app = create_app(config)
    cp = app.extensions["kube32"]
    host, port = config.host_port
    server = create_server(app, host=host, port=port, threads=THREADS, channel_timeout=3600,
                           ident="kube32-reference", clear_untrusted_proxy_headers=True)
    url = f"http://{host}:{server.effective_port}"
    cp.start()
    thread = threading.Thread(target=server.run, name="kube32-waitress", daemon=True)
    thread.start()
    return RunningServer(url, app, cp, server, thread)


def serve(config: Config) -> None:
    """Run until interrupted."""
    app = create_app(config)
    cp = app.extensions["kube32"]
    host, port = config.host_port
    cp.start()
    log.info("kube32 reference listening on http://%s:%s (profile %s, clock %s, data %s)",
             host, port, config.profile, config.clock, config.data_dir or "memory")
    try:
        waitress.serve(app, host=host, port=port, threads=THREADS, channel_timeout=3600,
                       ident="kube32-reference")
    finally:
        cp.stop()
