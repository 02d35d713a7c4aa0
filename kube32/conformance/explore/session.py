"""An exploration: Hypothesis runs the state machine in rounds of a few examples, each round with
its own seed (``--seed``, then +1, +2, ...), until a disagreement is found, a side breaks (an
``error``, never a disagreement) or the budget is used up. A disagreement is shrunk by
Hypothesis for a while, then step by step (shrink.py). The example database stays in the report
directory: a run with the same seed and directory replays a finding first."""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Flaky
from hypothesis.stateful import get_state_machine_test

from kube32.conformance.explore import fleet, machine, shrink, sides
from kube32.conformance.explore.case import Case, Disagreement, Recorded, Stop
from kube32.conformance.explore.gherkin import Step

EXAMPLES_PER_ROUND = 4
STEPS_PER_EXAMPLE = 30
PROGRESS_EVERY = 5.0         # seconds between progress lines
HYPOTHESIS_SHRINK = 20.0     # seconds Hypothesis shrinks before the step-by-step pass takes over
SHRINK_SHARE = 0.5           # shrinking may take this share of the budget beyond it (at least SHRINK_MIN)
SHRINK_MIN = 60.0


@dataclasses.dataclass
class Stats:
    examples: int = 0
    operations: int = 0
    compared: int = 0          # values compared at document level
    checks: int = 0            # Then steps run against the target (where a value differed)
    disagreements: int = 0
    explorer_doubts: list = dataclasses.field(default_factory=list)
    divergences: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Finding:
    clause: str
    steps: list[Step]
    message: str
    found_after: float          # seconds from the start to the first disagreement
    seed: int                   # the round whose examples found it
    first_steps: int            # steps of the example that first disagreed


class Session:
    def __init__(self, oracle: sides.Side, target: sides.Side, areas: list, *, seed: int, budget: float,
                 report_dir: str, out=sys.stdout) -> None:
        self.oracle, self.target = oracle, target
        self.areas = [fleet.FLEET, *(a for a in areas if a is not fleet.FLEET)]
        self.seed, self.budget, self.report_dir, self.out = seed, budget, report_dir, out
        self.stats = Stats()
        self.started = time.monotonic()
        self.found_at: float | None = None       # when the first disagreement was seen
        self.first: Disagreement | None = None
        self.best: Disagreement | None = None    # the disagreement with the fewest steps so far
        self.round_seed = seed
        self.seeds: list[int] = []
        self.beside: list[str] = []
        self._said = 0.0
        self._deadline: float | None = None      # set while shrinking

    # -- the machine's hooks ---------------------------------------------------------------
    def begin_example(self) -> Case:
        self._check_clock()
        case = Case(self.oracle, self.target, self.stats)
        case.areas = self.areas
        case.begin()
        self.stats.examples += 1
        return case

    def end_example(self, case: Case) -> None:
        self.beside += case.beside[:20]
        problems = case.end()
        if problems:
            raise Stop(f"cleaning up after an example failed: {'; '.join(problems)}", error=True)

    def apply(self, case: Case, step: Step, clause: str, intent: dict) -> bool:
        self._check_clock()
        if not all(area.allows(case, intent) for area in self.areas):
            return False          # not now: as a step the oracle refuses (also when a shrunk trace replays)
        before = {area.NAME: area.before(case, intent) for area in self.areas}
        try:
            if not case.run(step, clause, intent):
                return False
            checks = [c for area in self.areas for c in area.after(case, intent, before[area.NAME])]
            case.judge(checks)
        except Disagreement as exc:
            self._record(exc)
            raise
        return True

    def aims(self, case: Case) -> list[float]:
        """Moments (seconds since the example began) the time rule aims at: just before, on and one
        check interval after each deadline the areas know of."""
        out = []
        for moment, interval in (d for area in self.areas for d in area.deadlines(case)):
            out += [moment - 0.001, moment, moment + interval, moment + interval + 0.001]
        return out

    # -- the search --------------------------------------------------------------------------
    def run(self) -> dict:
        db = DirectoryBasedExampleDatabase(os.path.join(self.report_dir, "examples"))
        cls = machine.build(self, self.areas)
        cfg = settings(max_examples=EXAMPLES_PER_ROUND, stateful_step_count=STEPS_PER_EXAMPLE, deadline=None,
                       database=db, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                       print_blob=False, phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
                       verbosity=Verbosity.quiet)        # (the finding is explore's to tell, as a scenario)
        test = get_state_machine_test(cls, settings=cfg)
        verdict, why = "passed", "budget used up"
        while self.found_at is None and self._left() > 0:
            self.seeds.append(self.round_seed)
            try:
                hypothesis.seed(self.round_seed)(test)()
            except Disagreement:
                break
            except Stop as stop:
                if stop.error:
                    verdict, why = "error", stop.why
                break
            except Flaky as exc:
                stop = _stop_behind(exc)
                if stop is not None and stop.error:
                    verdict, why = "error", stop.why
                    break
                if stop is None and self.found_at is None:
                    why = f"Hypothesis: {exc}"
                    break
            self.round_seed += 1
        if self.best is not None and verdict != "error":
            verdict, why = "failed", ""
            self._minimize()
        self._progress(force=True)
        return self._result(verdict, why)

    def _minimize(self) -> None:
        self._say(f"explore: shrinking step by step from {len(self.best.steps)} steps")
        self._deadline = self.found_at + max(SHRINK_MIN, SHRINK_SHARE * self.budget)

        def simpler(rec: Recorded) -> list[Recorded]:
            return [s for area in self.areas for s in getattr(area, "simpler", lambda r: [])(rec)]

        try:
            self.best = shrink.minimize(self.replay, self.best.trace, self.best, self._deadline, simpler)
        except Stop as stop:
            if stop.error:
                raise

    def replay(self, trace: list[Recorded]) -> Disagreement | None:
        """Run a trace on a fresh example; the disagreement it shows, if any. A trace with a step the
        oracle refuses is no scenario the reference passes (and the refused step may have changed the
        oracle halfway), so it shows nothing."""
        case = self.begin_example()
        try:
            for rec in trace:
                if not self.apply(case, rec.step, rec.clause, rec.intent):
                    return None
        except Disagreement as exc:
            return exc
        finally:
            self.end_example(case)
        return None

    def _check_clock(self) -> None:
        self._progress()
        now = time.monotonic()
        if self._deadline is not None:
            if now > self._deadline:
                raise Stop("shrinking took its share of the budget")
        elif self.found_at is not None:
            if now - self.found_at > HYPOTHESIS_SHRINK:
                raise Stop("Hypothesis has shrunk for its share")
        elif self._left() < -max(30.0, 0.1 * self.budget):
            raise Stop("budget used up")

    def _left(self) -> float:
        return self.budget - (time.monotonic() - self.started)

    def _record(self, exc: Disagreement) -> None:
        self.stats.disagreements += 1
        if self.found_at is None:
            self.found_at, self.first = time.monotonic(), exc
            self._say(f"explore: first disagreement after {self.found_at - self.started:.1f} s ({exc.clause}, "
                      f"{len(exc.steps)} steps); shrinking")
        if self.best is None or len(exc.steps) < len(self.best.steps):
            self.best = exc

    def _progress(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._said < PROGRESS_EVERY:
            return
        self._said = now
        s = self.stats
        left = max(self._left(), 0.0)
        self._say(f"explore: {s.examples} examples, {s.operations} operations, {s.compared} values compared, "
                  f"{s.disagreements} disagreements, {int(left // 60)}m{int(left % 60):02d}s left")

    def _say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def _result(self, verdict: str, why: str) -> dict:
        finding = None
        if self.best is not None:
            finding = Finding(self.best.clause, list(self.best.steps), self.best.message,
                              self.found_at - self.started, self.seeds[-1] if self.seeds else self.seed,
                              len(self.first.steps))
        return {"verdict": verdict, "why": why, "finding": finding, "stats": self.stats,
                "seeds": list(self.seeds), "duration": time.monotonic() - self.started, "beside": self.beside[:50]}


def _stop_behind(exc: BaseException) -> Stop | None:
    """The Stop that interrupted an example (Hypothesis then reports the example as flaky)."""
    seen = exc
    while seen is not None:
        if isinstance(seen, Stop):
            return seen
        seen = seen.__context__ or seen.__cause__
    return None


def open_sides(oracle_target, target) -> tuple[sides.Side, sides.Side]:
    return sides.start("oracle reference", oracle_target), sides.start("target", target)
