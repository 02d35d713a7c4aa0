"""One example: the same steps on the oracle and on the target, and the comparison after each.

A step runs on the oracle first; one the oracle cannot take (a harness error or a failed check:
the explorer asked something the state does not allow) is dropped and runs nowhere else. Then it
runs on the target. After it the areas list their checks: a Then step carrying the oracle's value,
where the document decides the value. A check is a disagreement only when that Then step fails
against the target at document level AND passes against the oracle -- exactly the verdict ``run``
would give the scenario written from it.
"""

from __future__ import annotations

import dataclasses

from kube32.conformance.errors import HarnessError
from kube32.conformance.explore.gherkin import Step
from kube32.conformance.explore.sides import Side


class Stop(BaseException):  # noqa: N818 - not an error of the target: it ends the search
    """Ends the search at once, without shrinking: the budget is used up, or a side broke (the
    harness, the network: an ``error`` verdict, never a disagreement)."""

    def __init__(self, why: str, error: bool = False) -> None:
        super().__init__(why)
        self.why, self.error = why, error


class Disagreement(AssertionError):
    """A step's verdict differs between target and oracle where the document decides it."""

    clause = ""

    def __init__(self, clause: str, step: Step, message: str, steps: list[Step], trace: list) -> None:
        super().__init__(f"[{clause}] {step.keyword} {step.text}: {message}")
        self.clause, self.step, self.message, self.steps, self.trace = clause, step, message, steps, trace


def disagreement(clause: str, step: Step, message: str, trace: list, then: Step | None = None) -> Disagreement:
    """One class for every clause: shrinking then finds the smallest disagreement whatever clause
    it shows (one fault often shows under several clauses, the shortest path decides which)."""
    steps = [r.step for r in trace] + ([then] if then is not None else [])
    return Disagreement(clause, then or trace[-1].step, message, steps, list(trace))


@dataclasses.dataclass(frozen=True)
class Recorded:
    """A step both sides took, with the clause a failure of it concerns and what it was for (the
    areas' hooks read the intent: a replay needs nothing else)."""
    step: Step
    clause: str
    intent: dict


@dataclasses.dataclass
class Check:
    """A Then step carrying the oracle's value, judged against the target."""
    clause: str
    then: Step
    what: str = ""             # one line for the report: what differed


class Case:
    def __init__(self, oracle: Side, target: Side, stats) -> None:
        self.oracle, self.target, self.stats = oracle, target, stats
        self.trace: list[Recorded] = []        # the steps both sides took, with what they were for
        self.diverged: dict[str, str] = {}     # family -> why its values stopped being comparable
        self.notes: dict = {}                  # what the areas remember of this example
        self.beside: list[str] = []            # findings at reference level only (never a disagreement)
        self.areas: list = []

    # -- the example -----------------------------------------------------------------------
    def begin(self) -> None:
        for side in (self.oracle, self.target):
            self._guard(side, side.begin)

    def end(self) -> list[str]:
        problems = []
        for side in (self.oracle, self.target):
            try:
                problems += side.end()
            except HarnessError as exc:
                problems.append(str(exc))
        return problems

    @property
    def manual(self) -> bool:
        return self.target.manual

    def now(self) -> float:
        return self.oracle.now()

    def quiet(self, seconds: float) -> bool:
        """Nothing but the target's own loops changes the world over the next ``seconds``: no fake
        kubelet has a write due (a sync that confirms a deletion or starts a pod; lease renewals
        write only Leases) and no area's deadline window overlaps the move."""
        from kube32.conformance.explore.snapshot import Snapshot, node_name, phase, terminating

        ctx = self.oracle.ctx
        end = ctx.timeline.now() + seconds
        pods = Snapshot(self.oracle).pods()
        for kubelet in ctx.kubelets.values():
            due = kubelet.next_sync
            if kubelet.silenced or due is None or due > end + 1e-9:
                continue
            mine = [p for p in pods if node_name(p) == kubelet.name]
            if any(terminating(p) for p in mine) and not kubelet.hold_terminating:
                return False
            if kubelet.auto_start and any(phase(p) == "Pending" for p in mine):
                return False
        now = self.now()
        return not any(now < moment + interval and moment <= now + seconds
                       for area in self.areas for moment, interval in area.deadlines(self))

    # -- steps -----------------------------------------------------------------------------
    @property
    def steps(self) -> list[Step]:
        return [r.step for r in self.trace]

    def run(self, step: Step, clause: str, intent: dict) -> bool:
        """Run a Given/When step on both sides; False when the oracle could not take it (dropped).
        ``clause``: what a failure of the step on the target alone would disagree about."""
        try:
            self.oracle.run(step)
        except (AssertionError, HarnessError):
            return False
        self.stats.operations += 1
        try:
            self._guard(self.target, lambda: self.target.run(step))
        except AssertionError as exc:
            raise disagreement(clause, step, f"the step failed against the target: {exc}",
                               [*self.trace, Recorded(step, clause, intent)]) from None
        self.trace.append(Recorded(step, clause, intent))
        self._beside()
        return True

    def judge(self, checks: list[Check]) -> None:
        """Each check's Then step against the target; the first that fails there (and passes
        against the oracle) is the example's disagreement."""
        for check in checks:
            self.stats.checks += 1
            try:
                self._guard(self.target, lambda c=check: self.target.run(c.then, c.clause))
            except AssertionError as exc:
                failed = str(exc)
            else:
                self._beside()
                continue
            try:
                self.oracle.run(check.then, check.clause)
            except (AssertionError, HarnessError) as exc:
                # the explorer's own expectation does not hold on the oracle: not a finding
                self.stats.explorer_doubts.append(f"{check.then.text}: {exc}")
                continue
            raise disagreement(check.clause, check.then, f"{check.what}{'; ' if check.what else ''}{failed}",
                               self.trace, then=check.then)

    def diverge(self, family: str, why: str) -> None:
        """A choice the document leaves open went differently: stop comparing what depends on it."""
        if family not in self.diverged:
            self.diverged[family] = why
            self.stats.divergences[family] = self.stats.divergences.get(family, 0) + 1

    def _beside(self) -> None:
        for finding in self.target.findings():
            self.beside.append(str(finding))
        self.target.ctx.judge.findings.clear()

    @staticmethod
    def _guard(side: Side, call):
        try:
            return call()
        except HarnessError as exc:
            raise Stop(f"the {side.name} could not be asked: {exc}", error=True) from None
