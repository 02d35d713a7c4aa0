"""Score: the mean of the node's free-memory and free-GPIO percentages after binding the pod.

free % of a resource = 100 x (free - the pod's amount) / total, where free is the node's figure
minus what is still accounted, and total the node's capacity (else allocatable). A node whose
total is 0 scores 0 % on that term (catalogue: SCHED-SCORE-NO-GPIO).

The score is linear in the pod's amounts, so each node's coefficients are computed once per
accounting state (``coefficients``) and a decision costs a multiply-add per node. ``score_all``
ranks in floats; ``exact_score`` evaluates the same coefficients in Fractions, which the scheduler
uses to settle near-ties exactly.
"""

from __future__ import annotations

from fractions import Fraction

from kube32.reference.scheduler import framework, resources

NAME = "FreeShare"
EXACT = NAME + ".exact"       # node.derived keys: exact coefficients, and the figures they come from
FIGURES = NAME + ".figures"
TERMS = (resources.MEMORY, resources.GPIO)


def percent(left, total: int, number=float):
    """``left`` units as a percentage of ``total`` (0 when the node has none at all)."""
    return number(100) * left / total if total > 0 else number(0)


def combine(percentages: list):
    """How the terms make one score: their mean."""
    return sum(percentages) / len(percentages)


def demand(pod: framework.PodInfo) -> tuple[int, ...]:
    """What binding the pod takes from each term: its memory and its GPIO count."""
    return tuple(pod.amounts[term] for term in TERMS)


def coefficients(node: framework.NodeInfo, number=float) -> tuple:
    """(score of an empty pod, score lost per unit of each term) for this node."""
    free = [percent(node.free[term], node.totals[term], number) for term in TERMS]
    base = combine(free)
    per_unit = []
    for i, term in enumerate(TERMS):
        unit = [number(0)] * len(TERMS)
        unit[i] = percent(1, node.totals[term], number)
        per_unit.append(combine(unit))
    return (base, *per_unit)


def evaluate(coeffs: tuple, amounts: tuple[int, ...]):
    """The score after binding: the empty-pod score minus what the pod's amounts take."""
    out = coeffs[0]
    for per_unit, amount in zip(coeffs[1:], amounts, strict=True):
        out -= per_unit * amount
    return out


class FreeShare:
    NAME = NAME
    SHAPE_ONLY = True

    def score_all(self, pod: framework.PodInfo, nodes: list[framework.NodeInfo]) -> list[float]:
        amounts = demand(pod)
        out = []
        if len(amounts) == 2:   # the documented two terms: inline evaluate()
            memory, gpio = amounts
            for node in nodes:
                derived = node.derived
                coeffs = derived.get(NAME)
                if coeffs is None:
                    coeffs = derived[NAME] = coefficients(node)
                out.append(coeffs[0] - coeffs[1] * memory - coeffs[2] * gpio)
            return out
        for node in nodes:
            coeffs = node.derived.get(NAME)
            if coeffs is None:
                coeffs = node.derived[NAME] = coefficients(node)
            out.append(evaluate(coeffs, amounts))
        return out

    def exact_score(self, pod: framework.PodInfo, node: framework.NodeInfo) -> Fraction:
        return evaluate(self._exact_coefficients(node), demand(pod))

    def tie_key(self, node: framework.NodeInfo) -> tuple[int, ...]:
        """What the score reads of a node: nodes with equal keys score the same for any pod."""
        figures = node.derived.get(FIGURES)
        if figures is None:
            figures = node.derived[FIGURES] = (*(node.free[t] for t in TERMS), *(node.totals[t] for t in TERMS))
        return figures

    @staticmethod
    def _exact_coefficients(node: framework.NodeInfo) -> tuple:
        coeffs = node.derived.get(EXACT)
        if coeffs is None:
            coeffs = node.derived[EXACT] = coefficients(node, Fraction)
        return coeffs
