"""One side of the comparison: a target (the one explored, or the in-process reference that is the
oracle) and, for each example, a fresh scenario context on it -- the same context, kubelets,
timeline and step definitions a ``run`` uses."""

from __future__ import annotations

import math

from kube32.conformance import levels
from kube32.conformance.context import ScenarioContext, target_is_fresh
from kube32.conformance.errors import HarnessError
from kube32.conformance.explore import executor
from kube32.conformance.explore.gherkin import Step
from kube32.conformance.targets import base


class ForeignNodes(HarnessError):
    """The target has nodes the explorer did not register: scheduling and FailedScheduling counts
    would depend on them."""


class Side:
    def __init__(self, name: str, target) -> None:
        self.name, self.target = name, target
        self.ctx: ScenarioContext | None = None
        self.request = executor.Finalizers()
        self.start = 0.0          # the side's clock when the example began

    @property
    def manual(self) -> bool:
        """The side's clock can be moved (known from its capabilities before any example)."""
        return base.MANUAL_CLOCK in self.target.capabilities

    def begin(self) -> None:
        self.target.begin_scenario()
        foreign = getattr(self.target, "foreign_nodes", None)
        if foreign:
            self.target.end_scenario()
            raise ForeignNodes(f"the {self.name} has nodes explore did not register ({', '.join(foreign[:5])}); "
                               "explore needs the node set to itself (placements and FailedScheduling "
                               "counts depend on every node)")
        self.ctx = ScenarioContext(self.target, judge=levels.Judge(()))
        if self.manual:
            # every example starts on a whole second on both sides: stamps written in whole seconds
            # (timeAdded, lastTransitionTime) then fall alike, and a fault a fraction of a second off
            # is not hidden by where a reused target's clock happened to stand
            self.ctx.timeline.advance_to(math.ceil(self.ctx.timeline.now()))
        self.start = self.ctx.timeline.now()

    def now(self) -> float:
        """Seconds since the example began, on this side's clock."""
        return self.ctx.timeline.now() - self.start

    def run(self, step: Step, clause: str | None = None) -> object:
        """Run a step; a check inside judges ``clause`` (a failed document-level check raises)."""
        self.ctx.judge = levels.Judge((clause,) if clause else ())
        self.ctx.judge.step = f"{step.keyword} {step.text}"
        return executor.run(step, self.ctx, self.request)

    def findings(self) -> list[levels.Finding]:
        return list(self.ctx.judge.findings) if self.ctx else []

    def end(self) -> list[str]:
        """Close the example; what could not be cleaned up (a problem for the next example)."""
        if self.ctx is None:
            return []
        problems = []
        ctx, self.ctx = self.ctx, None
        try:
            self.request.run()
        except HarnessError as exc:
            problems.append(str(exc))
        except AssertionError:
            pass
        ctx.close()
        for step in ((lambda: None) if target_is_fresh(self.target) else ctx.cleanup, self.target.end_scenario):
            try:
                step()
            except HarnessError as exc:
                problems.append(str(exc))
        return problems

    def describe(self) -> dict:
        return self.target.describe()


def start(name: str, target) -> Side:
    target.start()
    if base.FAKE_KUBELETS not in target.capabilities:
        raise HarnessError(f"the {name} plays its nodes itself (a rig): explore needs the runner's fake kubelets")
    return Side(name, target)
