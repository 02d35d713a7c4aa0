"""Score: the mean of the node's free-memory and free-GPIO percentages after binding the pod.

free % of a resource = 100 x (free - the pod's amount) / total, where free is the node's figure
minus what is still accounted, and total the node's capacity (else allocatable). A node whose
total is 0 scores 0 % on that term (catalogue: SCHED-SCORE-NO-GPIO).

The score is linear in the pod's amounts, so each node's coefficients are worked out once per
accounting state from the figures the score reads of it (``figures``) and a decision costs a
multiply-add per node and term. ``evaluate`` is the one formula: ``score_all`` runs it over the
nodes in floats, ``exact_score`` over one node in Fractions, which the scheduler uses to settle
near-ties exactly. Nodes of equal ``figures`` score the same for any pod (``tie_key``).
"""

from __future__ import annotations

from fractions import Fraction

from kube32.reference.scheduler import framework, resources

NAME = "FreeShare"
EXACT = NAME + ".exact"       # node.derived keys: float and exact coefficients, and the figures
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


def figures(node: framework.NodeInfo) -> tuple[int, ...]:
    """All the score reads of a node: its free and total amount of each term."""
    known = node.derived.get(FIGURES)
    if known is None:
        known = node.derived[FIGURES] = (*(node.free[t] for t in TERMS), *(node.totals[t] for t in TERMS))
    return known


def coefficients(figures: tuple[int, ...], number=float) -> tuple:
    """(score of an empty pod, score lost per unit of each term) for a node of these figures."""
    free, totals = figures[:len(TERMS)], figures[len(TERMS):]
    base = combine([percent(left, total, number) for left, total in zip(free, totals, strict=True)])
    per_unit = []
    for i, total in enumerate(totals):
        unit = [number(0)] * len(TERMS)
        unit[i] = percent(1, total, number)
        per_unit.append(combine(unit))
    return (base, *per_unit)


def evaluate(rows: list[tuple], amounts: tuple[int, ...]) -> list:
    """Each node's score after binding, from its coefficients: the empty-pod score minus what the
    pod's amounts take (one pass per term, so many nodes cost a few tight loops)."""
    out = [row[0] - row[1] * amounts[0] for row in rows]
    for i in range(2, len(amounts) + 1):
        amount = amounts[i - 1]
        out = [score - row[i] * amount for score, row in zip(out, rows, strict=True)]
    return out


class FreeShare:
    NAME = NAME
    READS = (framework.FIELD_RESOURCES,)

    def score_all(self, pod: framework.PodInfo, nodes: list[framework.NodeInfo]) -> list[float]:
        rows = [node.derived.get(NAME) or self._coefficients(node, NAME, float) for node in nodes]
        return evaluate(rows, demand(pod))

    def exact_score(self, pod: framework.PodInfo, node: framework.NodeInfo) -> Fraction:
        return evaluate([self._coefficients(node, EXACT, Fraction)], demand(pod))[0]

    # nodes of equal figures score the same for any pod: the coefficients come from them alone
    tie_key = staticmethod(figures)

    @staticmethod
    def _coefficients(node: framework.NodeInfo, key: str, number) -> tuple:
        coeffs = node.derived.get(key)
        if coeffs is None:
            coeffs = node.derived[key] = coefficients(figures(node), number)
        return coeffs
