"""The scheduling framework in miniature (after kube-scheduler's ``framework/interface.go``).

- ``Status``: a plugin's verdict. ``None`` means success; a rejection carries a ``Code`` and the
  exact upstream reason strings, and names the plugin that gave it.
- ``PodInfo`` / ``NodeInfo``: what plugins read. Both are precomputed (quantities parsed once per
  object write) so a decision over many nodes does no parsing.
- ``FilterPlugin`` / ``ScorePlugin``: one small protocol per extension point. ``pre_filter`` may
  answer ``SKIP`` when the pod has nothing for the filter to check (upstream's PreFilter Skip).
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Protocol

from reference.scheduler import resources


class Code(enum.Enum):
    SUCCESS = "Success"
    UNSCHEDULABLE = "Unschedulable"                                   # more room may help
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"   # it won't
    SKIP = "Skip"                                                     # pre_filter: nothing to check


@dataclasses.dataclass(frozen=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    def message(self) -> str:
        return ", ".join(self.reasons)

    def is_rejection(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


SKIP = Status(Code.SKIP)


def unschedulable(plugin: str, *reasons: str) -> Status:
    """A rejection that more free resources could lift."""
    return Status(Code.UNSCHEDULABLE, tuple(reasons), plugin)


def unresolvable(plugin: str, *reasons: str) -> Status:
    """A rejection no change in resources can lift (labels, readiness, names)."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons), plugin)


@dataclasses.dataclass(frozen=True)
class PodInfo:
    """A pod as the plugins see it: identity, selector and its counted amounts."""

    pod: dict
    namespace: str
    name: str
    node_name: str
    node_selector: dict[str, str]
    amounts: dict[str, int]
    psram_name: str

    @classmethod
    def of(cls, pod: dict) -> PodInfo:
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        amounts, psram_name = resources.pod_amounts(pod)
        return cls(pod=pod, namespace=meta.get("namespace", ""), name=meta.get("name", ""),
                   node_name=spec.get("nodeName") or "",
                   node_selector={str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()},
                   amounts=amounts, psram_name=psram_name)


@dataclasses.dataclass(eq=False)
class NodeInfo:
    """A node as the plugins see it, rebuilt once per node resourceVersion.

    ``figures`` is what the node offers (allocatable, else capacity); ``accounted`` what the
    scheduler still subtracts for bound pods the kubelet's report does not include yet (refreshed
    by the cache when the node's pods change); ``memo`` holds per-plugin results that depend only
    on the node object.
    """

    name: str
    node: dict
    resource_version: int
    labels: dict[str, str]
    figures: dict[str, int]
    totals: dict[str, int]
    accounted: dict[str, int] = dataclasses.field(default_factory=resources.zero)
    memo: dict[str, object] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, node: dict) -> NodeInfo:
        meta = node.get("metadata") or {}
        return cls(name=meta.get("name", ""), node=node,
                   resource_version=int(meta.get("resourceVersion") or 0),
                   labels={str(k): str(v) for k, v in (meta.get("labels") or {}).items()},
                   figures=resources.node_figures(node), totals=resources.node_totals(node))

    def free(self, resource: str) -> int:
        """What is left of ``resource`` for a new pod."""
        return self.figures[resource] - self.accounted[resource]


class FilterPlugin(Protocol):
    NAME: str

    def pre_filter(self, pod: PodInfo) -> Status | None:
        """``SKIP`` when the pod gives this filter nothing to check; otherwise None."""

    def filter(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        """None when the node can take the pod; otherwise a rejection naming the reasons."""


class ScorePlugin(Protocol):
    NAME: str

    def score(self, pod: PodInfo, node: NodeInfo) -> float:
        """Higher is better; only called for nodes that passed every filter."""

    def exact_score(self, pod: PodInfo, node: NodeInfo) -> object:
        """The same score as an exact number, used to decide near-ties."""
