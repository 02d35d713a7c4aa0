"""LoopRunner: calls each controller at its interval on the control plane's clock.

Real clock: one thread sleeps until the next due tick. Manual clock: nothing runs until the clock
is advanced; then every tick due in the interval runs in time order, with the clock set to the
tick's time, so a 330 s jump is deterministic and lands every intermediate check.

Deadline-driven jumps: a controller may say, with ``idle_until(now)``, until when its passes can
change nothing as long as the store does not change. During a manual-clock jump a tick is then
skipped when the store's version is what it was after that controller's previous pass and the tick
comes before that time; the tick grid is unchanged, so every pass that runs runs at the same time
as tick by tick, and the outcome is the same (``tests/conformance`` runs the suite both ways).
``jumps="tick"`` (``Config.clock_jumps``, env ``KUBE32_CLOCK_JUMPS``) runs every tick.
"""

from __future__ import annotations

import heapq
import logging
import threading
from typing import Protocol

log = logging.getLogger(__name__)


class Controller(Protocol):
    NAME: str

    def interval(self) -> float: ...

    def reconcile(self, now: float) -> None: ...

    # optional: LOCKS_ITSELF = True -- the controller takes the store lock in smaller steps itself
    # optional: idle_until(now) -> float -- with the store unchanged, no pass before then changes anything
    # optional: READS = (resource keys) -- "the store unchanged" then means these resources only


def isolated(cp, component: str, obj: dict, fn, *args) -> object:
    """Run one object's share of a pass. A failure stays that object's: a log line and a Warning
    event on it, and the pass goes on with the others (the next pass retries). Returns what
    ``fn`` returned, or None when it failed."""
    try:
        return fn(*args)
    except Exception as exc:
        meta = obj.get("metadata") or {}
        log.exception("%s: %s %s/%s failed", component, obj.get("kind"), meta.get("namespace", ""), meta.get("name"))
        cp.loops.errors.append(f"{component}: {obj.get('kind')} {meta.get('name')}: {exc!r}")
        del cp.loops.errors[:-100]
        try:
            cp.events.record(obj, "Warning", "ReconcileError",
                             f"{component} skipped this object: {type(exc).__name__}: {str(exc)[:200]}", component)
        except Exception:             # the event is best effort; the log line above is the record
            log.exception("%s: could not record the Warning event", component)
        return None


class LoopRunner:
    def __init__(self, clock, lock: threading.RLock, version=None, jumps: str = "deadline") -> None:
        self.clock = clock
        self.lock = lock                 # the store lock: a tick never interleaves with a request
        self.version = version           # (resource keys or None) -> a version of those (None: never skip)
        self.jumps = jumps
        self._after: dict[int, tuple] = {}   # controller index -> (version, idle until, resources read)
        self.skipped = 0
        self.controllers: list[Controller] = []
        self._queue: list[tuple[float, int, Controller]] = []
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    def register(self, controller: Controller) -> None:
        self.controllers.append(controller)

    def start(self) -> None:
        """Schedule the first tick of every controller one interval from now."""
        now = self.clock.now()
        self._queue = []
        for i, c in enumerate(self.controllers):
            heapq.heappush(self._queue, (now + c.interval(), i, c))
        if self.clock.manual:
            self.clock.stepper = self.run_until
        else:
            self._thread = threading.Thread(target=self._run_real, name="kube32-loops", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.clock.manual:
            self.clock.stepper = None

    def _tick(self, controller: Controller, at: float) -> None:
        try:
            if getattr(controller, "LOCKS_ITSELF", False):
                controller.reconcile(at)
            else:
                with self.lock:
                    controller.reconcile(at)
        except Exception as exc:  # a broken pass must not stop the loops; the next pass retries
            log.exception("controller %s failed", controller.NAME)
            self.errors.append(f"{controller.NAME}: {exc!r}")

    def run_until(self, target: float) -> None:
        """Manual clock: run every tick due at or before ``target`` (but those that can change
        nothing, see the module doc), moving the clock tick by tick."""
        while self._queue and self._queue[0][0] <= target + 1e-9:
            at, i, c = heapq.heappop(self._queue)
            if not self._idle(i, at):
                self.clock._jump(at)
                self._tick(c, at)
                self._remember(i, c, at)
            heapq.heappush(self._queue, (at + c.interval(), i, c))

    def _idle(self, i: int, at: float) -> bool:
        after = self._after.get(i)
        if after is None or self.jumps == "tick":
            return False
        with self.lock:
            if self.version(after[2]) != after[0] or at >= after[1]:
                return False
        self.skipped += 1
        return True

    def _remember(self, i: int, c: Controller, at: float) -> None:
        idle_until = getattr(c, "idle_until", None)
        if idle_until is None or self.version is None:
            return
        with self.lock:
            try:
                until = idle_until(at)
            except Exception:   # a broken estimate must not stop the loops: tick every time
                log.exception("controller %s: idle_until failed", c.NAME)
                self._after.pop(i, None)
                return
            reads = getattr(c, "READS", None)
            self._after[i] = (self.version(reads), until, reads)

    def _run_real(self) -> None:
        while not self._stop.is_set():
            if not self._queue:
                self._stop.wait(0.5)
                continue
            at, i, c = self._queue[0]
            delay = at - self.clock.now()
            if delay > 0:
                self._stop.wait(min(delay, 0.5))
                continue
            heapq.heappop(self._queue)
            self._tick(c, self.clock.now())
            heapq.heappush(self._queue, (max(at + c.interval(), self.clock.now()), i, c))
