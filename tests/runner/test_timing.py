"""Timing verdicts: deadlines judged within the document's bounds on any clock phase.

Unit part: the timeline's windows and the real-clock judge with a scripted check. End to end: the
node-lifecycle area against a `serve` process whose manual clock starts 0.77 s off a whole second
(the whole suite at several phases and check intervals runs in `tox -e phases`).
"""

from __future__ import annotations

import time

import pytest

from kube32.conformance import timing
from kube32.conformance.context import ScenarioContext
from kube32.conformance.timeline import Timeline
from tests.conftest import FEATURES, run_features


class FakeManualClock:
    manual = True

    def __init__(self, start: float) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance_to(self, t: float) -> None:
        self.t = max(self.t, t)


class RealClock:
    manual = False

    def now(self) -> float:
        return time.time()

    def advance_to(self, t: float) -> None:
        time.sleep(max(0.0, t - time.time()))


def test_just_before_then_the_check_interval_lands_one_interval_past_the_deadline():
    timeline = Timeline(FakeManualClock(100.3), {})
    timeline.pin(100.3)
    timeline.just_before(timeline.from_base(15.0), 0.5, "almost the lease duration")
    assert timeline.now() == pytest.approx(115.3 - timing.MANUAL_MARGIN)
    assert (timeline.window.kind, timeline.window.deadline) == ("before", pytest.approx(115.3))
    timeline.check_interval_passes(0.5, "the lifecycle check interval passes")
    assert timeline.now() == pytest.approx(115.8)
    assert timeline.window.kind == "by"
    timeline.advance(15.0)                 # chains on from where the last step meant to stand
    assert timeline.now() == pytest.approx(130.8) and timeline.window is None


def _context(clock) -> ScenarioContext:
    ctx = ScenarioContext.__new__(ScenarioContext)
    ctx.target = type("T", (), {"clock": clock, "profile": None})()
    ctx.timeline = Timeline(clock, {})
    ctx.timings = []
    return ctx


def test_real_clock_before_a_deadline_that_has_passed_is_the_runners_problem():
    """A look answered only after T that shows the change cannot tell when it came: an error. One
    that shows nothing happened yet shows that nothing happened before T: passed."""
    ctx = _context(RealClock())
    ctx.timeline.window = timing.Window("before", time.time() - 1.0, time.time() - 1.1, 0.5, "almost T")

    def evicted():
        raise AssertionError("pod web is not bound")

    with pytest.raises(timing.RunnerTooLate):
        ctx.consistently(evicted, "pod still runs")
    assert ctx.timings[-1]["verdict"] == "error"
    ctx.consistently(lambda: None, "pod still runs")
    assert ctx.timings[-1]["verdict"] == "passed"


def test_real_clock_by_fails_only_on_a_look_sent_after_the_allowance():
    ctx = _context(RealClock())
    ctx.timeline.close()
    now = time.time()
    ctx.timeline.window = timing.Window("by", now - 0.5, now, 0.5, "just over T")
    looks: list[float] = []

    def never():
        looks.append(time.time())
        raise AssertionError("still bound")

    with pytest.raises(AssertionError, match="still bound"):
        ctx.eventually(never, "pod evicted")
    record = ctx.timings[-1]
    assert record["verdict"] == "failed" and record["kind"] == "by"
    assert looks[-1] >= now + record["allowance"]


def _by_window_just_closed():
    """A real-clock context whose "by" window closes now, and a change that shows half the
    allowance floor later."""
    ctx = _context(RealClock())
    ctx.timeline.close()
    now = time.time()
    ctx.timeline.window = timing.Window("by", now - 0.5, now, 0.5, "just over T")
    return ctx, now + timing.ALLOWANCE_FLOOR / 2


def test_real_clock_by_passes_when_the_change_shows_within_the_allowance():
    ctx, appears = _by_window_just_closed()

    def soon():
        assert time.time() >= appears, "still bound"

    ctx.eventually(soon, "pod evicted")
    assert ctx.timings[-1]["verdict"] == "passed"
    assert "measured latency" in timing.describe(ctx.timings[-1])


def test_real_clock_a_state_check_by_the_deadline_waits_for_the_change_within_the_allowance():
    """"Then pod "web" is not bound" one check interval after the taint: the eviction may show up
    to the measured latency later (it failed at once before: a consistently-check in a by window)."""
    ctx, appears = _by_window_just_closed()

    def unbound():
        assert time.time() >= appears, "spec.nodeName is 'node-a'"

    ctx.consistently(unbound, "pod not bound")
    record = ctx.timings[-1]
    assert record["verdict"] == "passed"
    low, high = record["acted"]            # black-box: when the target acted, relative to the origin
    assert low <= appears - ctx.timeline.origin <= high + 0.01
    assert "the target acted between" in timing.describe(record)


def test_real_clock_before_the_deadline_every_check_of_the_window_gets_its_answer_in_time():
    """Two Then-steps just before T: the first one's first good answer decides, so the second one
    still looks before T (it was a runner-too-late error when the first held until T); an action
    seen before T fails."""
    ctx = _context(RealClock())
    ctx.timeline.close()
    now = time.time()
    ctx.timeline.window = timing.Window("before", now + 0.4, now, 0.5, "almost T")
    ctx.consistently(lambda: None, "node-a has taint NoSchedule")
    ctx.eventually(lambda: None, "node-a has no taint NoExecute")
    assert [t["verdict"] for t in ctx.timings] == ["passed", "passed"]

    def early():
        raise AssertionError("node-a Ready is 'Unknown'")

    with pytest.raises(AssertionError, match="Unknown"):
        ctx.consistently(early, "node-a still Ready")
    assert ctx.timings[-1]["verdict"] == "failed"


def test_a_deadline_that_counts_from_a_renewal_allows_the_check_that_sees_it_on_a_real_clock():
    """The target may count from the check that saw the renewal (upstream does): one more check
    interval by T + I, on a real clock only (a manual clock's jumps land that check exactly)."""
    real = Timeline(RealClock(), {})
    real.close()
    real.by(time.time() - 0.5, 0.5, "lease run out", renewal=True)
    assert real.window.sighting == 0.5
    real.by(time.time() - 0.5, 0.5, "NoExecute taint just over 60 s old")
    assert real.window.sighting == 0.0
    manual = Timeline(FakeManualClock(100.0), {})
    manual.by(100.0, 0.5, "lease run out", renewal=True)
    assert manual.window.sighting == 0.0
    record = timing.record(real.window, origin=0.0, verdict="passed", observed=None, allowance=0.2)
    assert record["allowance"] == 0.2


def test_the_allowance_counts_reads_twice_writes_once_and_timers_for_both_sides():
    meter = timing.LatencyMeter()
    meter.request("GET", 0.02)
    meter.request("PUT", 0.3)             # e.g. the Lease renewal the deadline counts from
    meter.woke(10.0, 10.05)
    assert meter.allowance() == pytest.approx(timing.ALLOWANCE_FLOOR + 0.04 + 0.3 + 0.1)
    meter.restarted(0.0, 2.0)
    assert meter.allowance() == pytest.approx(timing.ALLOWANCE_FLOOR + 0.04 + 0.3 + 0.1 + 2.0)
    assert meter.margin(0.5) == 0.25 and meter.margin(1.0) == 0.5    # half a check interval at least
    meter.woke(20.0, 20.4)
    assert meter.margin(0.5) == 0.5                                  # never more than one


PHASE_CLAUSES = ("NODE-CHECK-INTERVAL", "NODE-NOTREADY-AT-LEASE-DURATION", "NODE-EVICT-AT-TOLERATION-EXPIRY",
                 "NODE-EVICT-COUNTS-FROM-TIMEADDED")


def test_deadlines_hold_at_a_clock_phase(pytester, monkeypatch, tmp_path):
    """The reference's controller checks fall 0.77 s off whole seconds: no clause may care. (The
    whole suite at several phases and check intervals: ``tox -e phases``.)"""
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    result, doc = run_features(pytester, tmp_path / "report", "--target", "process@1767225600.77",
                               *(f"--clause={c}" for c in PHASE_CLAUSES))
    ran = [s for row in doc["clauses"] for s in row["scenarios"]]
    bad = [(s["name"], s["status"], s.get("message")) for s in ran if s["status"] in ("failed", "error")]
    assert ran and not bad, bad
    timed = [t for s in ran for t in s.get("timing", [])]
    assert {t["kind"] for t in timed} == {"not-before", "by"}
    assert result.ret == 0


def test_a_pinned_moment_anchors_the_next_time_step_however_long_ago_on_a_real_clock():
    """"the control plane restarts" pins the moment it began; a restart of several seconds must not
    make "almost the lease duration passes" count from its end (the restarted target counts from no
    later than its own start)."""
    class SlowRealClock(FakeManualClock):
        manual = False

    clock = SlowRealClock(100.0)
    timeline = Timeline(clock, {})
    timeline.close()
    timeline.pin(100.0)
    clock.t = 104.3                          # the restart took 4.3 s
    assert timeline.from_base(15.0) == pytest.approx(115.0)
    timeline.advance_to(104.3)
    clock.t = 106.0                          # an ordinary step 1.7 s later: counts from now
    assert timeline.from_base(1.0) == pytest.approx(107.0)
