"""The feasible nodes of one decision grouped by score, so picking the best costs per group.

A group holds the nodes of one float score and one *tie key*: the score plugin's ``tie_key(node)``
promises that nodes of equal keys score the same for any pod, in floats and exactly (FreeShare: the
free and total figures it reads). On a cluster of identical boards nearly every node is in one
group, so settling near-ties exactly (one exact score per group) and breaking the tie by name cost
no more than on a few nodes. A plugin without ``tie_key`` gets one group per node.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable

from kube32.reference.scheduler import framework

Key = tuple[float, Hashable]


def tie_key_of(score) -> object:
    """``score.tie_key``, else a key of the node's own name."""
    return getattr(score, "tie_key", None) or (lambda node: node.name)


class Ranking:
    """Feasible nodes by (score, tie key); ``add``/``remove`` keep it up to date node by node."""

    __slots__ = ("groups", "_where", "_counts")

    def __init__(self) -> None:
        self.groups: dict[Key, dict[str, framework.NodeInfo]] = {}
        self._where: dict[str, Key] = {}
        self._counts: dict[float, int] = {}     # score -> nodes with it

    @classmethod
    def of(cls, nodes: Iterable[framework.NodeInfo], scores: Iterable[float], tie_key) -> Ranking:
        ranking = cls()
        for node, score in zip(nodes, scores, strict=True):
            ranking.add(node, score, tie_key(node))
        return ranking

    def add(self, node: framework.NodeInfo, score: float, key: Hashable) -> None:
        group_key = (score, key)
        group = self.groups.get(group_key)
        if group is None:
            group = self.groups[group_key] = {}
        group[node.name] = node
        self._where[node.name] = group_key
        self._counts[score] = self._counts.get(score, 0) + 1

    def remove(self, name: str) -> None:
        group_key = self._where.pop(name, None)
        if group_key is not None:
            group = self.groups[group_key]
            del group[name]
            if not group:
                del self.groups[group_key]
            left = self._counts.pop(group_key[0]) - 1
            if left:
                self._counts[group_key[0]] = left

    def __len__(self) -> int:
        return len(self._where)

    def at_least(self, floor: float) -> list[tuple[Key, dict[str, framework.NodeInfo]]]:
        """The groups scoring ``floor`` or more."""
        return [(key, group) for key, group in self.groups.items() if key[0] >= floor]

    def best(self) -> float:
        return max(self._counts)

    def top_names(self, count: int) -> list[str]:
        """The ``count`` names of highest float score, equal scores by name."""
        if len(self._where) <= count:
            return list(self._where)
        seen = 0
        for cut in heapq.nlargest(count, self._counts):     # each score has a node: enough scores
            seen += self._counts[cut]
            if seen >= count:
                break
        above: list[str] = []
        at: list[str] = []
        for (score, _), group in self.groups.items():
            if score > cut:
                above.extend(group)
            elif score == cut:
                at.extend(group)
        return above + heapq.nsmallest(count - len(above), at)
