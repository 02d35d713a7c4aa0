"""Score: the mean of the node's free-memory and free-GPIO percentages after binding the pod.

free % = 100 x (figure - accounted - the pod's amount) / total, where total is the node's capacity
(else allocatable) of that resource. A node whose total is 0 scores 0 % on that term (catalogue:
SCHED-SCORE-NO-GPIO). ``score`` ranks in floats; ``exact_score`` computes the same formula in
Fractions, which the scheduler uses to settle near-ties exactly.
"""

from __future__ import annotations

from fractions import Fraction

from reference.scheduler import framework, resources

NAME = "FreeShare"
TERMS = (resources.MEMORY, resources.GPIO)


def free_after(pod: framework.PodInfo, node: framework.NodeInfo, resource: str) -> int:
    """What would be left of ``resource`` on the node once the pod is bound there."""
    return node.free(resource) - pod.amounts[resource]


def percent(left, total: int):
    """``left`` as a percentage of ``total`` (0 when the node has none at all)."""
    return 100 * left / total if total > 0 else 0 * left


def combine(percentages: list):
    """The two terms' mean."""
    return sum(percentages) / len(percentages)


def node_score(pod: framework.PodInfo, node: framework.NodeInfo, number=float):
    return combine([percent(number(free_after(pod, node, r)), node.totals[r]) for r in TERMS])


class FreeShare:
    NAME = NAME

    def score(self, pod: framework.PodInfo, node: framework.NodeInfo) -> float:
        return node_score(pod, node, float)

    def exact_score(self, pod: framework.PodInfo, node: framework.NodeInfo) -> Fraction:
        return node_score(pod, node, Fraction)
