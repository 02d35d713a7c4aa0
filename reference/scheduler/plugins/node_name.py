"""Filter 2: a pod that names a node only fits that node.

Pods created with ``spec.nodeName`` never reach the scheduler (they skip it), so in practice this
filter has nothing to check; it is kept so the filter list matches the document, and so a pod that
somehow reaches the scheduler with a node name can never be moved elsewhere.
"""

from __future__ import annotations

from kube32.reference.scheduler import framework
from kube32.spec import reasons

NAME = "NodeName"
REASON = reasons.REASON_NODE_NAME


class NodeName(framework.FilterPlugin):
    NAME = NAME
    READS = (framework.FIELD_NODE_NAME,)

    def pre_filter(self, pod):
        return None if pod.node_name else framework.SKIP

    def filter_all(self, pod, nodes):
        status = framework.unresolvable(NAME, REASON)
        passed = [node for node in nodes if node.name == pod.node_name]
        return passed, [(node, status) for node in nodes if node.name != pod.node_name]
