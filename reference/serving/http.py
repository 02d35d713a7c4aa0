"""An HTTP/1.1 server for a WSGI app: asyncio connections, a small thread pool for the app, and
streams that live on the event loop.

Why not a thread-per-request server (waitress, cheroot, granian's WSGI mode): a watch is a response
that lasts minutes to hours, so each one would hold a worker thread; 1,000 watches would need 1,000
threads and a notify of every one of them per event. Here a connection costs a socket and a small
object; the Flask app (and any auth middleware in front of it) runs in the pool for every request,
watches included, and a watch view hands its stream to the server through ``environ[OFFLOAD]``
(the way ``wsgi.file_wrapper`` hands over a file): the pool thread is free as soon as the watch has
been set up, and the watch hub (``serving.hub``) writes events to the socket from the loop.

HTTP parsing is httptools (the C parser uvicorn uses). TLS is asyncio's: give ``ssl_context`` and
``environ["wsgi.url_scheme"]`` is ``https`` and ``environ[PEER_CERT]`` holds the client certificate
(``SSLSocket.getpeercert()`` form; None without one) for the WSGI auth middleware.

Bounds, so no client can starve the others: at most ``max_connections`` sockets (more are closed at
once), a request must arrive whole within ``request_timeout`` (408), an idle keep-alive connection
is closed after ``idle_timeout``, bodies are capped at ``max_body`` (413) and headers at
``max_header`` (431), reading pauses once ``PIPELINE`` requests of one connection wait (no pipelined
pile-up), and a stream whose client stops reading is closed once ``max_stream_buffer`` bytes wait
for it (as kube-apiserver closes a watcher that cannot keep up; the client re-lists and watches again).

Cost per request (it is most of a small request's CPU on a 2-core machine): timeouts are deadlines
checked by one sweep (``SWEEP`` s) instead of a timer armed and cancelled per request; a connection
that sends one request at a time never pauses or resumes reading (two epoll calls each); the pool
is plain threads on a ``SimpleQueue``; answers go back to the loop through one queue that wakes the
loop once for all the answers ready at that moment.
"""

from __future__ import annotations

import asyncio
import collections
import io
import logging
import queue
import socket
import ssl
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import unquote_to_bytes

import httptools

log = logging.getLogger(__name__)

OFFLOAD = "kube32.offload_stream"   # environ key: fn(stream) hands a stream to the loop (see Stream)
PEER_CERT = "kube32.peer_cert"      # environ key: the TLS client certificate (None: none or plain HTTP)
CLOSE_GRACE = 0.05                  # seconds stop() lets closing connections flush what they still send
PIPELINE = 4                        # requests of one connection waiting behind the running one: pause reading
SWEEP = 1.0                         # seconds between looks for connections past their deadline (at most)


class Stream:
    """What a view hands to ``environ[OFFLOAD]``: ``attach(channel)`` is called on the loop once the
    headers are written; the stream then writes with ``channel.send`` and ends with
    ``channel.finish()``. ``detach()`` is called when the connection goes away first."""

    def attach(self, channel: StreamChannel) -> None:
        raise NotImplementedError

    def detach(self) -> None:
        pass


class StreamChannel:
    """The loop-side end of one offloaded stream (chunked transfer encoding)."""

    __slots__ = ("conn", "done")

    def __init__(self, conn: Connection) -> None:
        self.conn, self.done = conn, False

    def send(self, framed: bytes) -> bool:
        """Write bytes already framed as chunks (see ``chunk``); False once the channel is gone or
        when the client lags ``max_stream_buffer`` behind (then it is closed)."""
        if self.done:
            return False
        transport = self.conn.transport
        transport.write(framed)
        if transport.get_write_buffer_size() > self.conn.server.max_stream_buffer:
            log.info("closing a stream whose client is %d bytes behind", transport.get_write_buffer_size())
            self.done = True
            self.conn.close()
            return False
        return True

    def finish(self) -> None:
        """End the stream (last chunk); the connection closes after it."""
        if not self.done:
            self.done = True
            self.conn.transport.write(b"0\r\n\r\n")
            self.conn.close()


def chunk(data: bytes) -> bytes:
    """``data`` as one HTTP/1.1 chunk."""
    return b"%x\r\n%b\r\n" % (len(data), data)


class _Request:
    __slots__ = ("url", "headers", "body", "size", "method", "version", "keep_alive", "expect_continue")

    def __init__(self) -> None:
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.size = 0


class Connection(asyncio.Protocol):
    """One client socket: parse, run the app in the pool, write the answer; keep-alive."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.loop = server.loop
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.request: _Request | None = None
        self.queue: list[_Request] = []
        self.busy = False
        self.streaming: Stream | None = None
        self.upgrade_asked = False      # the client asked to switch protocols (never granted)
        self.closed = False
        self.eof = False
        self.paused = False
        self.header_bytes = 0
        self.deadline: float | None = None     # loop time; the server's sweep acts on it (_timed_out)
        self.env_base: dict = {}
        self._can_write = threading.Event()
        self._can_write.set()

    # -- connection events ----------------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        server = self.server
        if len(server.connections) >= server.max_connections:
            log.warning("connection limit (%d) reached: closing a new connection", server.max_connections)
            transport.abort()
            self.closed = True
            return
        server.connections.add(self)
        peer = transport.get_extra_info("peername") or ("", 0)
        tls = transport.get_extra_info("ssl_object")
        self.env_base = {
            "REMOTE_ADDR": str(peer[0]), "REMOTE_PORT": str(peer[1]) if len(peer) > 1 else "",
            "SERVER_NAME": server.host, "SERVER_PORT": str(server.port),
            "wsgi.url_scheme": "https" if tls is not None else "http",
            PEER_CERT: tls.getpeercert() if tls is not None else None,
        }
        transport.set_write_buffer_limits(high=server.write_high_water)
        self._arm(server.idle_timeout)

    def connection_lost(self, exc) -> None:
        self.closed = True
        self.server.connections.discard(self)
        self._can_write.set()
        self.deadline = None
        stream, self.streaming = self.streaming, None
        if stream is not None:
            stream.detach()

    def pause_writing(self) -> None:
        self._can_write.clear()

    def resume_writing(self) -> None:
        self._can_write.set()

    def data_received(self, data: bytes) -> None:
        if self.streaming is not None or self.closed or self.upgrade_asked:
            return          # a watch (or upgrade) client has nothing more to say; ignore what it sends
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            # The server never switches protocols. A whole request that asked to (kubectl exec,
            # attach, port-forward) is answered as plain HTTP, so the client reads the app's Status
            # saying why; whatever the client sends after it is not HTTP and is ignored.
            self.upgrade_asked = True
            if self.request is not None:
                self._error(HTTPStatus.NOT_IMPLEMENTED, "protocol upgrades are not supported")
        except _TooLarge as exc:
            self._error(exc.status, exc.message)
        except httptools.HttpParserError:
            self._error(HTTPStatus.BAD_REQUEST, "malformed HTTP request")

    def eof_received(self):
        if self.streaming is None and (self.busy or self.queue):
            self.eof = True     # the client is done sending: answer what it asked, then close
            return True
        return False            # close our side too

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.transport.close()

    # -- timers -----------------------------------------------------------------------------------
    def _arm(self, seconds: float) -> None:
        self.deadline = self.loop.time() + seconds

    def _timed_out(self) -> None:
        self.deadline = None
        if self.busy or self.streaming is not None or self.closed:
            return
        if self.request is not None:
            self._error(HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time")
        else:
            self.close()    # idle keep-alive connection

    # -- parser callbacks -------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self.request = _Request()
        self.header_bytes = 0
        self._arm(self.server.request_timeout)

    def on_url(self, url: bytes) -> None:
        self.request.url += url
        self._count_header(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self.request.headers.append((name, value))
        self._count_header(len(name) + len(value))

    def _count_header(self, n: int) -> None:
        self.header_bytes += n
        if self.header_bytes > self.server.max_header:
            raise _TooLarge(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large")

    def on_headers_complete(self) -> None:
        req = self.request
        req.method = self.parser.get_method().decode("latin-1")
        req.version = self.parser.get_http_version()
        req.keep_alive = self.parser.should_keep_alive()
        for name, value in req.headers:
            lower = name.lower()
            if lower == b"content-length" and value.strip().isdigit() and int(value) > self.server.max_body:
                raise _TooLarge(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large")
            if lower == b"expect" and value.lower() == b"100-continue":
                self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        req = self.request
        req.size += len(body)
        if req.size > self.server.max_body:
            raise _TooLarge(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large")
        req.body.append(body)

    def on_message_complete(self) -> None:
        req, self.request = self.request, None
        self.queue.append(req)
        self.deadline = None
        if len(self.queue) >= PIPELINE and not self.paused:
            self.paused = True
            self.transport.pause_reading()     # a client pipelining far ahead waits in its socket
        self._next()

    # -- running requests -------------------------------------------------------------------------
    def _next(self) -> None:
        if self.busy or not self.queue or self.closed:
            return
        self.busy = True
        req = self.queue.pop(0)
        self.server.submit(self._run, req)

    def _environ(self, req: _Request) -> dict:
        path, _, query = req.url.partition(b"?")
        body = b"".join(req.body)
        env = {
            "REQUEST_METHOD": req.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
            "QUERY_STRING": query.decode("latin-1"),
            "SERVER_PROTOCOL": f"HTTP/{req.version}",
            "wsgi.version": (1, 0),
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            **self.env_base,
        }
        for name, value in req.headers:
            key = name.decode("latin-1").upper().replace("-", "_")
            text = value.decode("latin-1")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                env[key] = text
                continue
            key = "HTTP_" + key
            env[key] = f"{env[key]},{text}" if key in env else text
        if body and "CONTENT_LENGTH" not in env:
            env["CONTENT_LENGTH"] = str(len(body))
        return env

    def _run(self, req: _Request) -> None:
        """In a pool thread: call the app; hand the answer back to the loop."""
        env = self._environ(req)
        offloaded: list[Stream] = []
        env[OFFLOAD] = offloaded.append
        started: list = []

        def start_response(status, headers, exc_info=None):
            if exc_info and started:
                raise exc_info[1].with_traceback(exc_info[2])
            started[:] = [status, headers]
            return lambda data: None    # the legacy write() callable: not used by Flask

        try:
            body = self.server.app(env, start_response)
            try:
                if offloaded:
                    chunks: list[bytes] = []
                else:
                    sized = any(k.lower() == "content-length" for k, _ in started[1])
                    if not sized and req.method != "HEAD":
                        self._stream_from_thread(req, started, body)
                        return
                    chunks = list(body)
            finally:
                if hasattr(body, "close"):
                    body.close()
        except Exception:
            log.exception("the app failed")
            started[:] = ["500 Internal Server Error", [("Content-Type", "text/plain")]]
            chunks, offloaded = [b"internal error\n"], []
        self._call(self._respond, req, started[0], started[1], chunks, offloaded[0] if offloaded else None)

    def _call(self, fn: Callable, *args) -> None:
        self.server.call(fn, *args)

    def _head(self, req: _Request, status: str, headers: list, *, chunked: bool, close: bool) -> bytes:
        lines = [f"HTTP/1.1 {status}"]
        for name, value in headers:
            lower = name.lower()
            if lower in ("connection", "transfer-encoding", "keep-alive") or (chunked and lower == "content-length"):
                continue
            lines.append(f"{name}: {value}")
        lines.append(f"Server: {self.server.ident}")
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        if close:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _respond(self, req: _Request, status: str, headers: list, chunks: list[bytes], stream: Stream | None) -> None:
        """On the loop: write a whole answer, or start an offloaded stream."""
        if self.closed:
            if stream is not None:
                stream.detach()
            return
        if stream is not None:
            self.transport.write(self._head(req, status, headers, chunked=True, close=True))
            self.streaming = stream
            self._resume()                      # to notice the client going away
            stream.attach(StreamChannel(self))
            return
        close = not req.keep_alive or self.server.closing
        head = self._head(req, status, headers, chunked=False, close=close)
        self.transport.write(head + b"".join(chunks) if req.method != "HEAD" else head)
        self._done(close)

    def _done(self, close: bool) -> None:
        self.busy = False
        if close or (self.eof and not self.queue):
            self.close()
            return
        if self.request is None:            # (a pipelined request already arriving keeps its deadline)
            self._arm(self.server.idle_timeout)
        self._resume()
        self._next()

    def _resume(self) -> None:
        if self.paused:
            self.paused = False
            self.transport.resume_reading()

    def _stream_from_thread(self, req: _Request, started: list, body) -> None:
        """A streamed body that was not offloaded (e.g. a polled view's watch): the pool thread
        iterates it and writes chunk by chunk, waiting while the client is slow."""
        close = not req.keep_alive or self.server.closing
        self._call(self.transport.write, self._head(req, started[0], started[1], chunked=True, close=close))
        for data in body:
            if self.closed or self.server.closing:
                return
            if data:
                self._can_write.wait()
                self._call(self._write_if_open, chunk(data if isinstance(data, bytes) else data.encode()))
        self._call(self._write_if_open, b"0\r\n\r\n")
        self._call(self._done, close)

    def _write_if_open(self, data: bytes) -> None:
        if not self.closed:
            self.transport.write(data)

    def _error(self, status: HTTPStatus, message: str) -> None:
        """A request the app never sees: a plain answer, then close."""
        if self.closed:
            return
        body = f"{message}\n".encode()
        self.transport.write(
            f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        self.close()


class _TooLarge(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        self.status, self.message = status, message


class HttpServer:
    """Serve ``app`` on ``sock`` from a loop in its own thread; ``stop()`` ends everything."""

    def __init__(self, app, sock: socket.socket, *, threads: int = 16, ssl_context: ssl.SSLContext | None = None,
                 ident: str = "kube32", max_connections: int = 4096, idle_timeout: float = 120.0,
                 request_timeout: float = 30.0, max_body: int = 16 << 20, max_header: int = 64 << 10,
                 max_stream_buffer: int = 4 << 20, write_high_water: int = 256 << 10) -> None:
        self.app, self.sock, self.ssl_context, self.ident = app, sock, ssl_context, ident
        self.host, self.port = sock.getsockname()[:2]
        self.max_connections, self.idle_timeout, self.request_timeout = max_connections, idle_timeout, request_timeout
        self.max_body, self.max_header = max_body, max_header
        self.max_stream_buffer, self.write_high_water = max_stream_buffer, write_high_water
        self.sweep_interval = min(SWEEP, request_timeout / 4, idle_timeout / 4)
        self.threads = threads
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._workers: list[threading.Thread] = []
        self._idle = 0                            # workers waiting with no task promised to them
        self._pool_lock = threading.Lock()
        self._posted: collections.deque = collections.deque()     # (fn, args) for the loop
        self._woken = False
        self.loop = asyncio.new_event_loop()
        self.connections: set[Connection] = set()
        self.closing = False
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kube32-http-loop", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def listen() -> None:
            self._server = await self.loop.create_server(
                lambda: Connection(self), sock=self.sock, ssl=self.ssl_context, backlog=1024)

        self.loop.run_until_complete(listen())
        self._sweeper = self.loop.call_later(self.sweep_interval, self._sweep)
        self._ready.set()
        self.loop.run_forever()
        self.loop.close()

    # -- the pool -----------------------------------------------------------------------------------
    def submit(self, fn: Callable, *args) -> None:
        """Run ``fn(*args)`` in a pool thread. The pool grows as tasks meet no idle worker, up to
        ``threads``: a server that answers one client at a time (a test, a conformance scenario's
        in-process reference) starts one or two threads, not all of them."""
        self._work.put((fn, args))
        with self._pool_lock:
            if self._idle:
                self._idle -= 1
                return
            if len(self._workers) >= self.threads:
                return                          # every worker is busy: the task waits its turn
            worker = threading.Thread(target=self._worker, name=f"kube32-http_{len(self._workers)}",
                                      daemon=True)
            self._workers.append(worker)
        worker.start()

    def _worker(self) -> None:
        work = self._work
        while True:
            item = work.get()
            if item is None:
                return
            fn, args = item
            try:
                fn(*args)
            except Exception:
                log.exception("a pool task failed")
            with self._pool_lock:
                self._idle += 1

    def call(self, fn: Callable, *args) -> None:
        """Run ``fn(*args)`` on the loop (from any thread, in order). Calls queued before the loop
        gets to them share one wake-up (one self-pipe write instead of one per answer)."""
        self._posted.append((fn, args))
        if not self._woken:
            self._woken = True
            try:
                self.loop.call_soon_threadsafe(self._run_posted)
            except RuntimeError:        # the loop has stopped (server shutting down)
                pass

    def _run_posted(self) -> None:
        self._woken = False             # first: a call posted from now on wakes the loop again
        posted = self._posted
        while posted:
            fn, args = posted.popleft()
            try:
                fn(*args)
            except Exception:
                log.exception("a call on the loop failed")

    def _sweep(self) -> None:
        """Act on every connection whose deadline (request or idle timeout) has passed."""
        now = self.loop.time()
        for conn in [c for c in self.connections if c.deadline is not None and c.deadline <= now]:
            conn._timed_out()
        self._sweeper = self.loop.call_later(self.sweep_interval, self._sweep)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop accepting, close every connection, stop the loop and the pool."""
        self.closing = True
        done = threading.Event()

        def shut() -> None:
            if self._server is not None:
                self._server.close()
            for conn in list(self.connections):
                conn.close()
            stop_when_closed(self.loop.time() + CLOSE_GRACE)
            done.set()

        def stop_when_closed(deadline: float) -> None:
            """Stop the loop once every connection has flushed and gone (at most CLOSE_GRACE)."""
            if self.connections and self.loop.time() < deadline:
                self.loop.call_later(0.002, stop_when_closed, deadline)
            else:
                self.loop.stop()

        self.call(shut)
        done.wait(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
        with self._pool_lock:
            workers = len(self._workers)
            self.threads = 0                    # no new worker from here on
        for _ in range(workers):
            self._work.put(None)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock
