"""Filter 5: the pod's PSRAM (``esp32.io/psram`` and ``esp.io/psram``, one pool) fits the node.

A shortage is reported under the name the pod used (``Insufficient esp.io/psram`` when it asked
only under the short name). Pods that ask for no PSRAM skip the filter.
"""

from __future__ import annotations

from reference.scheduler import framework, resources
from reference.scheduler.plugins import memory_fit
from spec import reasons

NAME = "PsramFit"


def reason(name: str) -> str:
    return reasons.REASON_INSUFFICIENT.format(resource=name)


class PsramFit:
    NAME = NAME

    def pre_filter(self, pod: framework.PodInfo) -> framework.Status | None:
        return None if pod.amounts[resources.PSRAM] > 0 else framework.SKIP

    def filter(self, pod: framework.PodInfo, node: framework.NodeInfo) -> framework.Status | None:
        if not memory_fit.fits(pod.amounts[resources.PSRAM], node.free(resources.PSRAM)):
            return framework.unschedulable(NAME, reason(pod.psram_name))
        return None
