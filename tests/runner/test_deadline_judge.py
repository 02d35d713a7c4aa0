"""The real-clock deadline rules, fed answers as a state machine is (no clock, no sleeps)."""

from __future__ import annotations

from kube32.conformance.deadline_judge import PAUSE, BeforeJudge, ByJudge, Look, Outcome
from kube32.conformance.timing import REAL_MARGIN_MIN, Window

T = 100.0


def before() -> BeforeJudge:
    return BeforeJudge(Window("before", deadline=T, at=T - 1, interval=1.0, what="step"))


def by(sighting: float = 0.0, allowance: float = 0.2) -> ByJudge:
    return ByJudge(Window("by", deadline=T, at=T + 1, interval=1.0, what="step", sighting=sighting), allowance)


# -- "before" T: nothing may show the change before T ----------------------------------------------
def test_before_a_first_good_answer_passes_even_after_the_deadline():
    assert before().look(Look(99.0, 99.01, True)) == Outcome("passed", 99.01)
    assert before().look(Look(100.5, 100.51, True)) == Outcome("passed", 100.51)


def test_before_an_answer_before_t_showing_the_change_fails_once_no_later_look_can_count():
    judge = before()
    assert judge.look(Look(99.0, 99.01, False, "changed")) == Outcome(None, pause=PAUSE)
    # the next answer would come too late: the verdict is the answer before T
    late = T - REAL_MARGIN_MIN / 2 - 0.001
    assert judge.look(Look(late - 0.001, late, False, "changed again")) == Outcome("failed", late, "changed again")


def test_before_showing_it_only_after_t_is_the_runners_error_not_the_targets():
    assert before().look(Look(100.2, 100.3, False, "changed")).verdict == "error"


def test_before_a_late_answer_after_an_early_failing_one_keeps_the_early_verdict():
    judge = before()
    judge.look(Look(99.0, 99.01, False, "changed"))
    assert judge.look(Look(100.1, 100.2, False, "still")) == Outcome("failed", 99.01, "still")


# -- "by" T + I: only a look sent after the cutoff may fail ------------------------------------------
def test_by_looks_again_until_a_look_sent_after_the_cutoff_fails():
    judge = by(allowance=0.2)                 # cutoff: T + 1 + 0 + 0.2
    out = judge.look(Look(101.0, 101.05, False, "not yet"))
    assert out.verdict is None and 0 < out.pause <= PAUSE
    assert judge.look(Look(101.19, 101.25, False, "not yet")).verdict is None      # sent before the cutoff
    assert judge.look(Look(101.2, 101.3, False, "never")) == Outcome("failed", 101.2, "never")


def test_by_passes_with_when_the_target_acted():
    judge = by()
    judge.look(Look(100.4, 100.45, False, "not yet"))
    assert judge.look(Look(100.5, 100.55, True)) == Outcome("passed", 100.55, acted=(100.4, 100.55))
    assert by().look(Look(100.5, 100.55, True)) == Outcome("passed", 100.55)


def test_by_the_sighting_check_moves_the_cutoff():
    judge = by(sighting=1.0, allowance=0.0)   # cutoff: T + 1 + 1
    assert judge.look(Look(101.5, 101.6, False, "not yet")).verdict is None
    assert judge.look(Look(102.0, 102.1, False, "never")).verdict == "failed"
