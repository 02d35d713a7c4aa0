"""Filter 3: every ``spec.nodeSelector`` label is on the node with exactly that value.

Node affinity is ignored by kube32; the reason string is upstream NodeAffinity's, which also
covers nodeSelector there. Pods without a nodeSelector skip the filter.
"""

from __future__ import annotations

from kube32.reference.scheduler import framework
from kube32.spec import reasons

NAME = "NodeSelector"
REASON = reasons.REASON_NODE_SELECTOR


def required(pod: framework.PodInfo) -> tuple[tuple[str, str], ...]:
    """The (key, value) pairs a node must carry."""
    return tuple(pod.node_selector.items())


class NodeSelector(framework.FilterPlugin):
    NAME = NAME
    READS = (framework.FIELD_NODE_SELECTOR,)

    def pre_filter(self, pod):
        return None if required(pod) else framework.SKIP

    def filter_all(self, pod, nodes):
        pairs = required(pod)
        status = framework.unresolvable(NAME, REASON)
        passed, rejected = [], []
        for node in nodes:
            labels = node.labels
            for key, value in pairs:
                if labels.get(key) != value:
                    rejected.append((node, status))
                    break
            else:
                passed.append(node)
        return passed, rejected
