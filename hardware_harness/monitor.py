"""Consoles shown the way ``idf.py monitor`` shows them: colour by log level, ``--print_filter``,
control characters escaped, and a bounded queue between the boards and a slow terminal.

``PrintFilter`` follows idf.py monitor's ``--print_filter`` ("tag:level ..."): levels N E W I D V
(``*`` = V), a tag without a level means V, ``*`` is every other tag, no filter prints everything;
lines that are not ESP-IDF log lines print unless the filter only names tags (``*:N`` or no ``*``).
"""

from __future__ import annotations

import contextlib
import queue
import re
import threading
from dataclasses import dataclass
from typing import TextIO

from .console import Garbage, LogLine

LEVELS = {"N": 0, "E": 1, "W": 2, "I": 3, "D": 4, "V": 5, "*": 5, "": 5}
# ESP-IDF's own log colours (components/log: LOG_COLOR_E/W/I)
COLOURS = {"E": "\033[0;31m", "W": "\033[0;33m", "I": "\033[0;32m"}
RESET = "\033[0m"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
QUEUE_LINES = 10_000   # lines waiting for the terminal; beyond that they are dropped and counted


class FilterError(ValueError):
    """A ``--print-filter`` item idf.py monitor would not accept either."""


class PrintFilter:
    """idf.py monitor's ``--print_filter``: which log lines to show."""

    def __init__(self, spec: str = "") -> None:
        self.spec = spec
        self.rules: dict[str, int] = {}
        items = spec.split()
        if not items:
            self.rules["*"] = LEVELS["V"]
        for item in items:
            tag, sep, level = item.partition(":")
            if not tag:
                raise FilterError(f"no tag in print filter item {item!r} (expected tag:level, e.g. wifi:W)")
            if ":" in level:
                raise FilterError(f"too many ':' in print filter item {item!r} (expected tag:level)")
            if level.upper() not in LEVELS:
                raise FilterError(f"unknown level {level!r} in print filter item {item!r} (use N, E, W, I, D, V or *)")
            self.rules[tag] = LEVELS[level.upper()] if sep else LEVELS["V"]

    def shows(self, event) -> bool:
        default = self.rules.get("*", LEVELS["N"])
        if isinstance(event, LogLine):
            return self.rules.get(event.tag, default) >= LEVELS[event.level]
        return default > LEVELS["N"]


def escape(text: str) -> str:
    """Control characters (NUL, ESC, BEL ...) as ``\\xNN``, so a board cannot drive the terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def render(event, *, colour: bool) -> str:
    """One console line for a terminal: escaped, coloured by ESP-IDF level when ``colour``."""
    if isinstance(event, Garbage):
        text = escape(event.raw.decode("utf-8", "backslashreplace"))
    else:
        text = escape(event.text)
    if colour and isinstance(event, LogLine) and event.level in COLOURS:
        return f"{COLOURS[event.level]}{text}{RESET}"
    return text


@dataclass
class Dropped:
    lines: int = 0
    bytes: int = 0


class Printer:
    """Prints console lines from any number of reader threads through one bounded queue.

    A board that says more than the terminal can show never blocks its reader or grows memory:
    lines beyond ``limit`` waiting lines are dropped, and the printer says so honestly
    (``--- node-a: 123456 bytes dropped (812 lines): the terminal could not keep up``)."""

    def __init__(self, out: TextIO, *, width: int = 0, colour: bool = False,
                 print_filter: PrintFilter | None = None, limit: int = QUEUE_LINES) -> None:
        self.out = out
        self.width = width
        self.colour = colour
        self.filter = print_filter or PrintFilter()
        self._queue: queue.Queue = queue.Queue(maxsize=limit)
        self._dropped: dict[str, Dropped] = {}
        self._lock = threading.Lock()
        self.printed_bytes: dict[str, int] = {}
        self._thread = threading.Thread(target=self._run, name="monitor-printer", daemon=True)
        self._stop = object()
        self._thread.start()

    def __call__(self, line) -> None:
        """A listener for ``BoardConsole.add_listener``: never blocks."""
        if not self.filter.shows(line.event) and not line.text.startswith("--- "):
            return
        try:
            self._queue.put_nowait(line)
        except queue.Full:
            with self._lock:
                d = self._dropped.setdefault(line.board, Dropped())
                d.lines += 1
                d.bytes += len(line.text.encode("utf-8", "replace")) + 1

    def say(self, board: str, text: str) -> None:
        """A line of the monitor's own (``--- ...``) among the board's, in order with them."""
        with contextlib.suppress(queue.Full):
            self._queue.put_nowait((board, text))

    def dropped(self) -> dict[str, Dropped]:
        with self._lock:
            return {k: Dropped(v.lines, v.bytes) for k, v in self._dropped.items()}

    def _take_dropped(self) -> dict[str, Dropped]:
        with self._lock:
            out, self._dropped = self._dropped, {}
        return out

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            for board, d in self._take_dropped().items():
                self._write(board, f"--- {d.bytes} bytes dropped ({d.lines} lines): the terminal could not "
                                   "keep up with the console")
            if item is self._stop:
                return
            if isinstance(item, tuple):
                self._write(*item)
                continue
            self.printed_bytes[item.board] = self.printed_bytes.get(item.board, 0) + len(
                item.text.encode("utf-8", "replace")) + 1
            self._write(item.board, f"{item.stamp} {render(item.event, colour=self.colour)}")

    def _write(self, board: str, text: str) -> None:
        with contextlib.suppress(ValueError, OSError):
            self.out.write(f"[{board:<{self.width}}] {text}\n")
            self.out.flush()

    def close(self, timeout: float = 10.0) -> None:
        """Print what is queued (and the last drop note), then stop."""
        self._queue.put(self._stop)
        self._thread.join(timeout)



# -- keys, as idf.py monitor takes them ------------------------------------------------------------
MENU_KEY = "\x14"      # Ctrl+T: the next key is a command
QUIT_KEY = "\x1d"      # Ctrl+]: quit


class KeyCommands:
    """What a key press asks for: ``Ctrl+T`` then ``R`` resets every board, ``Ctrl+T`` then a board's
    number (``1``-``9``, as the banner lists them) resets that board, ``Ctrl+T`` then ``H`` shows the
    keys, ``Ctrl+]`` quits. ``feed`` returns ``("reset", boards)``, ``("help", [])``, ``("quit", [])``,
    ``("unknown", [key])`` or None (nothing yet)."""

    def __init__(self, boards: list[str]) -> None:
        self.boards = list(boards)
        self._menu = False

    def feed(self, key: str) -> tuple[str, list[str]] | None:
        if not self._menu:
            if key == QUIT_KEY:
                return "quit", []
            self._menu = key == MENU_KEY
            return None
        self._menu = False
        if key.lower() == "r":
            return "reset", list(self.boards)
        if key.isdigit() and 1 <= int(key) <= min(9, len(self.boards)):
            return "reset", [self.boards[int(key) - 1]]
        if key.lower() == "h" or key == "\x08":
            return "help", []
        return "unknown", [key]


def banner(rig_file: str, boards: list[tuple[str, str, str]], keys: bool) -> list[str]:
    """What the monitor says first, before any board does: the rig, its boards, the keys."""
    width = max((len(name) for name, _, _ in boards), default=0)
    lines = [f"--- kube32 rig monitor on {rig_file}: {len(boards)} board(s) ---"]
    lines += [f"---   {i} {name:<{width}}  {role:<13} {url}" for i, (name, role, url) in enumerate(boards, 1)]
    lines.append(help_line(keys))
    return lines


def help_line(keys: bool) -> str:
    if not keys:
        return "--- Quit: Ctrl+C ---"
    return "--- Quit: Ctrl+] or Ctrl+C | Reset a board: Ctrl+T then its number | Reset all: Ctrl+T then R ---"
