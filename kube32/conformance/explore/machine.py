"""The Hypothesis state machine: one class per exploration, made of the chosen areas' rule mixins,
a time rule (manual clocks only) and the step hook every rule goes through."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from kube32.conformance.explore.gherkin import Step

SMALL_MOVES = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)


def seconds_text(seconds: float) -> str:
    text = f"{seconds:.3f}".rstrip("0").rstrip(".")
    return text or "0"


class ExploreBase(RuleBasedStateMachine):
    session = None       # the Session a built class serves

    def __init__(self) -> None:
        super().__init__()
        self.case = self.session.begin_example()

    def apply(self, step: Step, clause: str, intent: dict | None = None) -> bool:
        return self.session.apply(self.case, step, clause, intent or {})

    @precondition(lambda self: self.case.manual and self.case.trace)      # (time alone shows nothing)
    @rule(pick=st.integers(0, 10_000))
    def time_passes(self, pick):
        """Small moves, and moves landing just before, on, and one check interval after every
        deadline the areas know of."""
        now = self.case.now()
        aims = {round(t - now, 3) for t in self.session.aims(self.case)}
        options = sorted({*SMALL_MOVES, *(a for a in aims if a > 0)})
        seconds = options[pick % len(options)]
        self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "SCHED-RECONCILE-RETRY",
                   {"time": float(seconds_text(seconds))})

    def teardown(self) -> None:
        self.session.end_example(self.case)


def build(session, areas: list) -> type:
    """The machine class for these areas (their Rules mixins, the time rule on a manual clock)."""
    mixins = tuple(dict.fromkeys(area.Rules for area in areas))
    name = "Explore_" + "_".join(area.NAME for area in areas)
    return type(name, (*mixins, ExploreBase), {"session": session})
