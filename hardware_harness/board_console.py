"""BoardConsole: the driver for one board's serial port (console + esptool-style reset).

Lifecycle: create -> open() -> use (expect, write_line, mark/slice, reset/hold/release, flash)
-> close(). One reader thread per board reads the port, timestamps every line into an in-memory
buffer (and an optional per-board log file) and runs the crash detector continuously, so a crash
fails the ongoing or next ``expect``/``check`` as it happens, not at teardown.
"""

from __future__ import annotations

import contextlib
import errno
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import serial

from . import flash as flash_tool
from .console import Alarm, Crash, CrashDetector, Line, LineSplitter
from .errors import BoardCrashed, BoardDisconnected, BoardTimeout, HarnessError, ResetNotSupported, StateError
from .protocols import ConsoleProtocol, ResetProtocol
from .resources import SerialPort

RESET_PULSE = 0.1  # esptool HardReset: EN low for 100 ms
READ_TIMEOUT = 0.05
CRASH_GRACE = 1.0  # s of silence after which an unfinished crash block is reported as it is
TAIL_LINES = 15
MAX_BUFFER = 32 * 1024 * 1024  # bytes of console lines kept in memory per board (the log file keeps all)
LINE_OVERHEAD = 200            # what one kept line costs besides its text (objects, timestamps)


@dataclass(frozen=True)
class ConsoleLine:
    """One timestamped console line of one board."""

    board: str
    index: int
    t: float  # time.time() when the line ended
    event: Line

    @property
    def text(self) -> str:
        return self.event.text

    @property
    def stamp(self) -> str:
        return time.strftime("%H:%M:%S", time.localtime(self.t)) + f".{int(self.t * 1000) % 1000:03d}"

    def format(self) -> str:
        return f"{self.stamp} {self.text}"


@dataclass(frozen=True)
class Note(Line):
    """A line the harness wrote into a board's console buffer (not something the board said)."""


@dataclass(frozen=True)
class Mark:
    """A position in a board's console buffer (see ``BoardConsole.mark``)."""

    board: str
    index: int
    t: float


@dataclass(frozen=True)
class ConsoleMatch:
    """The result of ``expect``: the matching line and the ``re.Match`` on its text."""

    line: ConsoleLine
    match: re.Match[str]

    def group(self, *args):
        return self.match.group(*args)


@dataclass(frozen=True)
class CrashRecord:
    board: str
    crash: Crash
    index: int  # console line index where the crash block starts
    t: float
    decoded: tuple[str, ...] = ()   # the backtrace as source locations (when the board has an ELF)


def _why_not_open(url: str, exc: BaseException) -> str:
    """pyserial's reason, with what it most likely means when that is not plain."""
    cause = str(exc)
    if "timeout while waiting for option" in cause:   # pyserial's RFC2217 negotiation at open
        return cause + (" (the RFC2217 server answered no option negotiation in time; console data queued "
                        "ahead of the answer, e.g. a board flooding its UART, delays it)")
    if url.startswith("rfc2217://") and (isinstance(exc, (BrokenPipeError, ConnectionResetError)) or any(
            s in cause for s in ("Broken pipe", "Connection reset", "does not seem to support RFC2217"))):
        return cause + (" (busy: the RFC2217 server closed the connection as it opened, as a server does "
                        "when another client has the port open: a rig monitor, idf.py monitor or another run)")
    if "exclusively lock" in cause or "Resource temporarily unavailable" in cause:
        return cause + " (busy: another program has the port open: a rig monitor, idf.py monitor or another run)"
    return cause


class BoardConsole(ConsoleProtocol, ResetProtocol):
    """Console and reset control of one board over any pyserial URL."""

    def __init__(
        self,
        name: str,
        url: str,
        baud: int = 115200,
        *,
        reset: str = "rts",
        log_path: str | Path | None = None,
        default_timeout: float = 10.0,
        crash_grace: float = CRASH_GRACE,
        max_buffer: int = MAX_BUFFER,
        decoder=None,
        power=None,
    ) -> None:
        self.name = name
        self.port = SerialPort(url, baud)
        self.reset_method = reset
        self.default_timeout = default_timeout
        self.crash_grace = crash_grace
        self._log_path = Path(log_path) if log_path else None
        self._log = None
        self._ser: serial.SerialBase | None = None
        self._cond = threading.Condition()
        self._ctl = threading.Lock()  # serialises DTR/RTS sequences
        self._lines: list[ConsoleLine] = []   # the kept lines: indices _base .. _base + len - 1
        self._base = 0
        self._kept = 0
        self.max_buffer = max_buffer
        self.dropped_lines = 0
        self.dropped_bytes = 0
        self.decoder = decoder   # a BacktraceDecoder (``decode.py``) or None
        self.power = power       # a switch with on/off/cycle (a labgrid place's power) or None: RTS/DTR
        self._cursor = 0
        self._crashes: list[CrashRecord] = []
        self._reported = 0
        self._alarms: list[Alarm] = []
        self._error: BaseException | None = None
        self._splitter = LineSplitter()
        self._detector = CrashDetector()
        self._crash_open_at: int | None = None
        self._listeners: list[Callable[[ConsoleLine], None]] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.held = False

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.port.url

    @property
    def is_open(self) -> bool:
        return self._ser is not None

    def open(self, *, expect_boot: bool = False) -> BoardConsole:
        """Open the port without glitching a reset (DTR/RTS deasserted before open)."""
        if self._ser is not None:
            raise StateError(f"board {self.name}: open() called but the port {self.url} is already open")
        if self.url.startswith("vboard://"):
            from . import virtual  # noqa: F401  (registers the vboard:// scheme)
        local = "://" not in self.url
        try:
            ser = serial.serial_for_url(self.url, baudrate=self.port.baud, timeout=READ_TIMEOUT, do_not_open=True,
                                        **({"exclusive": True} if local else {}))
            ser.dtr = False
            ser.rts = False
            ser.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise BoardDisconnected(self.name, self.url, _why_not_open(self.url, exc), opening=True) from exc
        if self._log_path and self._log is None:
            self._log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self._log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        with self._cond:
            self._error = None
            self._splitter = LineSplitter()
            if expect_boot:
                self._detector.expect_reset()
        self._ser = ser
        self._stop.clear()
        self._thread = threading.Thread(target=self._reader, args=(ser,), name=f"console-{self.name}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the reader and close the port (on Linux this may release a held reset)."""
        ser, self._ser = self._ser, None
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)   # it may still be logging a burst it took in
            self._thread = None
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> BoardConsole:
        return self if self.is_open else self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def disconnected(self) -> BaseException | None:
        """The error that ended the reader when the port went away, else None."""
        with self._cond:
            return self._error

    def reopen(self) -> BoardConsole:
        """Close and open the port again (after a disconnect); keeps the console buffer."""
        self.close()
        return self.open()

    def note(self, text: str) -> None:
        """Put a harness annotation (``--- text``) into the console buffer and log, e.g. a step marker.

        Notes never reach the crash detector, and ``expect`` skips them."""
        cl = None
        with self._cond:
            cl = self._append_locked(Note(text=f"--- {text}"), time.time())
            self._cond.notify_all()
        self._write_log(cl.format())

    def add_listener(self, fn: Callable[[ConsoleLine], None]) -> None:
        """Call ``fn(line)`` from the reader thread for every new line."""
        self._listeners.append(fn)

    # --- reader thread ------------------------------------------------------------------------

    def _reader(self, ser: serial.SerialBase) -> None:
        last_data = time.monotonic()
        while not self._stop.is_set():
            try:
                data = ser.read(max(1, ser.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                if self._stop.is_set():
                    return
                self._fail(exc)
                return
            now = time.monotonic()
            if data:
                last_data = now
                self._ingest(self._splitter.feed(data))
            elif self._detector.in_crash and now - last_data > self.crash_grace:
                self._ingest(self._splitter.flush(), flush_crash=True)

    def _fail(self, exc: BaseException) -> None:
        with self._cond:
            self._ingest_locked(self._splitter.flush())
            self._ingest_locked([], flush_crash=True)
            self._error = exc
            self._cond.notify_all()
        self._write_log(f"--- port disconnected: {exc}")

    def _ingest(self, lines: list[Line], flush_crash: bool = False) -> None:
        with self._cond:
            new = self._ingest_locked(lines, flush_crash)
            self._cond.notify_all()
        for cl in new:
            self._write_log(cl.format())
            for fn in list(self._listeners):
                with contextlib.suppress(Exception):
                    fn(cl)

    def _ingest_locked(self, lines: list[Line], flush_crash: bool = False) -> list[ConsoleLine]:
        new = []
        now = time.time()
        for ev in lines:
            cl = self._append_locked(ev, now)
            new.append(cl)
            new += self._classify(self._detector.feed(ev), cl.index, now)
            if self._detector.in_crash and self._crash_open_at is None:
                self._crash_open_at = cl.index
        if flush_crash:
            new += self._classify(self._detector.flush(), self._end, now)
        return new

    @property
    def _end(self) -> int:
        return self._base + len(self._lines)

    def _append_locked(self, event: Line, t: float) -> ConsoleLine:
        cl = ConsoleLine(self.name, self._end, t, event)
        self._lines.append(cl)
        self._kept += len(event.text) + LINE_OVERHEAD
        if self._kept > self.max_buffer:
            self._trim_locked()
        return cl

    def _trim_locked(self) -> None:
        """Forget the oldest lines down to 3/4 of ``max_buffer`` (the log file keeps them all)."""
        n, freed = 0, 0
        while n < len(self._lines) - 1 and self._kept - freed > self.max_buffer * 3 // 4:
            freed += len(self._lines[n].text) + LINE_OVERHEAD
            self.dropped_bytes += len(self._lines[n].text.encode("utf-8", "replace")) + 1
            n += 1
        del self._lines[:n]
        self._base += n
        self._kept -= freed
        self.dropped_lines += n

    def _classify(self, events, index: int, now: float) -> list[ConsoleLine]:
        """Record crashes and alarms; a decoded backtrace becomes note lines (returned, to be logged)."""
        notes = []
        for ev in events:
            if isinstance(ev, Crash):
                start = self._crash_open_at if self._crash_open_at is not None else index
                self._crash_open_at = None
                decoded = self._decode(ev)
                self._crashes.append(CrashRecord(self.name, ev, start, now, tuple(decoded)))
                self._write_log(f"--- crash detected: {ev.kind}: {ev.reason}")
                notes += [self._append_locked(Note(text=f"--- decoded {text}"), now) for text in decoded]
            elif isinstance(ev, Alarm):
                self._alarms.append(ev)
        return notes

    def _decode(self, crash: Crash) -> list[str]:
        if self.decoder is None or not crash.backtrace:
            return []
        try:
            return self.decoder.decode(crash.backtrace)
        except Exception as exc:  # noqa: BLE001 - a decoder problem must not lose the crash itself
            return [f"backtrace not decoded: {exc}"]

    def _write_log(self, text: str) -> None:
        if self._log is not None:
            with contextlib.suppress(ValueError):
                self._log.write(f"{text}\n")

    # --- console ----------------------------------------------------------------------------

    def expect(self, pattern: str | re.Pattern[str], timeout: float | None = None, *, since: Mark | None = None) -> ConsoleMatch:
        """Wait for a line matching ``pattern`` (searched per line) after the last match or ``since``.

        Raises ``BoardCrashed`` as soon as a crash is seen before a match, ``BoardDisconnected``
        when the port goes away, and ``BoardTimeout`` (naming the pattern and the last lines).
        """
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        timeout = self.default_timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._cond:
            self._require_open()
            pos = self._cursor if since is None else since.index
            while True:
                limit = self._end
                pos = max(pos, self._base)
                pending = self._crashes[self._reported :]
                if pending:
                    limit = min(limit, pending[0].index)
                if self._crash_open_at is not None:
                    limit = min(limit, self._crash_open_at)
                for i in range(pos, limit):
                    line = self._lines[i - self._base]
                    if isinstance(line.event, Note):
                        continue
                    m = rx.search(line.text)
                    if m:
                        self._cursor = i + 1
                        return ConsoleMatch(line, m)
                pos = max(pos, limit)
                self._raise_pending_locked()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if self._detector.in_crash:
                        self._ingest_locked([], flush_crash=True)
                        self._raise_pending_locked()
                    raise BoardTimeout(self.name, rx.pattern, timeout, [cl.text for cl in self._lines[-TAIL_LINES:]])
                self._cond.wait(min(remaining, 0.2))

    def finish_crash(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) until an open crash block has ended, then close it as it is.

        Call after the board's last bytes have had time to arrive (``Rig.drain``), so a crash whose
        text is still coming is reported whole rather than missed."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._detector.in_crash and self._error is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._ingest_locked([], flush_crash=True)
                    return
                self._cond.wait(min(remaining, 0.1))

    def check(self) -> None:
        """Raise the first crash not reported yet, or the disconnect error."""
        with self._cond:
            self._raise_pending_locked()

    def _raise_pending_locked(self) -> None:
        if self._reported < len(self._crashes):
            rec = self._crashes[self._reported]
            self._reported += 1
            self._cursor = max(self._cursor, rec.index)
            raise BoardCrashed(self.name, rec.crash, rec.decoded)
        if self._error is not None:
            raise BoardDisconnected(self.name, self.url, self._error)

    def _require_open(self) -> None:
        if self._ser is None and self._error is None:
            raise StateError(f"board {self.name}: the port {self.url} is not open; call open() first")

    def write_line(self, text: str) -> None:
        ser = self._port_or_raise()
        try:
            ser.write(text.encode("utf-8") + b"\n")
        except (serial.SerialException, OSError) as exc:
            raise BoardDisconnected(self.name, self.url, exc) from exc

    @property
    def crashes(self) -> list[CrashRecord]:
        with self._cond:
            return list(self._crashes)

    @property
    def alarms(self) -> list[Alarm]:
        with self._cond:
            return list(self._alarms)

    def acknowledge_crashes(self) -> list[CrashRecord]:
        """Mark every crash seen so far as reported (for scenarios that crash on purpose)."""
        with self._cond:
            new = self._crashes[self._reported :]
            self._reported = len(self._crashes)
            return new

    # --- marks and slices ----------------------------------------------------------------------

    def mark(self) -> Mark:
        """The current end of the buffer; ``slice(mark)`` later returns what came after it."""
        with self._cond:
            return Mark(self.name, self._end, time.time())

    def slice(self, since: Mark | None = None, until: Mark | None = None) -> list[ConsoleLine]:
        with self._cond:
            start = since.index if since else 0
            end = until.index if until else self._end
            lines = self._lines[max(0, start - self._base): max(0, end - self._base)]
            if start < self._base:   # say so rather than pretend the console was quiet
                gone = min(end, self._base) - start
                lines.insert(0, ConsoleLine(self.name, self._base - 1, lines[0].t if lines else time.time(), Note(
                    text=f"--- {gone} earlier lines dropped from memory (console buffer limit "
                         f"{self.max_buffer} bytes; the board's log file keeps them)")))
            return lines

    def text(self, since: Mark | None = None, until: Mark | None = None) -> str:
        """The console output between two marks, one timestamped line per line."""
        return "".join(cl.format() + "\n" for cl in self.slice(since, until))

    def tail(self, n: int = TAIL_LINES) -> list[str]:
        with self._cond:
            return [cl.text for cl in self._lines[-n:]]

    # --- reset control (esptool HardReset; RTS -> EN, DTR -> IO0) ------------------------------

    def reset(self, pulse: float = RESET_PULSE) -> None:
        """Pulse EN low (RTS asserted) for ``pulse`` seconds: the board reboots normally.
        With a power switch (labgrid), a power cycle instead."""
        if self.power is not None:
            with self._ctl:
                self._expect_reset()
                self.power.cycle()
                self.held = False
            return
        ser = self._reset_port()
        with self._ctl:
            self._expect_reset()
            self._set_lines(ser, dtr=False, rts=True)
            time.sleep(pulse)
            self._set_lines(ser, rts=False)
            self.held = False

    def hold(self) -> None:
        """Hold EN low (DTR off, RTS on) with the port kept open: the board is off until ``release``.
        With a power switch (labgrid), power off instead."""
        if self.power is not None:
            with self._ctl:
                self.power.off()
                self.held = True
            return
        ser = self._reset_port()
        with self._ctl:
            self._set_lines(ser, dtr=False, rts=True)
            self.held = True

    def release(self) -> None:
        """Let EN rise again: the board boots normally (IO0 high). With a power switch, power on."""
        if self.power is not None:
            with self._ctl:
                self._expect_reset()
                self.power.on()
                self.held = False
            return
        ser = self._reset_port()
        with self._ctl:
            self._expect_reset()
            self._set_lines(ser, dtr=False, rts=False)
            self.held = False

    def expect_reboot(self) -> None:
        """Announce a reboot the harness causes itself (e.g. a custom DTR/RTS sequence)."""
        self._expect_reset()

    @property
    def serial(self) -> serial.SerialBase:
        """The open pyserial object (for custom line sequences; call ``expect_reboot`` first)."""
        return self._port_or_raise()

    def _expect_reset(self) -> None:
        with self._cond:
            self._detector.expect_reset()

    def _reset_port(self) -> serial.SerialBase:
        if self.reset_method == "none":
            raise ResetNotSupported(f"board {self.name}: the rig says reset: none, so it cannot be reset or held")
        problem = self.port.modem_line_problem()
        if problem:
            raise ResetNotSupported(f"board {self.name}: cannot reset or hold: {problem}")
        return self._port_or_raise()

    def _set_lines(self, ser: serial.SerialBase, **lines: bool) -> None:
        try:
            for name, value in lines.items():
                setattr(ser, name, value)
        except (serial.SerialException, OSError) as exc:
            if getattr(exc, "errno", None) in (errno.ENOTTY, errno.EINVAL):
                raise ResetNotSupported(
                    f"board {self.name}: setting DTR/RTS is not supported by {self.url}: {exc}"
                ) from exc
            raise BoardDisconnected(self.name, self.url, exc) from exc

    def _port_or_raise(self) -> serial.SerialBase:
        with self._cond:
            if self._error is not None:
                raise BoardDisconnected(self.name, self.url, self._error)
        ser = self._ser
        if ser is None:
            raise StateError(f"board {self.name}: the port {self.url} is not open; call open() first")
        return ser

    # --- flashing -------------------------------------------------------------------------------

    def flash(self, image, address: int = 0x0, **kwargs) -> str:
        """Write firmware with esptool (a subprocess), releasing the port meanwhile; then reopen."""
        was_open = self.is_open
        if was_open:
            self.close()
        try:
            out = flash_tool.write_flash(self.url, image, address=address, **kwargs)
        except BaseException:
            if was_open:    # esptool's own problem is the one to tell, not a port it left busy
                with contextlib.suppress(HarnessError):
                    self.open(expect_boot=True)
            raise
        if was_open:
            self.open(expect_boot=True)
        return out
