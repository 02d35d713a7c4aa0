"""After Hypothesis has shrunk a disagreement for its share of the time, what is left is shrunk
step by step (delta debugging, Zeller's ddmin): drop chunks of steps, then single steps, then
what the areas offer as simpler forms of one step (fewer table rows, fewer resources), keeping
each change after which the same sides still disagree. Steps carry their own names ("p2",
"node-c"), so a step whose object is gone is simply dropped by the oracle."""

from __future__ import annotations

import time

from kube32.conformance.explore.case import Disagreement, Recorded


def minimize(replay, trace: list[Recorded], found: Disagreement, deadline: float, simpler) -> Disagreement:
    """``replay(trace) -> Disagreement | None`` runs a trace on a fresh example; ``simpler(rec)``
    lists simpler forms of one step. Returns the smallest disagreement found before ``deadline``."""
    best, best_trace = found, list(trace)

    def attempt(candidate: list[Recorded]) -> bool:
        nonlocal best, best_trace
        if time.monotonic() > deadline:
            raise TimeoutError
        got = replay(candidate)
        if got is None:
            return False
        best, best_trace = got, list(candidate)
        return True

    try:
        _chunks(best_trace, attempt, lambda: best_trace)
        changed = True
        while changed:
            changed = False
            for i in range(len(best_trace) - 1, -1, -1):
                if i < len(best_trace) and attempt(best_trace[:i] + best_trace[i + 1:]):
                    changed = True
            for i in range(len(best_trace)):
                for simple in simpler(best_trace[i]) if i < len(best_trace) else ():
                    if attempt(best_trace[:i] + [simple] + best_trace[i + 1:]):
                        changed = True
                        break
    except TimeoutError:
        pass
    return best


def _chunks(trace: list[Recorded], attempt, current) -> None:
    """ddmin's first phase: remove halves, quarters, ... while that keeps the disagreement."""
    n = 2
    while len(current()) >= 2:
        items = current()
        size = max(1, len(items) // n)
        removed = False
        for start in range(0, len(items), size):
            if attempt(items[:start] + items[start + size:]):
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if size == 1:
                return
            n = min(n * 2, len(items))
