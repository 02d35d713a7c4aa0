"""Filter 4: the pod's memory fits what is left of the node's allocatable memory.

The pod's memory (requests, else limits, else the 16 KiB default) is worked out once in
``resources.pod_memory``; "left" is the node's figure minus what the cache still accounts for
bound pods the kubelet has not reported yet. A pod needing 0 always fits (as upstream).
"""

from __future__ import annotations

from reference.scheduler import framework, resources
from spec import reasons

NAME = "MemoryFit"
REASON = reasons.REASON_INSUFFICIENT.format(resource=resources.MEMORY)


def fits(need: int, free: int) -> bool:
    return need <= 0 or need <= free


class MemoryFit:
    NAME = NAME

    def pre_filter(self, pod: framework.PodInfo) -> framework.Status | None:
        return None

    def filter(self, pod: framework.PodInfo, node: framework.NodeInfo) -> framework.Status | None:
        if not fits(pod.amounts[resources.MEMORY], node.free(resources.MEMORY)):
            return framework.unschedulable(NAME, REASON)
        return None
