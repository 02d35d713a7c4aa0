"""Filter 6: peripheral counts (gpio, i2c, uart, adc, rmt-tx, rmt-rx) fit the node.

Named buses were already folded into their counts by ``resources.pod_counts``. Every short count
is reported (``Insufficient esp32.io/i2c``, ...), in the document's resource order, as upstream's
resource-fit plugin reports every insufficient resource. Counts of 0 always fit.
"""

from __future__ import annotations

from kube32.reference.scheduler import framework
from kube32.spec import constants, reasons

NAME = "PeripheralFit"
RESOURCES = constants.PERIPHERAL_RESOURCES


def reason(name: str) -> str:
    return reasons.REASON_INSUFFICIENT.format(resource=name)


def needs(pod: framework.PodInfo) -> list[tuple[str, int]]:
    """(resource, count) for every peripheral the pod asks for, in document order."""
    return [(name, pod.amounts[name]) for name in RESOURCES if pod.amounts[name] > 0]


class PeripheralFit(framework.FilterPlugin):
    NAME = NAME
    READS = (framework.FIELD_RESOURCES,)

    def pre_filter(self, pod):
        return None if needs(pod) else framework.SKIP

    def filter_all(self, pod, nodes):
        wanted = needs(pod)
        passed, rejected = [], []
        for node in nodes:
            free = node.free
            for name, count in wanted:
                if count > free[name]:
                    break
            else:
                passed.append(node)
                continue
            short = [name for name, count in wanted if count > free[name]]
            rejected.append((node, framework.unschedulable(NAME, *(reason(n) for n in short))))
        return passed, rejected
