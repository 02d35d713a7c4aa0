"""The scheduling profile: filter plugins in the document's order, and the score plugin.

The one place the order lives. ``FILTERS[i]`` is the document's filter i+1.
"""

from __future__ import annotations

import dataclasses

from kube32.reference.scheduler import framework
from kube32.reference.scheduler.plugins import (
    free_share,
    memory_fit,
    node_name,
    node_readiness,
    node_selector,
    peripheral_fit,
    psram_fit,
)

FILTERS = (
    node_readiness.NodeReadiness,   # 1 spec.unschedulable unset, status present, Ready True
    node_name.NodeName,             # 2 nodeName matches
    node_selector.NodeSelector,     # 3 nodeSelector labels
    memory_fit.MemoryFit,           # 4 memory (requests, else limits, else 16 KiB)
    psram_fit.PsramFit,             # 5 PSRAM under either name
    peripheral_fit.PeripheralFit,   # 6 peripheral counts and named buses
)
SCORE = free_share.FreeShare


@dataclasses.dataclass(frozen=True)
class Profile:
    filters: tuple[framework.FilterPlugin, ...]
    score: framework.ScorePlugin


def new_profile() -> Profile:
    """Fresh plugin instances in the documented order."""
    return Profile(filters=tuple(cls() for cls in FILTERS), score=SCORE())
