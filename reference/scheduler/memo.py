"""Filter verdicts and scores per value of the pod fields the plugins read, redone only for the
nodes that changed.

Every plugin declares the pod fields its verdicts depend on (``READS``); besides those it judges a
node by the node's ``NodeInfo`` alone. Pods that agree on every field the profile's plugins read
(the replicas of a Deployment, a burst of like pods) therefore get the same verdict and score from
a node until the node or its accounting changes. A ``Kept`` holds, for one value of those fields
(``key``), every node's rejection or score; ``sync`` re-runs the plugins only over the nodes the
cache logged as changed since (``SchedulerCache.changes``), or over every node when the set of
nodes moved (``epoch``). A decision then costs a pick over the kept scores instead of a filter and
score pass, and the pick itself is kept until the verdicts change (``outcome``).

A profile with a plugin that does not declare ``READS`` is never memoised (``reads`` is None).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from kube32.reference.scheduler import framework
from kube32.reference.scheduler.ranking import Ranking

T = TypeVar("T")
LIMIT = 64          # keys kept (least recently used ones are dropped)

# evaluate(pod, nodes in name order) -> (rejections, nodes that passed, their scores)
Evaluate = Callable[[framework.PodInfo, list[framework.NodeInfo]],
                    tuple[framework.Rejections, list[framework.NodeInfo], list[float]]]


def reads(plugins: Iterable) -> tuple[tuple[str, ...], ...] | None:
    """Every pod field the plugins read (as split paths), or None when one of them does not say."""
    fields: set[str] = set()
    for plugin in plugins:
        declared = getattr(plugin, "READS", None)
        if declared is None:
            return None
        fields.update(declared)
    return tuple(tuple(field.split(".")) for field in sorted(fields))


def key(pod: framework.PodInfo, fields: tuple[tuple[str, ...], ...]) -> Hashable:
    """What the verdicts for ``pod`` are kept under: the values of exactly ``fields``."""
    return tuple([framework.field_value(pod.pod, field) for field in fields])


class Kept:
    """One key's verdicts: ``rejected`` name -> Status, ``scores`` name -> score of the feasible
    nodes, and the same nodes in a ``Ranking``."""

    __slots__ = ("epoch", "seen", "rejected", "scores", "ranking", "_outcome")

    def __init__(self) -> None:
        self.epoch = -1
        self.seen = 0
        self.rejected: dict[str, framework.Status] = {}
        self.scores: dict[str, float] = {}
        self.ranking = Ranking()
        self._outcome: tuple | None = None

    def sync(self, cache, pod: framework.PodInfo, nodes: list[framework.NodeInfo], evaluate: Evaluate,
             tie_key) -> None:
        """Bring the verdicts up to ``cache`` (whose ``nodes()`` gave ``nodes``)."""
        changes = cache.changes
        if self.epoch == cache.epoch and self.seen == len(changes):
            return
        self._outcome = None
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

    def outcome(self, pick: Callable[[Ranking], T]) -> T:
        """``pick(ranking)`` (the scheduler's choice), remembered until ``sync`` changes the verdicts."""
        if self._outcome is None:
            self._outcome = (pick(self.ranking),)
        return self._outcome[0]


class Memos:
    """Kept verdicts per key, at most ``LIMIT`` of them."""

    def __init__(self) -> None:
        self._by_key: dict[Hashable, Kept] = {}

    def get(self, key: Hashable) -> Kept:
        memo = self._by_key.pop(key, None)
        if memo is None:
            memo = Kept()
            if len(self._by_key) >= LIMIT:
                del self._by_key[next(iter(self._by_key))]
        self._by_key[key] = memo          # most recently used last
        return memo
