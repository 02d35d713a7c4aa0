"""Filter 4: the pod's memory fits what is left of the node's allocatable memory.

The pod's memory (requests, else limits, else the 16 KiB default) is worked out once per pod in
``resources.pod_memory``; what is left is ``NodeInfo.free`` (the node's figure minus what the
cache still accounts for bound pods the kubelet has not reported yet). A pod needing 0 always
fits, as upstream, so it skips the filter.
"""

from __future__ import annotations

from kube32.reference.scheduler import framework, resources
from kube32.spec import reasons

NAME = "MemoryFit"
REASON = reasons.REASON_INSUFFICIENT.format(resource=resources.MEMORY)


def need(pod: framework.PodInfo) -> int:
    return pod.amounts[resources.MEMORY]


class MemoryFit(framework.FilterPlugin):
    NAME = NAME
    READS = (framework.FIELD_RESOURCES,)

    def pre_filter(self, pod):
        return None if need(pod) > 0 else framework.SKIP

    def filter_all(self, pod, nodes):
        status = framework.unschedulable(NAME, REASON)
        return framework.split_by_free(nodes, resources.MEMORY, need(pod), status)
