"""TLS on a plain connection: Python's ssl (an ``SSLObject`` between two memory BIOs), driven by
the connection itself.

Why not asyncio's TLS transport: it hands a connection to the server only once the handshake is
done, so connections still in the handshake could be neither counted against the connection limit
nor timed out by the server (a client that opens sockets and says nothing held them for asyncio's
60 s), and each one reserves a 256 KiB read buffer. Here a TLS connection is a connection from
accept: counted, given a handshake deadline, evicted like any other; it costs what OpenSSL keeps
(its buffers are released while the connection is quiet: ``SSL_MODE_RELEASE_BUFFERS``, Python's
default). The cryptography and the protocol are OpenSSL's; this only moves bytes.
"""

from __future__ import annotations

import ssl

READ = 64 * 1024        # plaintext taken out of OpenSSL per read call


class TlsSession:
    """One connection's TLS. OpenSSL's state for it (some kilobytes) is made when the client's first
    bytes arrive: a connection that never says anything costs only this small object."""

    __slots__ = ("_context", "_in", "_out", "_obj", "ready", "peer_closed")

    def __init__(self, context: ssl.SSLContext) -> None:
        self._context = context
        self._obj: ssl.SSLObject | None = None
        self.ready = False           # the handshake is done
        self.peer_closed = False     # the client sent close_notify

    def receive(self, data: bytes) -> bytes:
        """Take bytes from the network; returns the plaintext they complete (b"" while the
        handshake goes on). Raises ``ssl.SSLError`` when the client or its certificate fails.
        What must go back (handshake records, alerts, tickets) is then in ``outgoing()``."""
        if self._obj is None:
            self._in, self._out = ssl.MemoryBIO(), ssl.MemoryBIO()
            self._obj = self._context.wrap_bio(self._in, self._out, server_side=True)
        self._in.write(data)
        if not self.ready:
            try:
                self._obj.do_handshake()
            except ssl.SSLWantReadError:
                return b""
            self.ready = True
        chunks = []
        while True:
            try:
                chunk = self._obj.read(READ)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                self.peer_closed = True
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def outgoing(self) -> bytes:
        return self._out.read() if self._obj is not None else b""

    def encrypt(self, data: bytes) -> bytes:
        """``data`` as TLS records, ready for the socket."""
        view = memoryview(data)
        while view:
            view = view[self._obj.write(view):]
        return self._out.read()

    def goodbye(self) -> bytes:
        """The close_notify alert (nothing when the handshake never finished)."""
        if self.ready:
            try:
                self._obj.unwrap()
            except (ssl.SSLError, ValueError):
                pass
        return self.outgoing()

    def peer_certificate(self) -> dict | None:
        """The verified client certificate (``SSLSocket.getpeercert()`` form), or None."""
        return self._obj.getpeercert() or None
