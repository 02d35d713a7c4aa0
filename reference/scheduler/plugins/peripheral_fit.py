"""Filter 6: peripheral counts (gpio, i2c, uart, adc, rmt-tx, rmt-rx) fit the node.

Named buses were already folded into their counts by ``resources.pod_counts``. Every short count
is reported (``Insufficient esp32.io/i2c``, ...), in the document's resource order, as upstream's
resource-fit plugin reports every insufficient resource.
"""

from __future__ import annotations

from reference.scheduler import framework
from reference.scheduler.plugins import memory_fit
from spec import constants, reasons

NAME = "PeripheralFit"
RESOURCES = constants.PERIPHERAL_RESOURCES


def reason(name: str) -> str:
    return reasons.REASON_INSUFFICIENT.format(resource=name)


def shortages(pod: framework.PodInfo, node: framework.NodeInfo) -> list[str]:
    """The peripheral resources the node cannot supply, in document order."""
    return [name for name in RESOURCES
            if not memory_fit.fits(pod.amounts[name], node.free(name))]


class PeripheralFit:
    NAME = NAME

    def pre_filter(self, pod: framework.PodInfo) -> framework.Status | None:
        return None if any(pod.amounts[name] > 0 for name in RESOURCES) else framework.SKIP

    def filter(self, pod: framework.PodInfo, node: framework.NodeInfo) -> framework.Status | None:
        short = shortages(pod, node)
        if short:
            return framework.unschedulable(NAME, *(reason(name) for name in short))
        return None
