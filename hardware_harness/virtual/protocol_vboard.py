"""pyserial URL handler for ``vboard://<name>``: an in-process virtual board behind a SerialBase.

pyserial imports this module when ``kube32.harness.virtual`` is in
``serial.protocol_handler_packages`` (done by importing ``kube32.harness.virtual``), so
``serial.serial_for_url("vboard://node-a")`` returns this ``Serial``. DTR/RTS changes go straight
to the board's reset circuit; reads block on the board's UART buffer.
"""

from __future__ import annotations

import urllib.parse

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from . import registry


class Serial(SerialBase):
    """A pyserial port whose other end is a ``VirtualBoard``."""

    _board = None

    def open(self) -> None:
        if self._port is None:
            raise SerialException("Port must be configured before it can be used.")
        if self.is_open:
            raise SerialException("Port is already open.")
        name = self.from_url(self.portstr)
        board = registry.get(name)
        if board is None:
            raise SerialException(
                f"could not open port {self.portstr}: no virtual board named {name!r} "
                f"(registered: {', '.join(registry.names()) or 'none'})"
            )
        try:
            board.attach(self)
        except OSError as exc:
            raise SerialException(exc.errno, f"could not open port {self.portstr}: {exc}") from exc
        self._board = board
        self.is_open = True
        self._reconfigure_port()
        if not self._dsrdtr:
            self._update_dtr_state()
        if not self._rtscts:
            self._update_rts_state()

    @staticmethod
    def from_url(url: str) -> str:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "vboard" or not parts.netloc:
            raise SerialException(f"expected a URL of the form vboard://<board name>, got {url!r}")
        return parts.netloc

    def close(self) -> None:
        if self._board is not None:
            self._board.detach(self)
        self._board = None
        self.is_open = False

    def _reconfigure_port(self, *args, **kwargs) -> None:
        """Baud rate, framing: a virtual UART accepts anything."""

    def _live(self):
        if not self.is_open or self._board is None:
            raise PortNotOpenError()
        return self._board

    @property
    def in_waiting(self) -> int:
        try:
            return self._live().in_waiting
        except OSError as exc:
            raise SerialException(exc.errno, str(exc)) from exc

    def read(self, size: int = 1) -> bytes:
        try:
            return self._live().read(size, self._timeout)
        except OSError as exc:
            raise SerialException(
                exc.errno, f"device reports readiness to read but returned no data (device disconnected?): {exc}"
            ) from exc

    def write(self, data) -> int:
        data = bytes(data)
        try:
            self._live().receive(data)
        except OSError as exc:
            raise SerialException(exc.errno, f"write failed: {exc}") from exc
        return len(data)

    def reset_input_buffer(self) -> None:
        self._live().clear_tx()

    def reset_output_buffer(self) -> None:
        self._live()

    def _update_dtr_state(self) -> None:
        self._live().set_lines(dtr=self._dtr_state)

    def _update_rts_state(self) -> None:
        self._live().set_lines(rts=self._rts_state)

    def _update_break_state(self) -> None:
        self._live()

    @property
    def cts(self) -> bool:
        self._live()
        return False

    @property
    def dsr(self) -> bool:
        self._live()
        return False

    @property
    def ri(self) -> bool:
        self._live()
        return False

    @property
    def cd(self) -> bool:
        self._live()
        return False
