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
    # Real clock: T counts from a write of the runner's (a Lease renewal) that the target sees at its
    # next check and may count from there (upstream does), and an action may follow another one due
    # at T (an eviction the NoExecute taint causes) at the next check: a check interval each "by" T + I
    sighting: float = 0.0


class LatencyMeter:
    """What the runner measures of the target and itself during a scenario (real clocks only).

    - ``round_trip``: the longest read (the answer that shows an action comes that much later);
    - ``write_trip``: the longest write, the runner's and its kubelets' (the Lease renewal a
      deadline counts from reaches the target that much after its renewTime, and the target's own
      writes, the condition or taint it is judged by, take as long on the same store);
    - ``timer_late``: how late the runner's own waits ended (the machine's scheduling delay, which
      the target's timers suffer as well on the same machine, and the runner's looks too);
    - ``restart``: how long a control-plane restart took (the restarted target starts counting
      somewhere within it).
    """

    def __init__(self) -> None:
        self.round_trip = 0.0
        self.write_trip = 0.0
        self.timer_late = 0.0
        self.restart = 0.0

    def restarted(self, began: float, ended: float) -> None:
        self.restart = max(self.restart, ended - began)

    def observed(self, sent: float, received: float) -> None:
        self.round_trip = max(self.round_trip, received - sent)

    def request(self, method: str, seconds: float) -> None:
        """ApiClient.round_trips hook: every answered request of the scenario."""
        if method == "GET":
            self.round_trip = max(self.round_trip, seconds)
        else:
            self.write_trip = max(self.write_trip, seconds)

    def woke(self, wanted: float, woke: float) -> None:
        self.timer_late = max(self.timer_late, woke - wanted)

    def allowance(self) -> float:
        """Latency granted on top of the document's window before a late action counts: our look
        and its answer, the write the deadline counts from, and the target's timer and ours late
        by the scheduling delay measured."""
        return round(ALLOWANCE_FLOOR + 2 * self.round_trip + self.write_trip + 2 * self.timer_late + self.restart, 3)

    def margin(self, interval: float) -> float:
        """How far short of T a "before" moment stands: half a check interval (what a controller a
        check early has done by then is seen), more for a late wake-up and a round trip or two
        as measured, never more than one check interval."""
        return min(max(REAL_MARGIN_MIN, interval / 2, 2 * (self.round_trip + self.timer_late)), interval)


def record(window: Window, *, origin: float, verdict: str, observed: float | None,
           allowance: float, detail: str = "", acted: tuple[float, float] | None = None,
           latency: LatencyMeter | None = None) -> dict:
    """One timing verdict, times relative to ``origin`` (the scenario's reference moment). ``acted``:
    the target acted after the first and before the second moment (black-box: the last look that
    did not see it, the answer that did); ``latency``: what the allowance was made of."""
    low = window.deadline - origin
    entry = {
        "step": window.what,
        "kind": "not-before" if window.kind == "before" else "by",
        "deadline": round(low, 3),
        "allowed": [round(low, 3), round(low + window.interval, 3)],
        "allowance": round(allowance + window.sighting, 3),
        "observed": None if observed is None else round(observed - origin, 3),
        "verdict": verdict,
        "detail": detail,
    }
    if acted is not None:
        entry["acted"] = [round(acted[0] - origin, 3), round(acted[1] - origin, 3)]
    if latency is not None and allowance:
        entry["latency"] = {"read": round(latency.round_trip, 3), "write": round(latency.write_trip, 3),
                            "late": round(latency.timer_late, 3), "restart": round(latency.restart, 3),
                            "sighting": round(window.sighting, 3)}
    return entry


def describe(entry: dict) -> str:
    """ "evicted at +331.4 s, allowed 330.0–330.5 s + 0.3 s measured latency" style text."""
    seen = "not observed" if entry["observed"] is None else f"observed at +{entry['observed']:.3f} s"
    low, high = entry["allowed"]
    bound = f"not before +{low:.3f} s" if entry["kind"] == "not-before" else \
        f"allowed +{low:.3f}–{high:.3f} s + {entry['allowance']:.3f} s measured latency"
    parts = entry.get("latency")
    made = f" (longest read {parts['read']:.3f} s, write {parts['write']:.3f} s, timers late " \
        f"{parts['late']:.3f} s, the checks that see the renewal and follow up {parts.get('sighting', 0):.3f} s)" \
        if parts and entry["verdict"] != "passed" else ""
    acted = f", the target acted between +{entry['acted'][0]:.3f} and +{entry['acted'][1]:.3f} s" \
        if entry.get("acted") else ""
    return f"{entry['step']}: {seen}{acted}, {bound}{made} ({entry['verdict']})"


def now() -> float:
    return time.time()
