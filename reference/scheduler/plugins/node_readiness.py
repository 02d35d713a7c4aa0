"""Filter 1: the node is schedulable, has reported status, and is Ready.

Upstream splits this between NodeUnschedulable (``node(s) were unschedulable``; a node it cannot
judge is ``node(s) had unknown conditions``) and the not-ready taint; kube32 reports a Ready
condition that is not True as ``node(s) were not ready`` (catalogue: SCHED-FILTER-READY).
The verdict depends only on the node object, so it is memoised per node resourceVersion.
"""

from __future__ import annotations

from kube32.reference.machinery.conditions import ready_condition
from kube32.reference.scheduler import framework
from kube32.spec import reasons

NAME = "NodeReadiness"
REASON_UNSCHEDULABLE = reasons.REASON_UNSCHEDULABLE
REASON_UNKNOWN_CONDITION = reasons.REASON_UNKNOWN_CONDITION
REASON_NOT_READY = reasons.REASON_NOT_READY


def check(node: dict) -> framework.Status | None:
    """The three checks of filter 1, in the document's order."""
    if (node.get("spec") or {}).get("unschedulable"):
        return framework.unresolvable(NAME, REASON_UNSCHEDULABLE)
    condition = ready_condition(node)
    if condition is None:
        return framework.unresolvable(NAME, REASON_UNKNOWN_CONDITION)
    if condition.get("status") != "True":
        return framework.unresolvable(NAME, REASON_NOT_READY)
    return None


class NodeReadiness(framework.FilterPlugin):
    NAME = NAME
    READS = ()

    def filter_all(self, pod, nodes):
        passed, rejected = [], []
        for node in nodes:
            memo = node.memo
            if NAME in memo:
                verdict = memo[NAME]
            else:
                verdict = memo[NAME] = check(node.node)
            if verdict is None:
                passed.append(node)
            else:
                rejected.append((node, verdict))
        return passed, rejected
