"""Filter 3: every ``spec.nodeSelector`` label is on the node with exactly that value.

Node affinity is ignored by kube32; the reason string is upstream NodeAffinity's, which also
covers nodeSelector there.
"""

from __future__ import annotations

from reference.scheduler import framework
from spec import reasons

NAME = "NodeSelector"
REASON = reasons.REASON_NODE_SELECTOR


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """True when the node carries every selector key with the same value."""
    return all(labels.get(key) == value for key, value in selector.items())


class NodeSelector:
    NAME = NAME

    def pre_filter(self, pod: framework.PodInfo) -> framework.Status | None:
        return None if pod.node_selector else framework.SKIP

    def filter(self, pod: framework.PodInfo, node: framework.NodeInfo) -> framework.Status | None:
        if not matches(pod.node_selector, node.labels):
            return framework.unresolvable(NAME, REASON)
        return None
