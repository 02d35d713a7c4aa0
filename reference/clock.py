"""The one clock every controller and timestamp reads.

``RealClock`` is wall time. ``ManualClock`` moves only when told to: the LoopRunner registers as a
listener and runs every controller tick that falls inside an advance, in time order.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    manual: bool

    def now(self) -> float: ...


class RealClock:
    manual = False

    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that stands still until ``advance``/``set`` moves it.

    ``stepper`` (set by the LoopRunner) is called with the target time and must move the clock
    there itself, tick by tick, through ``_jump``.
    """

    manual = True

    def __init__(self, start: float | None = None) -> None:
        self._now = float(start if start is not None else round(time.time()))
        self._lock = threading.RLock()
        self.stepper: Callable[[float], None] | None = None
        self.persist: Callable[[float], None] | None = None    # remembers the time across restarts

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("a manual clock only moves forward")
        return self.set(self._now + seconds)

    def set(self, t: float) -> float:
        with self._lock:
            if not math.isfinite(t) or t < self._now:
                raise ValueError("a manual clock only moves forward, to a finite time")
            if self.stepper is not None:
                self.stepper(t)
            self._jump(t)
            if self.persist is not None:
                self.persist(self._now)
            return self._now

    def _jump(self, t: float) -> None:
        self._now = max(self._now, t)
