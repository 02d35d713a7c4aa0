"""The scheduling framework in miniature (after kube-scheduler's ``framework/interface.go``).

- ``Status``: a plugin's verdict. ``None`` means success; a rejection carries a ``Code`` and the
  exact upstream reason strings, and names the plugin that gave it.
- ``PodInfo`` / ``NodeInfo``: what plugins read. Both are precomputed (quantities parsed once per
  object write) so a decision over many nodes does no parsing.
- ``FilterPlugin`` / ``ScorePlugin``: one small protocol per extension point. ``pre_filter`` may
  answer ``SKIP`` when the pod has nothing for the filter to check (upstream's PreFilter Skip).
  Each plugin declares in ``READS`` the pod fields its verdicts depend on (``field_value``); the
  scheduler keeps verdicts per value of exactly those fields (``memo``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Hashable
from typing import Protocol

from kube32.reference.scheduler import resources


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


# the pod fields PodInfo's parsed attributes come from, as plugins name them in READS
FIELD_NODE_NAME = "spec.nodeName"                   # node_name
FIELD_NODE_SELECTOR = "spec.nodeSelector"           # node_selector
FIELD_RESOURCES = "spec.containers.resources"       # amounts, psram_name (resources.pod_amounts)


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
    def of(cls, pod: dict, amounts: tuple[dict[str, int], str] | None = None) -> PodInfo:
        """``amounts``: ``resources.pod_amounts(pod)`` when the caller has it."""
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        amounts, psram_name = amounts or resources.pod_amounts(pod)
        return cls(pod=pod, namespace=meta.get("namespace", ""), name=meta.get("name", ""),
                   node_name=spec.get("nodeName") or "",
                   node_selector={str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()},
                   amounts=amounts, psram_name=psram_name)


@dataclasses.dataclass(eq=False)
class NodeInfo:
    """A node as the plugins see it, rebuilt once per node resourceVersion.

    ``figures`` is what the node offers (allocatable, else capacity); ``accounted`` what the
    scheduler still subtracts for bound pods the kubelet's report does not include yet, and
    ``free`` the difference (both refreshed by the cache when the node's pods change, through
    ``account``). ``memo`` holds per-plugin results that depend only on the node object;
    ``derived`` those that also depend on the accounting (cleared by ``account``).
    """

    name: str
    node: dict
    resource_version: int
    labels: dict[str, str]
    figures: dict[str, int]
    totals: dict[str, int]
    accounted: dict[str, int] = dataclasses.field(default_factory=resources.zero)
    free: dict[str, int] = dataclasses.field(default_factory=dict)
    memo: dict[str, object] = dataclasses.field(default_factory=dict)
    derived: dict[str, object] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self.account(self.accounted)

    @classmethod
    def of(cls, node: dict) -> NodeInfo:
        meta = node.get("metadata") or {}
        return cls(name=meta.get("name", ""), node=node,
                   resource_version=int(meta.get("resourceVersion") or 0),
                   labels={str(k): str(v) for k, v in (meta.get("labels") or {}).items()},
                   figures=resources.node_figures(node), totals=resources.node_totals(node))

    def account(self, accounted: dict[str, int]) -> None:
        """Set what is still subtracted for bound pods; ``free`` follows."""
        self.accounted = accounted
        self.free = {name: self.figures[name] - accounted.get(name, 0) for name in self.figures}
        self.derived = {}


Rejections = list[tuple[NodeInfo, Status]]


def split_by_free(nodes: list[NodeInfo], key: str, amount: int,
                  status: Status) -> tuple[list[NodeInfo], Rejections]:
    """The nodes with at least ``amount`` of ``key`` free, and the others rejected with ``status``."""
    passed: list[NodeInfo] = []
    rejected: Rejections = []
    for node in nodes:
        if amount <= node.free[key]:
            passed.append(node)
        else:
            rejected.append((node, status))
    return passed, rejected


def field_value(pod: object, path: str | tuple[str, ...]) -> Hashable:
    """The value of one pod field named in ``READS``, as a hashable key. ``path`` is dotted
    (``spec.nodeSelector``; or split already); through a list it reads every element
    (``spec.containers.resources`` is each container's resources). Equal keys mean equal fields:
    dicts keep their key order and numbers their type (``1``, ``1.0`` and ``True`` differ)."""
    parts = path.split(".") if type(path) is str else path
    value = pod
    for i, part in enumerate(parts):
        if type(value) is dict:
            value = value.get(part)
        elif type(value) is list:
            return ("each", *[field_value(item, parts[i:]) for item in value])
        else:
            return ("not an object", _frozen(value))
    return value if value is None or type(value) is str else _frozen(value)


def _frozen(value: object) -> Hashable:
    kind = type(value)
    if kind is str or value is None:
        return value
    if kind is dict:
        return tuple([(k, v if type(v) is str else _frozen(v)) for k, v in value.items()])
    if kind is list:
        return ("list", *map(_frozen, value))
    return (kind.__name__, value)


class FilterPlugin:
    """A filter. Subclasses implement ``filter_all`` (the whole candidate list at once, so a
    decision over many nodes runs as a few tight loops) and may override ``pre_filter``."""

    NAME = ""
    # the pod fields (``field_value`` paths) the verdicts depend on besides the NodeInfo; None: not
    # declared (the plugin may read anything of the pod, so no verdict is kept for another pod)
    READS: tuple[str, ...] | None = None

    def pre_filter(self, pod: PodInfo) -> Status | None:
        """``SKIP`` when the pod gives this filter nothing to check; otherwise None."""
        return None

    def filter_all(self, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[list[NodeInfo], Rejections]:
        """(the nodes that can take the pod, [(node, rejection)] for the others), order kept."""
        raise NotImplementedError

    def filter(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        """One node: None when it can take the pod, else the rejection."""
        if self.pre_filter(pod) is SKIP:
            return None
        _, rejected = self.filter_all(pod, [node])
        return rejected[0][1] if rejected else None


class ScorePlugin(Protocol):
    NAME: str
    READS: tuple[str, ...] | None      # as FilterPlugin's

    def score_all(self, pod: PodInfo, nodes: list[NodeInfo]) -> list[float]:
        """One score per node (higher is better); only nodes that passed every filter."""

    def exact_score(self, pod: PodInfo, node: NodeInfo) -> object:
        """The same score as an exact number, used to settle near-ties. A plugin may also offer
        ``tie_key(node)``: nodes of equal keys score the same for any pod (``ranking``)."""
