"""A cheap HTTP/1.1 load client for the load benchmarks: asyncio keep-alive connections, requests
encoded before the run (or by a format of a few bytes), answers parsed by httptools (C).

Why: on this 2-core machine the load generator shares the CPU with the server it measures. A client
that spends more CPU per request than the server (``http.client`` in threads: ~0.3-0.5 ms per
request plus the GIL hand-offs) measures itself. Here a request costs a ``transport.write`` and a C
parse (~40-60 us of client CPU), each generator runs in processes of its own, and every report
names the client's own CPU and lateness (``Meter``) next to the server's figures, so a run can say
when the client, not the server, fell behind.

``Pool(port, size)`` holds ``size`` connections, each carrying one request at a time (the server
reads one request per connection at a time anyway); ``submit(data, done)`` sends on an idle
connection or queues, and ``done(status, body, seconds)`` is called on the loop with the time from
submit to the last byte of the answer (status 0: the connection failed or timed out).
"""

from __future__ import annotations

import asyncio
import collections
import multiprocessing as mp
import os
import queue
import resource
import time
from collections.abc import Callable

import httptools

Done = Callable[[int, bytes, float], None]


def request(method: str, path: str, body: bytes = b"", content_type: str = "application/json") -> bytes:
    """A whole HTTP/1.1 request, ready to write."""
    head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n"
    if body or method in ("POST", "PUT", "PATCH"):
        head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


class _Conn(asyncio.Protocol):
    __slots__ = ("pool", "transport", "parser", "body", "done", "t0", "sent", "lost")

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.transport = None
        self.parser = httptools.HttpResponseParser(self)
        self.body: list[bytes] = []
        self.done: Done | None = None
        self.t0 = self.sent = 0.0
        self.lost = False

    def connection_made(self, transport) -> None:
        self.transport = transport

    def send(self, data: bytes, done: Done, t0: float) -> None:
        self.done, self.t0, self.sent = done, t0, time.monotonic()
        self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.abort()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        done, self.done = self.done, None
        body, self.body = b"".join(self.body), []
        status = self.parser.get_status_code()
        if done is not None:
            done(status, body, time.monotonic() - self.t0)
        if not self.parser.should_keep_alive():     # the server closes: send nothing more on it
            self.lost = True
            self.transport.close()
        self.pool._idle(self)

    def connection_lost(self, exc) -> None:
        if self.lost and self.done is None:
            self.pool._lost(self)       # closed after a last answer: replace it
            return
        self.lost = True
        done, self.done = self.done, None
        if done is not None:
            done(0, b"", time.monotonic() - self.t0)
        self.pool._lost(self)


class Pool:
    """``size`` keep-alive connections to 127.0.0.1:``port``; requests beyond them wait in order.
    A request fails (status 0) once it has been on the wire ``timeout`` seconds, or, with
    ``queue_timeout``, once it has waited that long in all (a renewal that late is lost anyway)."""

    def __init__(self, port: int, size: int, timeout: float = 20.0, queue_timeout: bool = True) -> None:
        self.port, self.size, self.timeout, self.queue_timeout = port, size, timeout, queue_timeout
        self.idle: list[_Conn] = []
        self.busy: set[_Conn] = set()
        self.waiting: collections.deque = collections.deque()
        self.failed = 0
        self._watchdog = None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        for _ in range(self.size):
            await self._connect(loop)
        self._watchdog = loop.call_later(1.0, self._check_timeouts)

    async def _connect(self, loop) -> None:
        try:
            _, conn = await asyncio.wait_for(
                loop.create_connection(lambda: _Conn(self), "127.0.0.1", self.port), self.timeout)
        except OSError:      # TimeoutError is one
            self.failed += 1
            return
        self._idle(conn)

    def submit(self, data: bytes, done: Done) -> None:
        t0 = time.monotonic()
        if self.idle:
            conn = self.idle.pop()
            self.busy.add(conn)
            conn.send(data, done, t0)
        else:
            self.waiting.append((data, done, t0))

    def pending(self) -> int:
        return len(self.busy) + len(self.waiting)

    def _idle(self, conn: _Conn) -> None:
        self.busy.discard(conn)
        if conn.lost:
            return
        if self.waiting:
            data, done, t0 = self.waiting.popleft()
            self.busy.add(conn)
            conn.send(data, done, t0)
        else:
            self.idle.append(conn)

    def _lost(self, conn: _Conn) -> None:
        self.busy.discard(conn)
        if conn in self.idle:
            self.idle.remove(conn)
        loop = asyncio.get_running_loop()
        if not loop.is_closed():
            loop.create_task(self._connect(loop))      # keep the pool at its size

    def _check_timeouts(self) -> None:
        now = time.monotonic()
        for conn in list(self.busy):
            if conn.done is not None and now - (conn.t0 if self.queue_timeout else conn.sent) > self.timeout:
                conn.transport.abort()                  # connection_lost reports status 0
        # requests waiting longer than the timeout for a connection fail too
        while self.queue_timeout and self.waiting and now - self.waiting[0][2] > self.timeout:
            _, done, t0 = self.waiting.popleft()
            done(0, b"", now - t0)
        self._watchdog = asyncio.get_running_loop().call_later(1.0, self._check_timeouts)

    async def drain(self, limit: float) -> None:
        """Wait until nothing is in flight (at most ``limit`` seconds)."""
        end = time.monotonic() + limit
        while self.pending() and time.monotonic() < end:
            await asyncio.sleep(0.05)

    def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        for conn in list(self.idle) + list(self.busy):
            conn.transport.abort()


class Meter:
    """The client's own cost and lateness: CPU seconds of this process, seconds it waited runnable
    for a CPU, and how late the loop acted against its schedule (a late loop means the CLIENT was
    starved, not that the server was slow)."""

    def __init__(self) -> None:
        self.cpu0, self.wait0 = _cpu(), _waited()
        self.lag: list[float] = []

    def late(self, due: float) -> None:
        self.lag.append(max(0.0, time.monotonic() - due))

    def result(self) -> dict:
        return {"client_cpu_s": _cpu() - self.cpu0, "client_lag": self.lag, "client_wait_s": _waited() - self.wait0}


def _waited() -> float:
    """Seconds this process's threads have waited runnable for a CPU (Linux schedstat; 0 elsewhere)."""
    total = 0
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/schedstat") as f:
                total += int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return total / 1e9


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def paced(schedule, act: Callable[[int], None], meter: Meter, stop: Callable[[], bool] = lambda: False) -> None:
    """Call ``act(item)`` for every (due monotonic time, item) of ``schedule`` (in order) at its time;
    items already due go out at once, each noted in ``meter``."""
    for due, item in schedule:
        if stop():
            return
        delay = due - time.monotonic()
        if delay > 0.0005:
            await asyncio.sleep(delay)
        meter.late(due)
        act(item)


def in_processes(target: Callable, arg_lists: list[tuple], timeout: float) -> list[dict | None]:
    """Run ``target(*args, out)`` in one forked process per args tuple; each puts one dict on ``out``.
    A process that dies or does not answer within ``timeout`` s gives None (never an exception)."""
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_tagged, args=(k, target, args, out)) for k, args in enumerate(arg_lists)]
    for p in procs:
        p.start()
    results: list[dict | None] = [None] * len(procs)
    end = time.monotonic() + timeout
    got = 0
    while got < len(procs) and time.monotonic() < end:
        try:
            k, value = out.get(timeout=1.0)
        except queue.Empty:
            if all(p.exitcode is not None for p in procs) and out.empty():
                break
            continue
        results[k] = value
        got += 1
    for p in procs:
        p.join(5)
        if p.is_alive():
            p.kill()
            p.join()
    return results


def _tagged(k: int, target: Callable, args: tuple, out) -> None:
    try:
        value = target(*args)
    except BaseException as exc:      # noqa: BLE001 - reported to the parent as a result, never lost
        value = {"error": f"{type(exc).__name__}: {exc}"}
    out.put((k, value))
    out.close()
    out.join_thread()
    os._exit(0)
