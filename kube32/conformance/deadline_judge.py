"""Judging a deadline on a real clock from the answers the runner got, and nothing else.

The runner looks (``Look``: when the request was sent, when its answer came, whether it showed what
was due) and a judge answers with an ``Outcome``: look again after ``pause`` seconds, or the verdict.
No clock is read and nothing sleeps here, so the rules are tested by feeding answers
(``tests/runner/test_deadline_judge.py``); ``context.ScenarioContext`` does the looking.

- "before" T (``BeforeJudge``): the first good answer passes, even one that arrived after T (what
  had not happened after T had not happened before it); an answer before T that shows it fails;
  only showing it after T, the runner could not tell: an ``error``.
- "by" T + I (``ByJudge``): keep looking until a request sent after T + I (+ the check that sees a
  renewal) + the measured allowance; only that one can fail the target.
"""

from __future__ import annotations

import dataclasses

from kube32.conformance.timing import REAL_MARGIN_MIN, Window

PAUSE = 0.05            # seconds between looks


@dataclasses.dataclass(frozen=True)
class Look:
    sent: float
    received: float
    ok: bool                # the answer showed what the step checks
    detail: str = ""        # what it showed instead


@dataclasses.dataclass(frozen=True)
class Outcome:
    verdict: str | None                 # None: look again after ``pause``; else passed | failed | error
    at: float | None = None             # when what decided was observed
    detail: str = ""
    acted: tuple[float, float] | None = None     # "by": between the last look without it and the first with it
    pause: float = 0.0


class ByJudge:
    def __init__(self, window: Window, allowance: float) -> None:
        self.cutoff = window.at + window.sighting + allowance
        self.not_yet: float | None = None      # when the last look that did not see it was sent

    def look(self, seen: Look) -> Outcome:
        if seen.ok:
            acted = None if self.not_yet is None else (self.not_yet, seen.received)
            return Outcome("passed", seen.received, acted=acted)
        self.not_yet = seen.sent
        if seen.sent >= self.cutoff:
            return Outcome("failed", seen.sent, seen.detail)
        return Outcome(None, pause=min(PAUSE, max(self.cutoff - seen.received, 0.0)))


class BeforeJudge:
    def __init__(self, window: Window) -> None:
        self.deadline = window.deadline
        self.failed_at: float | None = None    # an answer before T that did not show it yet
        self.failure = ""

    def look(self, seen: Look) -> Outcome:
        if seen.ok:
            return Outcome("passed", seen.received)
        self.failure = seen.detail
        if seen.received > self.deadline:
            return self._end()          # it showed nothing yet after T: so nothing before T either
        self.failed_at = seen.received
        if seen.received + 2 * (seen.received - seen.sent) + REAL_MARGIN_MIN / 2 >= self.deadline:
            return self._end()          # the next answer would come too late to count
        return Outcome(None, pause=PAUSE)

    def _end(self) -> Outcome:
        if self.failed_at is not None:
            return Outcome("failed", self.failed_at, self.failure)
        return Outcome("error", None, "no answer arrived before the deadline")


def judge_for(window: Window, allowance: float) -> ByJudge | BeforeJudge:
    return ByJudge(window, allowance) if window.kind == "by" else BeforeJudge(window)
