"""The feasible nodes of one decision grouped by score, so picking the best costs per group.

A group holds the nodes of one float score and one *tie key*: the score plugin's ``tie_key(node)``
promises that nodes of equal keys score the same for any pod, in floats and exactly (FreeShare: the
free and total figures it reads). On a cluster of identical boards nearly every node is in one
group, so settling near-ties exactly costs one exact score per group, not per node. A plugin
without ``tie_key`` gets one group per node. The ranking only remembers: which of the best nodes
wins is ``Scheduler.select_host``'s rule alone, and it is handed every node of the best groups.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import operator
from collections.abc import Hashable, Iterable

from kube32.reference.scheduler import framework

Key = tuple[float, Hashable]


def tie_key_of(score) -> object:
    """``score.tie_key``, else a key of the node's own name."""
    return getattr(score, "tie_key", None) or (lambda node: node.name)


class Ranking:
    """Feasible nodes by (score, tie key); ``add``/``remove`` keep it up to date node by node. The
    groups are kept in score order, so the best score and the groups near it cost O(log n) plus
    what is returned, not a pass over every node (1,000 identical boards are one group)."""

    __slots__ = ("groups", "exact", "_where", "_names", "_keys", "_counts")

    def __init__(self) -> None:
        self.groups: dict[Key, dict[str, framework.NodeInfo]] = {}
        # a group's exact score for the pods the ranking is kept for (Scheduler.select_host)
        self.exact: dict[Key, object] = {}
        self._where: dict[str, Key] = {}
        self._names: dict[Key, list[str]] = {}      # a group's names, sorted once top_names asks
        self._keys: list[Key] = []                  # the groups' keys, ascending by score
        self._counts: dict[float, int] = {}         # score -> nodes with it

    @classmethod
    def of(cls, nodes: Iterable[framework.NodeInfo], scores: Iterable[float], tie_key) -> Ranking:
        """Every node placed at once: the groups filled in one loop and their keys sorted once (what
        ``add`` node by node would give; test_sched_memo checks both against a scan)."""
        ranking = cls()
        groups, where, counts = ranking.groups, ranking._where, ranking._counts
        for node, score in zip(nodes, scores, strict=True):
            group_key = (score, tie_key(node))
            group = groups.get(group_key)
            if group is None:
                group = groups[group_key] = {}
            name = node.name
            group[name] = node
            where[name] = group_key
            counts[score] = counts.get(score, 0) + 1
        ranking._keys = sorted(groups, key=_score)
        return ranking

    def add(self, node: framework.NodeInfo, score: float, key: Hashable) -> None:
        group_key = (score, key)
        group = self.groups.get(group_key)
        if group is None:
            group = self.groups[group_key] = {}
            bisect.insort(self._keys, group_key, key=_score)
        name = node.name
        group[name] = node
        names = self._names.get(group_key)
        if names is not None:
            bisect.insort(names, name)
        self._where[name] = group_key
        self._counts[score] = self._counts.get(score, 0) + 1

    def remove(self, name: str) -> None:
        group_key = self._where.pop(name, None)
        if group_key is None:
            return
        group = self.groups[group_key]
        del group[name]
        names = self._names.get(group_key)
        if names is not None:
            del names[bisect.bisect_left(names, name)]
        score = group_key[0]
        if not group:
            del self.groups[group_key]
            self._names.pop(group_key, None)
            self.exact.pop(group_key, None)
            keys = self._keys
            del keys[keys.index(group_key, bisect.bisect_left(keys, score, key=_score))]
        left = self._counts.pop(score) - 1
        if left:
            self._counts[score] = left

    def __len__(self) -> int:
        return len(self._where)

    def at_least(self, floor: float) -> list[tuple[Key, dict[str, framework.NodeInfo]]]:
        """The groups scoring ``floor`` or more, each with every one of its nodes by name."""
        keys = self._keys
        return [(key, self.groups[key]) for key in keys[bisect.bisect_left(keys, floor, key=_score):]]

    def _sorted(self, key: Key) -> list[str]:
        names = self._names.get(key)
        if names is None:
            names = self._names[key] = sorted(self.groups[key])
        return names

    def best(self) -> float:
        return self._keys[-1][0]

    def top_names(self, count: int) -> list[str]:
        """The ``count`` names of highest float score, equal scores cut by name: the nodes the
        decision annotation lists (which node wins is ``select_host``'s rule, not this order)."""
        if len(self._where) <= count:
            return list(self._where)
        out: list[str] = []
        keys, end = self._keys, len(self._keys)
        while end:
            score = keys[end - 1][0]
            start = bisect.bisect_left(keys, score, 0, end, key=_score)
            at, end = keys[start:end], start
            left = count - len(out)
            if self._counts[score] <= left:
                for key in at:
                    out.extend(self.groups[key])
                if len(out) == count:
                    return out
            else:          # the cut: the first names of the groups at this score
                return out + list(itertools.islice(heapq.merge(*(self._sorted(key)[:left] for key in at)), left))
        return out


_score = operator.itemgetter(0)

