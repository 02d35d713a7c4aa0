"""An HTTP/1.1 server for a WSGI app: asyncio connections, a small thread pool for the app, and
streams that live on the event loop.

Why not a thread-per-request server (waitress, cheroot, granian's WSGI mode): a watch is a response
that lasts minutes to hours, so each one would hold a worker thread; 1,000 watches would need 1,000
threads and a notify of every one of them per event. Here a connection costs a socket and a small
object; the Flask app (and any auth middleware in front of it) runs in the pool for every request,
watches included, and a watch view hands its stream to the server through ``environ[OFFLOAD]``
(the way ``wsgi.file_wrapper`` hands over a file): the pool thread is free as soon as the watch has
been set up, and the watch hub (``serving.hub``) writes events to the socket from the loop.

HTTP parsing is httptools (the C parser uvicorn uses). TLS is Python's ssl, driven by the connection
(``serving.tls``): give ``ssl_context`` and ``environ["wsgi.url_scheme"]`` is ``https`` and
``environ[PEER_CERT]`` holds the client certificate (``SSLSocket.getpeercert()`` form; None without
one) for the WSGI auth middleware.

No client can take the server from the others (every number is a field of ``Limits``):
- Connections, TLS handshakes included, are counted from accept. At ``max_connections`` a new one
  makes room: a connection that is not running a request or a stream gives way, taken from the
  client address that holds the most connections, those that never completed a request first,
  the oldest first; only when every connection is busy is the new one refused. A handshake must
  end within ``handshake_timeout``, a request arrive whole within ``request_timeout`` (the first
  one counted from accept or the handshake: a silent connection holds nothing for long), an idle
  keep-alive connection closes after ``idle_timeout``.
- Bodies are capped at ``max_body`` (413), heads at ``max_header`` (431), both answered as a
  Kubernetes Status when the server is given ``error_body``.
- Per connection, at most ``pipeline`` parsed requests wait behind the running one and no request
  starts while its answers wait unsent past the socket's high-water mark: a client that pipelines
  and never reads finds reading paused after a few answers, and its bytes wait in its own socket.
  Pipelined requests run at most ``BULK_THREADS`` at a time, so a flood of them never stands between
  another client's request and a thread.
  A stream whose client lags ``max_stream_buffer`` bytes is closed (as kube-apiserver closes a
  watcher that cannot keep up; the client re-lists and watches again).
- Across connections, request bytes held in memory (heads, bodies, pipelined requests) stop at
  ``read_budget``: a connection that would go past it waits with reading paused; answer bytes
  waiting in sockets stop at ``write_budget``: past it the connections furthest behind are closed,
  and any whose answers made no progress for ``write_timeout`` are closed as well.

Cost per request (it is most of a small request's CPU on a 2-core machine): timeouts are deadlines
checked by one sweep (``SWEEP`` s) instead of a timer armed and cancelled per request; a connection
that sends one request at a time never pauses or resumes reading (two epoll calls each); the pool
is plain threads on a ``SimpleQueue``; answers go back to the loop through one queue that wakes the
loop once for all the answers ready at that moment; reads land in one buffer the server shares.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import gc
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

from kube32.reference import memory
from kube32.reference.serving.tls import TlsSession

log = logging.getLogger(__name__)

OFFLOAD = "kube32.offload_stream"   # environ key: fn(stream) hands a stream to the loop (see Stream)
PEER_CERT = "kube32.peer_cert"      # environ key: the TLS client certificate (None: none or plain HTTP)
CLOSE_GRACE = 0.05                  # seconds stop() lets closing connections flush what they still send
SWEEP = 1.0                         # seconds between looks for connections past their deadline (at most)
READ_SIZE = 64 * 1024               # bytes taken from a socket at a time (into the server's one buffer)
FEED = 4 * 1024                     # bytes handed to the parser at a time (a pipelined flood parses a few
                                    # dozen requests before the connection notices it is full)
LINGER = 1.0                        # seconds an answered-and-closing connection's input is read and dropped
                                    # (closing with unread input would reset the answer away)
BULK_THREADS = 2                    # pool threads that run pipelined requests at once (the others are kept
                                    # for requests that nothing waits behind: a client that pipelines is a
                                    # bulk flow, and a flood of it never stands between others and a thread)
ACCEPT_BATCH = 32                   # connections accepted per loop iteration
LISTEN_BACKLOG = 1024               # connections the kernel queues until they are accepted
GIVE_BACK_AFTER = 1024              # connections fewer than at their peak: the allocator gives memory back
FAIR_HOLD = 16 * 1024               # bytes any connection may hold past the read budget (a small request
                                    # still goes through while large bodies wait for the budget)


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one server lets its clients hold (see the module's docstring)."""

    max_connections: int = 4096
    handshake_timeout: float = 10.0      # seconds for a TLS handshake
    request_timeout: float = 30.0        # seconds for a request to arrive whole (408)
    idle_timeout: float = 90.0           # seconds a keep-alive connection may wait for its next request
    write_timeout: float = 60.0          # seconds answers may wait unsent with no progress
    max_body: int = 16 << 20             # bytes of one request body (413)
    max_header: int = 64 << 10           # bytes of one request line and headers (431)
    pipeline: int = 4                    # parsed requests waiting per connection before reading pauses
    read_budget: int = 64 << 20          # request bytes held in memory, all connections together
    write_budget: int = 256 << 20        # answer bytes waiting in sockets, all connections together
    max_stream_buffer: int = 4 << 20     # bytes a stream's client may lag before the stream is closed
    write_high_water: int = 256 << 10    # bytes waiting in one socket before its connection stops taking work


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
        if self.done or self.conn.closed:
            self.done = True
            return False
        self.conn.write(framed)
        behind = self.conn.buffered()
        if behind > self.conn.server.limits.max_stream_buffer:
            log.info("closing a stream whose client is %d bytes behind", behind)
            self.done = True
            self.conn.close()
            return False
        return True

    def finish(self) -> None:
        """End the stream (last chunk); the connection closes after it."""
        if not self.done:
            self.done = True
            if not self.conn.closed:
                self.conn.write(b"0\r\n\r\n")
                self.conn.close()


def chunk(data: bytes) -> bytes:
    """``data`` as one HTTP/1.1 chunk."""
    return b"%x\r\n%b\r\n" % (len(data), data)


class _Request:
    __slots__ = ("url", "headers", "body", "size", "method", "version", "keep_alive", "chunked", "bulk")

    def __init__(self) -> None:
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.size = 0               # bytes held against the server's read budget
        self.chunked = False
        self.bulk = False           # pipelined: runs in the background (``HttpServer.run_request``)


class _TooLarge(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        self.status, self.message = status, message


class Connection(asyncio.BufferedProtocol):
    """One client socket: parse, run the app in the pool, write the answer; keep-alive.

    A connection that has sent nothing costs little (a flood of them is the cheapest attack): its
    parser, its TLS state and its request queue come with its first bytes."""

    __slots__ = ("server", "loop", "transport", "tls", "parser", "request", "queue", "busy", "streaming",
                 "upgrade_asked", "closed", "lingering", "eof", "reading", "writing", "stalled_since",
                 "unparsed", "held", "served", "header_bytes", "deadline", "peer", "_port", "env_base")

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.loop = server.loop
        self.transport: asyncio.Transport | None = None
        self.tls = TlsSession(server.ssl_context) if server.ssl_context is not None else None
        self.parser: httptools.HttpRequestParser | None = None      # (made by the first bytes)
        self.request: _Request | None = None
        self.queue: list[_Request] = []           # parsed requests waiting their turn (a few)
        self.busy = False
        self.streaming: Stream | None = None
        self.upgrade_asked = False      # the client asked to switch protocols (never granted)
        self.closed = False
        self.lingering = False          # answered an error: what the client still sends is dropped
        self.eof = False
        self.reading = True             # the transport reads (not paused)
        self.writing = True             # the transport takes more (below its high-water mark)
        self.stalled_since: float | None = None    # loop time writing paused
        self.unparsed = b""             # bytes that arrived while the connection could take no more
        self.held = 0                   # bytes held against the server's read budget
        self.served = 0                 # requests answered
        self.header_bytes = 0
        self.deadline: float | None = None     # loop time; the server's sweep acts on it (_timed_out)
        self.peer = ""
        self._port = ""
        self.env_base: dict | None = None

    # -- connection events ----------------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.server.live.add(self)
        peer = transport.get_extra_info("peername") or ("", 0)
        self.peer = str(peer[0])
        self._port = str(peer[1]) if len(peer) > 1 else ""
        if not self.server.admit(self):
            self.closed = True
            transport.abort()
            return
        transport.set_write_buffer_limits(high=self.server.limits.write_high_water)
        limits = self.server.limits
        self._arm(limits.handshake_timeout if self.tls is not None else limits.request_timeout)

    def connection_lost(self, exc) -> None:
        self.server.live.discard(self)
        self._forget()
        self.server.wake_writers()
        stream, self.streaming = self.streaming, None
        if stream is not None:
            stream.detach()
        # The parser refers back to this connection: without it the connection (and its TLS state)
        # is freed at once, not by the cyclic collector (a flood of short connections piled up
        # hundreds of MB of such cycles between two full collections).
        self.parser = self.tls = None
        # The same for the transport's own cycle through its read callback (CPython 3.11; 3.12
        # breaks it itself, gh-100348): its socket, its extras and itself went to the old
        # generation with every connection that lived through a young collection.
        if getattr(self.transport, "_read_ready_cb", None) is not None:
            self.transport._read_ready_cb = None

    def _forget(self) -> None:
        """Leave the server's books: nothing of this connection is held any more."""
        self.closed = True
        self.deadline = None
        self.queue.clear()
        self.unparsed = b""
        self.request = None
        self._release(self.held)
        self.server.forget(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.server.read_view

    def buffer_updated(self, nbytes: int) -> None:
        data = self.server.read_view[:nbytes]
        if self.tls is not None:
            try:
                data = self._decrypt(bytes(data))
            except ssl.SSLError as exc:
                log.debug("TLS with %s failed: %s", self.peer, exc)
                self.abort()
                return
            if data is None:
                return
        if self.closed or self.lingering or self.streaming is not None or self.upgrade_asked:
            return      # a watch (or upgrade) client has nothing more to say; an answered error's rest
        try:
            self._feed(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
            self._parse_failed(exc)

    def _decrypt(self, data: bytes) -> bytes | None:
        """Plaintext from TLS records (None: nothing for HTTP yet, e.g. mid-handshake)."""
        tls = self.tls
        was_ready = tls.ready
        plain = tls.receive(data)
        pending = tls.outgoing()
        if pending:
            self.transport.write(pending)
        if not tls.ready:
            return None
        if not was_ready:                   # handshake done: the first request is due from now
            self._arm(self.server.limits.request_timeout)
        if tls.peer_closed and not plain:
            self.eof_received()
            return None
        return plain

    def eof_received(self):
        if self.streaming is None and (self.busy or self.queue or self.unparsed):
            self.eof = True     # the client is done sending: answer what it asked, then close
            return True
        self.close()
        return False            # close our side too

    def write(self, data: bytes) -> None:
        if self.tls is not None:
            try:
                data = self.tls.encrypt(data)
            except ssl.SSLError:
                self.abort()
                return
        self.transport.write(data)

    def buffered(self) -> int:
        return self.transport.get_write_buffer_size()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.tls is not None:
                goodbye = self.tls.goodbye()
                if goodbye:
                    self.transport.write(goodbye)
            self.transport.close()
            self._forget()

    def abort(self) -> None:
        """Drop the connection at once, whatever it still had to send."""
        if self.transport is not None:
            self.transport.abort()
        self._forget()

    # -- flow control -----------------------------------------------------------------------------
    def pause_writing(self) -> None:
        self.writing = False
        self.stalled_since = self.loop.time()
        self.server.stalled.add(self)

    def resume_writing(self) -> None:
        self.writing = True
        self.server.wake_writers()
        self.stalled_since = None
        self.server.stalled.discard(self)
        self._unblock()
        self._next()

    def _full(self) -> bool:
        """No more requests for now: reading pauses and what has arrived waits unparsed."""
        return (not self.writing or len(self.queue) >= self.server.limits.pipeline
                or (self.server.read_held > self.server.limits.read_budget and self.held >= FAIR_HOLD))

    def _feed(self, data) -> None:
        """Hand ``data`` to the parser a slice at a time while the connection takes requests."""
        pos, n = 0, len(data)
        while pos < n:
            if self.closed or self.lingering:
                return
            if self._full():
                self._hold_back(data[pos:])
                return
            if self.parser is None:
                self.parser = httptools.HttpRequestParser(self)
            self.parser.feed_data(data[pos:pos + FEED])
            pos += FEED

    def _hold_back(self, rest) -> None:
        self.unparsed += bytes(rest)
        self._hold(len(rest))
        if self.reading:
            self.reading = False
            self.transport.pause_reading()
        self.server.waiting.add(self)

    def _unblock(self) -> None:
        """Go on reading once the connection takes requests again."""
        if self.closed or self._full():
            return
        self.server.waiting.discard(self)
        if self.unparsed:
            data, self.unparsed = self.unparsed, b""
            self._release(len(data))
            try:
                self._feed(data)
            except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
                self._parse_failed(exc)
                return
        if not self.unparsed and not self.reading and not self.closed:
            self.reading = True
            self.transport.resume_reading()

    def _hold(self, n: int) -> None:
        self.held += n
        self.server.read_held += n

    def _release(self, n: int) -> None:
        if n:
            self.held -= n
            self.server.release(n)

    # -- timers -----------------------------------------------------------------------------------
    def _arm(self, seconds: float) -> None:
        self.deadline = self.loop.time() + seconds

    def _timed_out(self) -> None:
        self.deadline = None
        if self.busy or self.streaming is not None or self.closed:
            return
        if self.lingering or (self.tls is not None and not self.tls.ready):
            self.abort()            # done dropping input / a handshake that never ended
        elif self.request is not None:
            self._error(HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time")
        else:
            self.close()            # idle keep-alive connection, or one that never sent a request

    # -- parser callbacks -------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self.request = _Request()
        self.header_bytes = 0
        if self.served:             # (the first request counts from accept or the handshake)
            self._arm(self.server.limits.request_timeout)

    def on_url(self, url: bytes) -> None:
        self.request.url += url
        self._count_header(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self.request.headers.append((name, value))
        self._count_header(len(name) + len(value))

    def _count_header(self, n: int) -> None:
        self.header_bytes += n
        self.request.size += n
        self._hold(n)
        if self.header_bytes > self.server.limits.max_header:
            raise _TooLarge(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                            f"the request's headers exceed the limit of {self.server.limits.max_header} bytes")

    def on_headers_complete(self) -> None:
        req = self.request
        req.method = self.parser.get_method().decode("latin-1")
        req.version = self.parser.get_http_version()
        req.keep_alive = self.parser.should_keep_alive()
        limit = self.server.limits.max_body
        for name, value in req.headers:
            lower = name.lower()
            if lower == b"content-length" and value.strip().isdigit() and int(value) > limit:
                raise _TooLarge(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                                f"the request body is {int(value)} bytes; the limit is {limit} bytes")
            if lower == b"transfer-encoding":
                req.chunked = True
            if lower == b"expect" and value.lower() == b"100-continue":
                self.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        req = self.request
        req.size += len(body)
        self._hold(len(body))
        if req.size - self.header_bytes > self.server.limits.max_body:
            raise _TooLarge(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                            f"the request body exceeds the limit of {self.server.limits.max_body} bytes")
        req.body.append(body)

    def on_message_complete(self) -> None:
        req, self.request = self.request, None
        self.queue.append(req)
        self.deadline = None
        self.server.reserve.discard(self)
        self._next()

    def _parse_failed(self, exc: Exception) -> None:
        cause = exc.__context__ if isinstance(exc, httptools.HttpParserCallbackError) else None
        if isinstance(exc, httptools.HttpParserUpgrade):
            # The server never switches protocols. A whole request that asked to (kubectl exec,
            # attach, port-forward) is answered as plain HTTP, so the client reads the app's Status
            # saying why; whatever the client sends after it is not HTTP and is ignored.
            self.upgrade_asked = True
            if self.request is not None:
                self._error(HTTPStatus.NOT_IMPLEMENTED, "protocol upgrades are not supported")
        elif isinstance(cause, _TooLarge):
            self._error(cause.status, cause.message)
        elif cause is not None:
            log.error("reading a request failed", exc_info=cause)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error")
        else:
            self._error(HTTPStatus.BAD_REQUEST, "malformed HTTP request")

    # -- running requests -------------------------------------------------------------------------
    def _next(self) -> None:
        if self.busy or not self.queue or self.closed or not self.writing:
            return
        self.busy = True
        req = self.queue.pop(0)
        req.bulk = bool(self.queue)         # more of this connection's requests wait behind it: pipelined
        self.server.run_request(self, req)

    def _environ(self, req: _Request) -> dict:
        path, _, query = req.url.partition(b"?")
        body = b"".join(req.body)
        if self.env_base is None:
            server = self.server
            self.env_base = {
                "REMOTE_ADDR": self.peer, "REMOTE_PORT": self._port,
                "SERVER_NAME": server.host, "SERVER_PORT": str(server.port),
                "wsgi.url_scheme": "https" if self.tls is not None else "http",
                PEER_CERT: self.tls.peer_certificate() if self.tls is not None else None,
            }
        env = {
            "REQUEST_METHOD": req.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
            "QUERY_STRING": query.decode("latin-1"),
            "SERVER_PROTOCOL": f"HTTP/{req.version}",
            "wsgi.version": (1, 0),
            "wsgi.input": io.BytesIO(body),
            "wsgi.input_terminated": True,
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
            if key == "TRANSFER_ENCODING":
                continue            # the body is whole and de-chunked: the app reads CONTENT_LENGTH bytes
            key = "HTTP_" + key
            env[key] = f"{env[key]},{text}" if key in env else text
        if body or req.chunked:
            env["CONTENT_LENGTH"] = str(len(body))
        return env

    def _run(self, req: _Request) -> None:
        """In a pool thread: call the app; hand the answer back to the loop."""
        try:
            self._answer(req)
        finally:
            if req.bulk:
                self._call(self.server.bulk_done)

    def _answer(self, req: _Request) -> None:
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
            for stream in offloaded:         # handed over, never to be attached: let go what it holds
                stream.detach()
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
        if self.closed or self.lingering:           # (what it held was let go then)
            if stream is not None:
                stream.detach()
            return
        if stream is not None:
            self.write(self._head(req, status, headers, chunked=True, close=True))
            self.streaming = stream
            self._release(self.held)        # a stream holds nothing of what it was asked with,
            self.parser = self.env_base = None      # and its client has nothing more to ask
            self.queue.clear()
            self.unparsed = b""
            if not self.reading:            # to notice the client going away
                self.reading = True
                self.transport.resume_reading()
            stream.attach(StreamChannel(self))
            return
        close = not req.keep_alive or self.server.closing
        head = self._head(req, status, headers, chunked=False, close=close)
        self.write(head + b"".join(chunks) if req.method != "HEAD" else head)
        self._done(req, close)

    def _done(self, req: _Request, close: bool) -> None:
        self.busy = False
        if self.closed or self.lingering:           # (what it held was let go then)
            return
        self.served += 1
        self._release(req.size)
        if close or (self.eof and not self.queue and not self.unparsed):
            self.close()
            return
        if self.request is None and not self.queue:
            self._arm(self.server.limits.idle_timeout)
            self.server.reserve.add(self)
        self._unblock()
        self._next()

    def _stream_from_thread(self, req: _Request, started: list, body) -> None:
        """A streamed body that was not offloaded: the pool thread iterates it and writes chunk by
        chunk, waiting while the client is slow, at most ``write_timeout`` for each chunk."""
        close = not req.keep_alive or self.server.closing
        self._call(self._write_if_open, self._head(req, started[0], started[1], chunked=True, close=close))
        for data in body:
            if self.closed or self.server.closing:
                return
            if data:
                if not self.server.until_writable(self):
                    self._call(self.abort)
                    return
                self._call(self._write_if_open, chunk(data if isinstance(data, bytes) else data.encode()))
        self._call(self._write_if_open, b"0\r\n\r\n")
        self._call(self._done, req, close)

    def _write_if_open(self, data: bytes) -> None:
        if not (self.closed or self.lingering):
            self.write(data)

    def _error(self, status: HTTPStatus, message: str) -> None:
        """A request the app never sees: an answer, then close (reading and dropping what the
        client still sends for ``LINGER`` s, so the answer is not reset away)."""
        if self.closed or self.lingering:
            return
        content_type, body = self.server.error_body(status.value, message)
        self.write(f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Type: {content_type}\r\n"
                   f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        self.lingering = True
        self.request = None
        self.queue.clear()
        self._release(self.held)
        self.unparsed = b""
        self.server.reserve.discard(self)
        if self.tls is not None:
            goodbye = self.tls.goodbye()
            if goodbye:
                self.transport.write(goodbye)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        if not self.reading:
            self.reading = True
            self.transport.resume_reading()
        self._arm(LINGER)


def plain_error(status: int, message: str) -> tuple[str, bytes]:
    return "text/plain", f"{message}\n".encode()


class _Reserve:
    """The connections that may give way to a new one, by client address: those that never
    completed a request (silent, mid-handshake, a first request trickling in) apart from idle
    keep-alive ones, each oldest first."""

    def __init__(self) -> None:
        self.count: collections.Counter[str] = collections.Counter()    # every connection, by address
        self._by_peer: dict[str, tuple[dict, dict]] = {}

    def add(self, conn: Connection) -> None:
        fresh, idle = self._by_peer[conn.peer]
        fresh.pop(conn, None)
        idle.pop(conn, None)
        (idle if conn.served else fresh)[conn] = None      # (dicts keep insertion order: oldest first)

    def discard(self, conn: Connection) -> None:
        groups = self._by_peer.get(conn.peer)
        if groups is not None:
            groups[0].pop(conn, None)
            groups[1].pop(conn, None)

    def joined(self, conn: Connection) -> None:
        self.count[conn.peer] += 1
        self._by_peer.setdefault(conn.peer, ({}, {}))
        self.add(conn)

    def left(self, conn: Connection) -> None:
        self.discard(conn)
        self.count[conn.peer] -= 1
        if self.count[conn.peer] <= 0:
            del self.count[conn.peer]
            self._by_peer.pop(conn.peer, None)

    def compact(self) -> None:
        """Copy every table to its present size (a table keeps the size of its largest moment)."""
        self.count = collections.Counter(self.count)
        self._by_peer = {peer: (dict(fresh), dict(idle)) for peer, (fresh, idle) in self._by_peer.items()}

    def victim(self) -> Connection | None:
        """The connection to close for a new one, or None when every connection is busy."""
        best = None
        for peer, (fresh, idle) in self._by_peer.items():
            if (fresh or idle) and (best is None or self.count[peer] > self.count[best]):
                best = peer
        if best is None:
            return None
        fresh, idle = self._by_peer[best]
        return next(iter(fresh or idle))


class HttpServer:
    """Serve ``app`` on ``sock`` from a loop in its own thread; ``stop()`` ends everything.
    ``error_body(code, message) -> (content type, bytes)`` words the answers the app never sees
    (400, 408, 413, 431, 501)."""

    def __init__(self, app, sock: socket.socket, *, threads: int = 16, ssl_context: ssl.SSLContext | None = None,
                 ident: str = "kube32", limits: Limits | None = None,
                 error_body: Callable[[int, str], tuple[str, bytes]] = plain_error) -> None:
        self.app, self.sock, self.ssl_context, self.ident = app, sock, ssl_context, ident
        self.limits, self.error_body = limits or Limits(), error_body
        limits = self.limits
        self.host, self.port = sock.getsockname()[:2]
        self.sweep_interval = min(SWEEP, limits.request_timeout / 4, limits.idle_timeout / 4,
                                  limits.handshake_timeout / 4, limits.write_timeout / 4)
        self.threads = threads
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._workers: list[threading.Thread] = []
        self._idle = 0                            # workers waiting with no task promised to them
        self._pool_lock = threading.Lock()
        self._posted: collections.deque = collections.deque()     # (fn, args) for the loop
        self._woken = False
        self.loop = asyncio.new_event_loop()
        self.connections: set[Connection] = set()      # counted against max_connections
        self.live: set[Connection] = set()             # every socket not yet gone (closing ones too)
        self.reserve = _Reserve()
        self.stalled: set[Connection] = set()    # connections whose answers wait past the high-water mark
        self.waiting: set[Connection] = set()    # connections holding input back (full, or over the read budget)
        self.read_held = 0                        # request bytes held, all connections
        self._writable = threading.Condition()    # pool threads streaming a body wait on it (rare:
        self._writers = 0                         # one condition for all, not one event per connection)
        self._bulk_running = 0                    # pipelined requests in the pool
        self._bulk_waiting: collections.deque = collections.deque()     # (connection, request) waiting their turn
        self.read_buffer = bytearray(READ_SIZE)
        self.read_view = memoryview(self.read_buffer)
        self.refused = 0                          # connections refused: every slot busy
        self.evicted = 0                          # connections closed to make room
        self.peak_live = 0                        # most connections open at once since memory was given back
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
            # asyncio accepts up to ``backlog`` connections per loop iteration: a small batch, so a flood
            # of connects never stands long between the others' requests and the loop; the kernel's
            # queue of connections not yet accepted stays long (a fleet reconnecting at once)
            self._server = await self.loop.create_server(lambda: Connection(self), sock=self.sock,
                                                         backlog=ACCEPT_BATCH)
            self.sock.listen(LISTEN_BACKLOG)

        self.loop.run_until_complete(listen())
        self._sweeper = self.loop.call_later(self.sweep_interval, self._sweep)
        self._ready.set()
        self.loop.run_forever()
        self.loop.close()

    # -- the books (on the loop) -----------------------------------------------------------------------
    def admit(self, conn: Connection) -> bool:
        """Count a new connection, making room if the server is full; False: refuse it."""
        if len(self.connections) >= self.limits.max_connections:
            victim = self.reserve.victim()
            if victim is None:
                self.refused += 1
                if self.refused & (self.refused - 1) == 0:      # 1, 2, 4, 8 ...: the log says so, not floods
                    log.warning("every one of %d connections is busy: refused a new one (%d so far)",
                                self.limits.max_connections, self.refused)
                return False
            self.evicted += 1
            victim.abort()
        self.connections.add(conn)
        self.reserve.joined(conn)
        if len(self.live) > self.peak_live:
            self.peak_live = len(self.live)
        return True

    def forget(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            self.reserve.left(conn)
        self.stalled.discard(conn)
        self.waiting.discard(conn)

    def release(self, n: int) -> None:
        """Request bytes no longer held; connections waiting for the budget go on."""
        self.read_held -= n
        if self.waiting and self.read_held <= self.limits.read_budget:
            for conn in list(self.waiting):
                conn._unblock()

    def until_writable(self, conn: Connection) -> bool:
        """In a pool thread: wait until ``conn`` takes more answers or is gone, at most
        ``write_timeout``; False: it made no progress for that long."""
        with self._writable:
            self._writers += 1
            try:
                return self._writable.wait_for(lambda: conn.writing or conn.closed, self.limits.write_timeout)
            finally:
                self._writers -= 1

    def wake_writers(self) -> None:
        """A connection takes answers again (or is gone): the pool threads waiting look again."""
        if self._writers:
            with self._writable:
                self._writable.notify_all()

    def run_request(self, conn: Connection, req: _Request) -> None:
        """Run a parsed request in the pool; a pipelined one waits while ``BULK_THREADS`` of them run."""
        if req.bulk:
            if self._bulk_running >= BULK_THREADS:
                self._bulk_waiting.append((conn, req))
                return
            self._bulk_running += 1
        self.submit(conn._run, req)

    def bulk_done(self) -> None:
        self._bulk_running -= 1
        while self._bulk_waiting and self._bulk_running < BULK_THREADS:
            conn, req = self._bulk_waiting.popleft()
            if conn.closed:
                continue                        # (what it held went with the connection)
            self._bulk_running += 1
            self.submit(conn._run, req)

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
        """Act on every connection past its deadline (handshake, request, idle), and on answers that
        wait unsent too long or past the write budget."""
        now = self.loop.time()
        for conn in [c for c in self.connections if c.deadline is not None and c.deadline <= now]:
            conn._timed_out()
        if self.stalled:
            timeout = self.limits.write_timeout
            for conn in [c for c in self.stalled if now - c.stalled_since > timeout]:
                log.info("closing a connection whose answers made no progress for %.0f s", timeout)
                conn.abort()
            behind = sorted(((c.buffered(), id(c), c) for c in self.stalled), reverse=True)
            total = sum(n for n, _, _ in behind)
            for n, _, conn in behind:
                if total <= self.limits.write_budget:
                    break
                log.info("closing a connection %d bytes behind: answers waiting in sockets passed %d bytes",
                         n, self.limits.write_budget)
                conn.abort()
                total -= n
        if self.peak_live - len(self.live) >= GIVE_BACK_AFTER:     # a burst of connections is over
            # what the burst left in cycles is collected once, now, not at some later full
            # collection; the tables sized for the burst are copied to their present size; the
            # allocator gives the pages back
            self.peak_live = len(self.live)
            self.connections, self.live = set(self.connections), set(self.live)
            self.reserve.compact()
            gc.collect()
            memory.give_back()
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
            if self.live and self.loop.time() < deadline:
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
