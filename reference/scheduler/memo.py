"""Filter verdicts and scores per pod shape, redone only for the nodes that changed.

Every built-in plugin judges a node by the pod's *shape* alone (its nodeName, nodeSelector, counted
amounts and PSRAM name: ``shape``) and by the node's ``NodeInfo``. Pods of one shape (the replicas
of a Deployment, a burst of like pods) therefore get the same verdict and score from a node until
the node or its accounting changes. A ``ShapeMemo`` keeps, for one shape, every node's rejection
or score; ``sync`` re-runs the plugins only over the nodes the cache logged as changed since
(``SchedulerCache.changes``), or over every node when the set of nodes moved (``epoch``). A
decision then costs a pick over the kept scores instead of a filter and score pass.

A profile with a plugin that reads more of the pod (``SHAPE_ONLY`` false) is never memoised.
"""

from __future__ import annotations

from collections.abc import Callable

from kube32.reference.scheduler import framework
from kube32.reference.scheduler.ranking import Ranking

LIMIT = 64          # shapes kept (least recently used ones are dropped)

# evaluate(pod, nodes in name order) -> (rejections, nodes that passed, their scores)
Evaluate = Callable[[framework.PodInfo, list[framework.NodeInfo]],
                    tuple[framework.Rejections, list[framework.NodeInfo], list[float]]]


def shape(pod: framework.PodInfo) -> tuple:
    """What the built-in plugins read of a pod."""
    return (pod.node_name, tuple(sorted(pod.node_selector.items())), tuple(sorted(pod.amounts.items())),
            pod.psram_name)


class ShapeMemo:
    """One shape's verdicts: ``rejected`` name -> Status, ``scores`` name -> score of the feasible
    nodes, and the same nodes in a ``Ranking``."""

    __slots__ = ("epoch", "seen", "rejected", "scores", "ranking")

    def __init__(self) -> None:
        self.epoch = -1
        self.seen = 0
        self.rejected: dict[str, framework.Status] = {}
        self.scores: dict[str, float] = {}
        self.ranking = Ranking()

    def sync(self, cache, pod: framework.PodInfo, nodes: list[framework.NodeInfo], evaluate: Evaluate,
             tie_key) -> None:
        """Bring the verdicts up to ``cache`` (whose ``nodes()`` gave ``nodes``)."""
        changes = cache.changes
        if self.epoch == cache.epoch and self.seen == len(changes):
            return
        full = self.epoch != cache.epoch or len(changes) - self.seen > len(nodes) // 2
        if full:
            self.rejected, self.scores = {}, {}
            todo = nodes
        else:
            names = dict.fromkeys(changes[self.seen:])
            for name in names:
                self.rejected.pop(name, None)
                self.scores.pop(name, None)
                self.ranking.remove(name)
            todo = sorted(filter(None, map(cache.info, names)), key=lambda info: info.name)
        rejections, passed, scores = evaluate(pod, todo)
        for node, status in rejections:
            self.rejected[node.name] = status
        for node, score in zip(passed, scores, strict=True):
            self.scores[node.name] = score
        if full:
            self.ranking = Ranking.of(passed, scores, tie_key)
        else:
            for node, score in zip(passed, scores, strict=True):
                self.ranking.add(node, score, tie_key(node))
        self.epoch, self.seen = cache.epoch, len(changes)


class Memos:
    """ShapeMemo per shape, at most ``LIMIT`` of them."""

    def __init__(self) -> None:
        self._by_shape: dict[tuple, ShapeMemo] = {}

    def get(self, pod: framework.PodInfo) -> ShapeMemo:
        key = shape(pod)
        memo = self._by_shape.pop(key, None)
        if memo is None:
            memo = ShapeMemo()
            if len(self._by_shape) >= LIMIT:
                del self._by_shape[next(iter(self._by_shape))]
        self._by_shape[key] = memo          # most recently used last
        return memo
