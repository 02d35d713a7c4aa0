"""Timing verdicts: judging a deadline within the bounds the document gives, on any clock phase.

The document gives every timed action a moment T (timeAdded + tolerationSeconds, renewTime +
leaseDurationSeconds, ...) and a check interval I: the action must not happen before T and must
have happened by T + I. A scenario states the two sides with two kinds of moment:

- ``before`` T: time stands just short of T. Observations count only when their answer arrived
  before T (on a real clock the runner stops looking in time); none arrived in time -> the runner
  was too late to judge (an ERROR, not a failure).
- ``by`` T + I: the action must be visible. On a real clock an observation counts against the
  target only when it was sent after T + I plus the latency allowance the runner measured
  (request round trips, how late its own timers fired).

Nothing here assumes when a target's checks fall (its clock phase): timestamps with whole seconds
(timeAdded) are taken as written. Each judgement is recorded (``Verdicts.records``) for the reports
in the shape docs/REPORTS.md describes.
"""

from __future__ import annotations

import dataclasses
import time

from kube32.conformance.errors import HarnessError

# How far short of T a "before" moment stands on a manual clock (no latency to cover); on a real
# clock the measured latency decides, within these bounds.
MANUAL_MARGIN = 0.001
REAL_MARGIN_MIN = 0.05
ALLOWANCE_FLOOR = 0.1      # real clock: scheduling slack no round trip shows (threads, GIL, timers)


class RunnerTooLate(HarnessError):
    """The runner could not observe the target inside the window it had to judge."""


@dataclasses.dataclass
class Window:
    """The moment a time step moved the scenario to, and what the document allows there."""

    kind: str              # "before" | "by"
    deadline: float        # T: the document's moment (target clock, epoch seconds)
    at: float              # where time stands: T - margin ("before") or T + I ("by")
    interval: float        # I: the check interval that bounds the action
    what: str              # the step that set it, for messages and reports


class LatencyMeter:
    """What the runner measures of the target and itself during a scenario (real clocks only)."""

    def __init__(self) -> None:
        self.round_trip = 0.0       # longest observation round trip
        self.timer_late = 0.0       # how late the runner's own waits ended, longest

    def observed(self, sent: float, received: float) -> None:
        self.round_trip = max(self.round_trip, received - sent)

    def woke(self, wanted: float, woke: float) -> None:
        self.timer_late = max(self.timer_late, woke - wanted)

    def allowance(self) -> float:
        """Latency granted on top of the document's window before a late action counts."""
        return round(ALLOWANCE_FLOOR + 2 * self.round_trip + self.timer_late, 3)

    def margin(self, interval: float) -> float:
        """How far short of T a "before" moment stands: enough for one round trip, never more
        than half a check interval (so a controller a check early is still seen early)."""
        return min(max(REAL_MARGIN_MIN, 2 * self.round_trip + self.timer_late), interval / 2)


def record(window: Window, *, origin: float, verdict: str, observed: float | None,
           allowance: float, detail: str = "") -> dict:
    """One timing verdict, times relative to ``origin`` (the scenario's reference moment)."""
    low = window.deadline - origin
    return {
        "step": window.what,
        "kind": "not-before" if window.kind == "before" else "by",
        "deadline": round(low, 3),
        "allowed": [round(low, 3), round(low + window.interval, 3)],
        "allowance": round(allowance, 3),
        "observed": None if observed is None else round(observed - origin, 3),
        "verdict": verdict,
        "detail": detail,
    }


def describe(entry: dict) -> str:
    """ "evicted at +331.4 s, allowed 330.0–330.5 s + 0.3 s measured latency" style text."""
    seen = "not observed" if entry["observed"] is None else f"observed at +{entry['observed']:.3f} s"
    low, high = entry["allowed"]
    bound = f"not before +{low:.3f} s" if entry["kind"] == "not-before" else \
        f"allowed +{low:.3f}–{high:.3f} s + {entry['allowance']:.3f} s measured latency"
    return f"{entry['step']}: {seen}, {bound} ({entry['verdict']})"


def now() -> float:
    return time.time()
