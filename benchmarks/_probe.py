"""Another client beside an attack or a load, in a thread of the benchmark's process: ``once`` every
``every`` seconds on one keep-alive session until the ``with`` block ends; a request that fails is
counted in ``failures`` and the session is opened again."""

from __future__ import annotations

import threading
import time

import requests


class Background:
    def __init__(self, url: str, every: float) -> None:
        self.url, self.every = url, every
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def setup(self, http: requests.Session) -> None:
        """Before the first ``once`` (what it needs on the server)."""

    def once(self, http: requests.Session, i: int) -> None:
        raise NotImplementedError

    def __enter__(self):
        self.setup(requests.Session())
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(120)

    def _run(self) -> None:
        http = requests.Session()
        i = 0
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                self.once(http, i)
            except requests.RequestException as exc:
                self.failures.append(f"{type(exc).__name__} after {time.monotonic() - t0:.1f} s")
                http = requests.Session()
            i += 1
            self._stop.wait(max(0.0, self.every - (time.monotonic() - t0)))
