"""ESP-IDF console parsing: bytes in, frozen events out. Pure: no serial, no threads, no clocks.

Rules for this file (h11 style):

1. It never does I/O. The caller owns the port and feeds bytes with ``LineSplitter.feed`` and
   lines with ``CrashDetector.feed``; both return lists of events.
2. It never raises on input. Random bytes, partial lines and invalid UTF-8 come out as
   ``Garbage`` records, never as exceptions.
3. Everything that recognises console text is a table at the top of the file
   (``RESET_REASONS``, ``CRASH_HEADERS``, ``BLOCK_END``), so a new crash kind is one row.

Theory of operation: ``LineSplitter`` turns a byte stream into one event per line (``LogLine``,
``ResetBanner``, ``Text`` or ``Garbage``). ``CrashDetector`` watches those line events and emits
``Crash`` when a crash text block is complete (header through ``Rebooting...``), ``Alarm`` for
non-fatal alarms (task watchdog without ``Aborting.``), and treats a ROM banner that nobody asked for
(``expect_reset()`` was not called) as an ``unexpected_reboot`` crash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "RESET_REASONS",
    "CRASH_HEADERS",
    "Event",
    "Line",
    "LogLine",
    "ResetBanner",
    "Text",
    "Garbage",
    "Crash",
    "Alarm",
    "LineSplitter",
    "CrashDetector",
    "parse_line",
    "strip_ansi",
]

# ESP32 RESET_REASON (components/esp_rom/esp32/include/esp32/rom/rtc.h).
RESET_REASONS: dict[int, str] = {
    0x1: "POWERON_RESET",
    0x3: "SW_RESET",
    0x4: "OWDT_RESET",
    0x5: "DEEPSLEEP_RESET",
    0x6: "SDIO_RESET",
    0x7: "TG0WDT_SYS_RESET",
    0x8: "TG1WDT_SYS_RESET",
    0x9: "RTCWDT_SYS_RESET",
    0xA: "INTRUSION_RESET",
    0xB: "TGWDT_CPU_RESET",
    0xC: "SW_CPU_RESET",
    0xD: "RTCWDT_CPU_RESET",
    0xE: "EXT_CPU_RESET",
    0xF: "RTCWDT_BROWN_OUT_RESET",
    0x10: "RTCWDT_RTC_RESET",
}

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LOG = re.compile(r"^([EWIDV]) (?:\(([0-9:. -]+)\) )?([^\s:][^:]*?): ?(.*)$")
_BANNER = re.compile(r"rst:0x([0-9a-fA-F]+) \(([^)]*)\),boot:0x([0-9a-fA-F]+) \((.*)\)\s*$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
MAX_LINE = 4096  # bytes: a longer run without a newline is cut into a line of its own


# --- events -------------------------------------------------------------------------------
# Frozen dataclasses; don't subclass them outside this file.


@dataclass(frozen=True)
class Event:
    """Base class of everything this module emits."""


@dataclass(frozen=True)
class Line(Event):
    """One console line. ``text`` has colour codes and ``\\r`` removed."""

    text: str


@dataclass(frozen=True)
class LogLine(Line):
    """An ESP-IDF log line: ``[colour]L (timestamp) tag: message``."""

    level: str = "I"
    timestamp: str | None = None  # "1234", "12:34:56.789", "24-01-02 12:34:56.789" or None
    tag: str = ""
    message: str = ""

    @property
    def ms(self) -> int | None:
        """Milliseconds since boot when the timestamp has that form, else None."""
        if self.timestamp is not None and self.timestamp.isdigit():
            return int(self.timestamp)
        return None


@dataclass(frozen=True)
class ResetBanner(Line):
    """The ROM bootloader line ``rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)``."""

    reset_code: int = 0
    reset_reason: str = ""
    boot_code: int = 0
    boot_mode: str = ""

    @property
    def download_mode(self) -> bool:
        return self.boot_mode.startswith("DOWNLOAD_BOOT")


@dataclass(frozen=True)
class Text(Line):
    """Any other decodable line."""


@dataclass(frozen=True)
class Garbage(Line):
    """A line that is not text: invalid UTF-8 or control characters. ``raw`` keeps the bytes."""

    raw: bytes = b""
    reason: str = ""


@dataclass(frozen=True)
class Crash(Event):
    """A fatal event with its whole text block.

    ``kind`` is one of the ``CRASH_HEADERS`` kinds, ``task_wdt`` or ``unexpected_reboot``;
    ``reason`` is the short cause (``LoadProhibited``, ``abort() was called at PC 0x... on core 0``).
    """

    kind: str
    reason: str
    text: str
    backtrace: str | None = None
    elf_sha256: str | None = None
    lines: tuple[str, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class Alarm(Event):
    """A non-fatal alarm worth reporting (task watchdog that did not abort)."""

    kind: str
    text: str


# --- line splitting -------------------------------------------------------------------------


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def parse_line(raw: bytes) -> Line:
    """Classify one line (without its ``\\n``). Never raises."""
    raw = raw.rstrip(b"\r").replace(b"\r", b"")
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Garbage(text=strip_ansi(raw.decode("utf-8", "replace")), raw=raw, reason=f"invalid UTF-8: {exc.reason}")
    text = strip_ansi(decoded)
    if _CONTROL.search(text):
        return Garbage(text=_CONTROL.sub("\ufffd", text), raw=raw, reason="control characters")
    m = _BANNER.search(text)
    if m:
        return ResetBanner(
            text=text,
            reset_code=int(m.group(1), 16),
            reset_reason=m.group(2),
            boot_code=int(m.group(3), 16),
            boot_mode=m.group(4),
        )
    m = _LOG.match(text)
    if m:
        return LogLine(text=text, level=m.group(1), timestamp=m.group(2), tag=m.group(3), message=m.group(4))
    return Text(text=text)


class LineSplitter:
    """Sans-I/O line splitter: ``feed(bytes) -> [Line, ...]``; keeps partial lines until ``\\n``."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._max = max_line

    def feed(self, data: bytes) -> list[Line]:
        self._buf += data
        out: list[Line] = []
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                if len(self._buf) >= self._max:
                    out.append(parse_line(bytes(self._buf[: self._max])))
                    del self._buf[: self._max]
                    continue
                return out
            out.append(parse_line(bytes(self._buf[:nl])))
            del self._buf[: nl + 1]

    @property
    def pending(self) -> bytes:
        """Bytes of the current, unterminated line."""
        return bytes(self._buf)

    def flush(self) -> list[Line]:
        """Return the unterminated tail as a line (end of stream)."""
        if not self._buf:
            return []
        line = parse_line(bytes(self._buf))
        self._buf.clear()
        return [line]


# --- crash classification -------------------------------------------------------------------

# (kind, regex searched in a line, group giving the reason or None for the whole match)
CRASH_HEADERS: tuple[tuple[str, re.Pattern[str], int | None], ...] = (
    ("panic", re.compile(r"Guru Meditation Error: Core\s+\d+ panic'ed \(([^)]+)\)"), 1),
    ("abort", re.compile(r"abort\(\) was called at PC 0x[0-9a-fA-F]+ on core \d+"), None),
    ("assert", re.compile(r"assert failed: .*"), None),
    ("esp_error_check", re.compile(r"ESP_ERROR_CHECK failed: .*"), None),
    ("stack_canary", re.compile(r"Stack canary watchpoint triggered \(([^)]*)\)"), None),
    ("corrupt_heap", re.compile(r"CORRUPT HEAP: .*"), None),
    ("brownout", re.compile(r"Brownout detector was triggered"), None),
    ("core_dump", re.compile(r"=+ CORE DUMP START =+"), None),
)
_TASK_WDT = re.compile(r"task_wdt: Task watchdog got triggered")
_ABORTING = re.compile(r"\bAborting\.\s*$")
_BACKTRACE = re.compile(r"^Backtrace:\s*(.*)$")
_ELF = re.compile(r"ELF file SHA256:\s*([0-9a-fA-F]*)")
# A block ends with (and includes) one of these lines ...
BLOCK_END = re.compile(r"^(Rebooting\.\.\.|Rebooting in \d+ seconds\.\.\.|CPU halted\.|.*Abort panic handling\. Rebooting)")
# ... or just before a ROM boot header.
_ROM_START = re.compile(r"^ets [A-Z][a-z]{2} [ \d]\d \d{4}")
MAX_BLOCK_LINES = 400
_WDT_WINDOW = 30  # lines after a task-watchdog report in which "Aborting." makes it fatal


class CrashDetector:
    """Sans-I/O crash classifier: ``feed(Line) -> [Crash | Alarm, ...]``.

    Call ``expect_reset()`` before asking the board to reset so its banner is not an unexpected
    reboot; call ``flush()`` when the stream has gone quiet to close a block that never ended.
    """

    def __init__(self) -> None:
        self._block: list[str] | None = None
        self._kind = ""
        self._reason = ""
        self._wdt: list[str] | None = None
        self._expected_resets = 0
        self._crash_reboot_pending = False

    @property
    def in_crash(self) -> bool:
        """True while a crash block is open (its end has not been seen yet)."""
        return self._block is not None

    def expect_reset(self) -> None:
        """The next ROM banner was asked for (reset pulse, release, power-up)."""
        self._expected_resets += 1

    def feed(self, line: Line) -> list[Event]:
        out: list[Event] = []
        text = line.text
        is_banner = isinstance(line, ResetBanner)
        if self._block is not None:
            if is_banner or _ROM_START.match(text):
                out.append(self._close())
                self._crash_reboot_pending = True
            else:
                self._block.append(text)
                if BLOCK_END.match(text) or len(self._block) >= MAX_BLOCK_LINES:
                    out.append(self._close())
                    self._crash_reboot_pending = True
                return out
        if is_banner:
            self._wdt = None
            if self._crash_reboot_pending:
                self._crash_reboot_pending = False
            elif self._expected_resets > 0:
                self._expected_resets -= 1
            else:
                out.append(
                    Crash(
                        kind="unexpected_reboot",
                        reason=f"rst:0x{line.reset_code:x} ({line.reset_reason})",
                        text=text,
                        lines=(text,),
                    )
                )
            return out
        if isinstance(line, Garbage):
            return out
        for kind, pattern, group in CRASH_HEADERS:
            m = pattern.search(text)
            if m:
                self._open(kind, m.group(group) if group else m.group(0), prefix=[], first=text)
                return out
        if _TASK_WDT.search(text):
            self._wdt = [text]
            out.append(Alarm(kind="task_wdt", text=text))
            return out
        if self._wdt is not None:
            self._wdt.append(text)
            if _ABORTING.search(text):
                prefix, self._wdt = self._wdt[:-1], None
                self._open("task_wdt", "Task watchdog got triggered", prefix=prefix, first=text)
            elif len(self._wdt) > _WDT_WINDOW:
                self._wdt = None
        return out

    def flush(self) -> list[Event]:
        """Close an open block (the board went quiet or the stream ended)."""
        if self._block is None:
            return []
        crash = self._close()
        self._crash_reboot_pending = True
        return [crash]

    def _open(self, kind: str, reason: str, prefix: list[str], first: str) -> None:
        self._block = [*prefix, first]
        self._kind = kind
        self._reason = reason

    def _close(self) -> Crash:
        lines = tuple(self._block or ())
        self._block = None
        backtrace = None
        elf = None
        for text in lines:
            m = _BACKTRACE.match(text)
            if m and backtrace is None:
                backtrace = text
            m = _ELF.search(text)
            if m:
                elf = m.group(1) or None
        return Crash(
            kind=self._kind,
            reason=self._reason,
            text="\n".join(lines),
            backtrace=backtrace,
            elf_sha256=elf,
            lines=lines,
        )
