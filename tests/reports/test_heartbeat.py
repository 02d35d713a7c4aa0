"""The heartbeat during long real-time waits: one plain line per interval, none for short waits."""

from __future__ import annotations

from kube32.conformance.heartbeat import Heartbeat


class StepClock:
    """A clock whose waits are instant; records where it was asked to stand."""

    manual = False

    def __init__(self) -> None:
        self.t, self.stops = 1000.0, []

    def now(self) -> float:
        return self.t

    def advance_to(self, t: float) -> None:
        self.stops.append(t)
        self.t = max(self.t, t)


def test_a_long_wait_says_how_far_it_got():
    lines, clock = [], StepClock()
    beat = Heartbeat(lines.append, every=30)
    beat.what = 'When the NoExecute taint on node "node-a" is older than the default toleration'
    beat.wait_until(clock, 1000 + 95)
    assert lines == [f"waiting for {beat.what}: {n}/95 s" for n in (30, 60, 90)]
    assert clock.stops == [1030, 1060, 1090, 1095] and clock.t == 1095


def test_a_short_wait_is_silent():
    lines, clock = [], StepClock()
    Heartbeat(lines.append, every=30).wait_until(clock, 1000 + 20)
    assert lines == [] and clock.t == 1020
