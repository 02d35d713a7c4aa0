"""The scheduler's user-facing texts, in kube-scheduler's formats.

FailedScheduling (upstream ``FitError.Error()`` in pkg/scheduler/framework/types.go):
``"0/<all nodes> nodes are available: " + ", ".join(sorted("<count> <reason>")) + "."`` where every
reason of every rejected node counts once for that node, and entries are sorted byte-wise as Go's
``sort.Strings`` does ("10 x" before "2 x", upper case before lower case). With no nodes at all the
text is upstream's ``ErrNoNodesAvailable``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kube32.reference.scheduler import framework
from kube32.spec import reasons


def histogram(statuses: Iterable[framework.Status]) -> Counter[str]:
    """reason -> number of nodes rejected with it."""
    counts: Counter[str] = Counter()
    for status in statuses:
        for reason in dict.fromkeys(status.reasons):
            counts[reason] += 1
    return counts


def sort_entries(entries: Iterable[str]) -> list[str]:
    """Go ``sort.Strings``: byte-wise order of the UTF-8 encodings."""
    return sorted(entries, key=lambda entry: entry.encode("utf-8"))


def fit_error(total_nodes: int, statuses: Iterable[framework.Status]) -> str:
    """The FailedScheduling message for a pod that no node accepted."""
    if total_nodes == 0:
        return no_nodes()
    entries = sort_entries(f"{count} {reason}" for reason, count in histogram(statuses).items())
    return reasons.NO_NODE_AVAILABLE_MSG.format(total=total_nodes) + ": " + ", ".join(entries) + "."


def no_nodes() -> str:
    return reasons.NO_NODES_AVAILABLE


def scheduled(namespace: str, name: str, node: str) -> str:
    """The Normal/Scheduled event text."""
    return reasons.SCHEDULED_MESSAGE.format(namespace=namespace, name=name, node=node)
