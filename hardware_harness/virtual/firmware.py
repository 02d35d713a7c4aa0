"""Firmware plug-in interface for virtual boards, plus the trivial firmwares.

A firmware is an object whose ``run(io)`` is called in the board's CPU thread after the ROM banner.
It talks to the world only through ``BoardIO``; every ``io`` call raises ``Halted`` once the board
has been reset, held or crashed, so firmware code needs no shutdown logic besides ``finally``.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

from .texts import NL, app_start, log_line


class Cpu(Protocol):
    """The side of a board a firmware run reaches through ``BoardIO`` (``VirtualBoard`` provides it).

    Firmware never needs the board class itself; the methods ending in ``_locked`` are called
    with ``_cond`` held."""

    name: str
    colour: bool
    _cond: threading.Condition

    def _alive(self, gen: int) -> bool: ...
    def _emit_locked(self, text: str) -> None: ...
    def _take_input(self) -> list[str]: ...
    def uptime_ms(self) -> int: ...
    def panic(self, reason: str = ...) -> None: ...


class Halted(Exception):
    """The board was reset, held in reset or crashed: this firmware run is over."""


class BoardIO:
    """What a firmware run may do: print, log, sleep, read console input. Bound to one boot."""

    def __init__(self, board: Cpu, generation: int) -> None:
        self._board = board
        self._gen = generation

    @property
    def board_name(self) -> str:
        return self._board.name

    def alive(self) -> bool:
        return self._board._alive(self._gen)

    def _check(self) -> None:
        if not self._board._alive(self._gen):
            raise Halted()

    def ms(self) -> int:
        return self._board.uptime_ms()

    def app_start(self) -> None:
        """The ESP-IDF app start lines (``main_task: Calling app_main()``)."""
        with self._board._cond:
            self._check()
            self._board._emit_locked(app_start(self._board.colour))

    def print(self, text: str) -> None:
        with self._board._cond:
            self._check()
            self._board._emit_locked(text + NL)

    def log(self, level: str, tag: str, message: str) -> None:
        with self._board._cond:
            self._check()
            self._board._emit_locked(log_line(level, self.ms(), tag, message, self._board.colour))

    def sleep(self, seconds: float) -> None:
        """Sleep, waking early (with ``Halted``) when the board is reset."""
        deadline = time.monotonic() + seconds
        with self._board._cond:
            while True:
                self._check()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._board._cond.wait(remaining)

    def take_input(self) -> list[str]:
        with self._board._cond:
            self._check()
            return self._board._take_input()

    def panic(self, reason: str = "LoadProhibited") -> None:
        self._board.panic(reason)
        raise Halted()


class Firmware:
    """Base firmware: app_main loop calling ``tick`` and ``on_line``; override what you need."""

    tick_interval = 0.05

    def setup(self, io: BoardIO) -> None:
        """Runs once after boot."""

    def tick(self, io: BoardIO) -> None:
        """Runs every ``tick_interval`` seconds."""

    def teardown(self) -> None:
        """Runs when the run ends (reset, hold, crash, shutdown). Must not use ``io``."""

    def on_line(self, io: BoardIO, line: str) -> None:
        """A console line typed by the host. Default: ``ping`` answers ``pong``."""
        if line.strip() == "ping":
            io.print("pong")

    def run(self, io: BoardIO) -> None:
        io.app_start()
        try:
            self.setup(io)
            while True:
                for line in io.take_input():
                    self.on_line(io, line)
                self.tick(io)
                io.sleep(self.tick_interval)
        finally:
            self.teardown()


class IdleFirmware(Firmware):
    """Boots, says so, and answers ``ping``."""

    def setup(self, io: BoardIO) -> None:
        io.log("I", "app", "idle firmware running")


class NeverBoots(Firmware):
    """Gets stuck before app_main finishes: prints a partial boot log, then nothing."""

    def run(self, io: BoardIO) -> None:
        io.log("W", "spi_flash", "Detected size(4096k) larger than the size in the binary image header(2048k)")
        while True:
            io.sleep(1.0)
