"""A small threaded RFC2217 server on 127.0.0.1 for any pyserial URL (a ser2net stand-in).

Built on ``serial.rfc2217.PortManager``: SET_CONTROL from the client becomes ``port.dtr``/``port.rts``
assignments on the served port, so a ``vboard://`` board sees the client's reset sequences exactly
as a DevKit behind ser2net would (stretched by RFC2217 round trips). One client at a time.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading

import serial
import serial.rfc2217

log = logging.getLogger(__name__)


class _SocketWriter:
    """PortManager's ``connection``: a thread-safe ``write(bytes)``."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self._sock.sendall(data)


class Rfc2217Server:
    """Serve ``serial_url`` at ``rfc2217://127.0.0.1:<port>`` until ``stop()``."""

    def __init__(self, serial_url: str, host: str = "127.0.0.1", port: int = 0) -> None:
        self.serial_url = serial_url
        self._listener = socket.create_server((host, port))
        self._listener.settimeout(0.1)  # so stop() never waits on a blocked accept()
        self.host, self.port = self._listener.getsockname()[:2]
        self._stopped = threading.Event()
        self._clients: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name=f"rfc2217-{self.port}", daemon=True)

    @property
    def url(self) -> str:
        return f"rfc2217://{self.host}:{self.port}"

    def start(self) -> Rfc2217Server:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        with contextlib.suppress(OSError):
            self._listener.close()
        self.drop_clients()
        self._thread.join(timeout=5)

    def drop_clients(self) -> None:
        """Close every client connection (as if the network or the server went away)."""
        with self._lock:
            clients = list(self._clients)
        for sock in clients:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            threading.Thread(target=self._serve, args=(sock,), name=f"rfc2217-{self.port}-client", daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._clients.add(sock)
        try:
            ser = serial.serial_for_url(self.serial_url, timeout=0.05, do_not_open=True)
            ser.dtr = False
            ser.rts = False
            ser.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            log.warning("rfc2217 server %s: cannot open %s: %s", self.url, self.serial_url, exc)
            self._forget(sock)
            return
        manager = serial.rfc2217.PortManager(ser, _SocketWriter(sock))
        done = threading.Event()
        pump = threading.Thread(target=self._port_to_socket, args=(ser, sock, manager, done), daemon=True)
        pump.start()
        try:
            while not done.is_set():
                try:
                    data = sock.recv(4096)
                except OSError:
                    break
                if not data:
                    break
                payload = b"".join(manager.filter(data))
                if payload:
                    ser.write(payload)
        except (serial.SerialException, OSError) as exc:
            log.info("rfc2217 server %s: port error: %s", self.url, exc)
        finally:
            done.set()
            pump.join(timeout=2)
            with contextlib.suppress(Exception):
                ser.close()
            self._forget(sock)

    def _port_to_socket(self, ser, sock: socket.socket, manager, done: threading.Event) -> None:
        try:
            while not done.is_set():
                data = ser.read(max(1, ser.in_waiting))
                if data:
                    sock.sendall(b"".join(manager.escape(data)))
        except (serial.SerialException, OSError) as exc:
            log.info("rfc2217 server %s: serial side ended: %s", self.url, exc)
        finally:
            done.set()
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _forget(self, sock: socket.socket) -> None:
        with self._lock:
            self._clients.discard(sock)
        sock.close()
