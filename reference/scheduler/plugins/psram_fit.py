"""Filter 5: the pod's PSRAM (``esp32.io/psram`` and ``esp.io/psram``, one pool) fits the node.

A shortage is reported under the name the pod used (``Insufficient esp.io/psram`` when it asked
only under the short name). Pods that ask for no PSRAM skip the filter.
"""

from __future__ import annotations

from kube32.reference.scheduler import framework, resources
from kube32.spec import reasons

NAME = "PsramFit"


def need(pod: framework.PodInfo) -> int:
    return pod.amounts[resources.PSRAM]


def reason(pod: framework.PodInfo) -> str:
    return reasons.REASON_INSUFFICIENT.format(resource=pod.psram_name)


class PsramFit(framework.FilterPlugin):
    NAME = NAME
    READS = (framework.FIELD_RESOURCES,)

    def pre_filter(self, pod):
        return None if need(pod) > 0 else framework.SKIP

    def filter_all(self, pod, nodes):
        status = framework.unschedulable(NAME, reason(pod))
        return framework.split_by_free(nodes, resources.PSRAM, need(pod), status)
