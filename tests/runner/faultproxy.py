"""FaultProxy: a real HTTP proxy on 127.0.0.1 that breaks on purpose, in front of a kube32 API server.

Tests put it between the runner and a correct reference to check that what the network or a
proxy does is never blamed on the target. Faults are rules matched per request, in order:

    proxy = FaultProxy(upstream_url).start()
    proxy.fault(status=503, method="GET", path="/debug/clock", times=1)   # one 503, then normal
    proxy.fault(status=500, rate=0.2)                                      # 20 % Status 500s
    proxy.fault(reset="after", method="POST", path=r".*/pods$")            # applied upstream, answer lost
    proxy.fault(delay=3.0, every=5)                                        # every 5th request is slow
    proxy.fault(refuse=1.0, path="/version")                               # nothing listens for 1 s
    proxy.require_token = "s3cret"                                         # 401 without that bearer token

``proxy.log`` lists every request as ``(method, path, what happened)``.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import random
import re
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-authorization", "proxy-authenticate"}


@dataclasses.dataclass
class Fault:
    method: str | None = None        # only this method (None: any)
    path: str | None = None          # regex the whole path must match (None: any)
    times: int | None = None         # fault only the first N matching requests
    every: int = 1                   # fault every Nth matching request
    rate: float = 1.0                # fault this share of the matching requests (seeded)
    status: int | None = None        # answer this code with a Kubernetes Status
    message: str = "injected by the fault proxy"
    reset: str | None = None         # "before" (never forwarded) or "after" (forwarded, answer lost)
    delay: float = 0.0               # wait this long, then forward
    refuse: float | None = None      # stop listening this long (reset this connection too)
    matched: int = 0
    fired: int = 0

    def wants(self, method: str, path: str, rng: random.Random) -> bool:
        if self.method and self.method != method:
            return False
        if self.path and not re.fullmatch(self.path, path):
            return False
        self.matched += 1
        if self.times is not None and self.fired >= self.times:
            return False
        if self.matched % self.every:
            return False
        if self.rate < 1.0 and rng.random() >= self.rate:
            return False
        self.fired += 1
        return True

    def describe(self) -> str:
        if self.status:
            return f"status {self.status}"
        if self.reset:
            return f"reset {self.reset}"
        if self.refuse is not None:
            return f"refuse {self.refuse} s"
        return f"delay {self.delay} s"


def status_body(code: int, message: str) -> bytes:
    reason = {500: "InternalError", 502: "BadGateway", 503: "ServiceUnavailable", 504: "Timeout",
              401: "Unauthorized"}.get(code, "InternalError")
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode()


class FaultProxy:
    def __init__(self, upstream: str, seed: int = 32) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname, parts.port)
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, str]] = []
        self.require_token: str | None = None
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._conns: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._stopped = threading.Event()
        self._listening = threading.Event()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- control ----------------------------------------------------------------------------
    def fault(self, **rule) -> Fault:
        f = Fault(**rule)
        with self._lock:
            self.faults.append(f)
        return f

    def clear(self) -> None:
        """Forget the faults and the log."""
        with self._lock:
            self.faults.clear()
            self.log.clear()

    def requests(self, method: str | None = None, path: str | None = None) -> list[tuple[str, str, str]]:
        return [e for e in list(self.log) if (method is None or e[0] == method)
                and (path is None or re.fullmatch(path, e[1]))]

    def start(self) -> FaultProxy:
        self._listen()
        threading.Thread(target=self._accept_loop, name="fault-proxy", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._close_listener()
        self._drop_connections()

    def refuse_for(self, seconds: float | None) -> None:
        """Stop listening (connections are refused) and drop open ones; listen again after ``seconds``
        (never, when None)."""
        self._close_listener()
        self._drop_connections()
        if seconds is not None:
            threading.Timer(seconds, self._listen).start()

    # -- sockets ----------------------------------------------------------------------------
    def _listen(self) -> None:
        if self._stopped.is_set():
            return
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(64)
        sock.settimeout(0.1)
        self.port = sock.getsockname()[1]
        self._listener = sock
        self._listening.set()

    def _close_listener(self) -> None:
        self._listening.clear()
        sock, self._listener = self._listener, None
        if sock is not None:
            sock.close()

    def _drop_connections(self) -> None:
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            reset(conn)

    def _accept_loop(self) -> None:
        while not self._stopped.is_set():
            sock = self._listener
            if sock is None or not self._listening.wait(0.1):
                continue
            try:
                conn, addr = sock.accept()
            except (TimeoutError, OSError):
                continue
            conn.settimeout(None)
            with self._lock:
                self._conns.add(conn)
            threading.Thread(target=self._serve, args=(conn, addr), daemon=True).start()

    def _serve(self, conn: socket.socket, addr) -> None:
        try:
            _Handler(conn, addr, self)
        except (OSError, ValueError):   # the connection was reset on purpose
            pass
        finally:
            with self._lock:
                self._conns.discard(conn)
            try:
                conn.close()
            except OSError:
                pass

    # -- one request --------------------------------------------------------------------------
    def pick(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for f in self.faults:
                if f.wants(method, path, self._rng):
                    return f
        return None

    def forward(self, method: str, target: str, headers: dict[str, str], body: bytes, timeout: float = 120):
        conn = http.client.HTTPConnection(*self.upstream, timeout=timeout)
        try:
            conn.request(method, target, body=body or None, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.reason, resp.getheaders(), resp.read()
        finally:
            conn.close()


def reset(conn: socket.socket) -> None:
    """Close with RST (SO_LINGER 0): the peer sees 'connection reset by peer'."""
    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    except OSError:
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    proxy: FaultProxy

    def __init__(self, conn, addr, proxy: FaultProxy) -> None:
        self.proxy = proxy
        super().__init__(conn, addr, None)

    def log_message(self, format, *args) -> None:  # noqa: A002 - BaseHTTPRequestHandler's signature
        pass

    def _handle(self) -> None:
        proxy = self.proxy
        path = urlsplit(self.path).path
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if proxy.require_token and self.headers.get("Authorization") != f"Bearer {proxy.require_token}":
            proxy.log.append((self.command, path, "status 401"))
            return self._answer(401, status_body(401, "Unauthorized"))
        f = proxy.pick(self.command, path)
        proxy.log.append((self.command, path, f.describe() if f else "forwarded"))
        if f is not None and f.refuse is not None:
            proxy.refuse_for(f.refuse)
            return
        if f is not None and f.reset == "before":
            return self._reset()
        if f is not None and f.status:
            return self._answer(f.status, status_body(f.status, f.message))
        if f is not None and f.delay:
            time.sleep(f.delay)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        try:
            code, _, resp_headers, data = proxy.forward(self.command, self.path, headers, body)
        except OSError as exc:
            return self._answer(502, status_body(502, f"upstream: {exc}"))
        if f is not None and f.reset == "after":
            return self._reset()
        self.send_response(code)
        for k, v in resp_headers:
            if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self, code: int, data: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _reset(self) -> None:
        self.close_connection = True
        reset(self.connection)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle
