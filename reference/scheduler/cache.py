"""The scheduler's cache: NodeInfo per node resourceVersion and an index of bound pods by node.

Fed by the store's write listener (every create, update and delete passes through it) and seeded
from the store at start, so it always mirrors the store: a decision reads it instead of scanning
every pod for every node or re-parsing quantities. Work is lazy: a node write marks that node for
rebuild, a pod write marks its node's accounting for recomputation; ``nodes()`` settles both.
``nodes()`` also logs the name of every node it rebuilt or re-accounted (``changes``), so what was
worked out per node for a pod (``scheduler.memo``) is redone only for those; ``epoch`` moves when
the set of nodes changes or the log is cut, and then everything is redone. Callers hold ``store.lock``.
"""

from __future__ import annotations

from kube32.reference.scheduler import accounting, framework, resources

AMOUNTS_KEPT = 4096      # pod_amounts results kept, per requests_key


class _Bound:
    """A pod bound to a node and its amounts (computed once per pod write)."""

    __slots__ = ("pod", "_amounts", "_of")

    def __init__(self, pod: dict, of) -> None:
        self.pod, self._of = pod, of
        self._amounts: dict[str, int] | None = None

    @property
    def amounts(self) -> dict[str, int]:
        if self._amounts is None:
            self._amounts = self._of(self.pod)[0]
        return self._amounts


def _pod_key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class SchedulerCache:
    def __init__(self, store) -> None:
        self.store = store
        self._infos: dict[str, framework.NodeInfo] = {}
        self._order: list[framework.NodeInfo] | None = None
        self._stale_nodes: set[str] = set()
        self._stale_usage: set[str] = set()
        self._bound: dict[str, dict[str, _Bound]] = {}   # node name -> pod key -> pod
        self._node_of: dict[str, str] = {}                # pod key -> node name
        self.version = 0      # moves whenever a node or the pods bound to one change
        self.changes: list[str] = []   # nodes rebuilt or re-accounted by nodes(), oldest first
        self.epoch = 0                 # moves when the set of nodes changes or ``changes`` is cut
        self._amounts: dict[tuple, tuple[dict[str, int], str]] = {}    # requests_key -> pod_amounts
        with store.lock:
            for node in store.head.list("nodes"):
                self._stale_nodes.add(node["metadata"]["name"])
            for pod in store.head.list("pods"):
                self._observe_pod("ADDED", pod)
            store.listeners.append(self.observe)

    # -- store events ---------------------------------------------------------------------
    def observe(self, kind: str, res: str, obj: dict) -> None:
        if res == "nodes":
            self._stale_nodes.add(obj["metadata"]["name"])
            self.version += 1
        elif res == "pods":
            self._observe_pod(kind, obj)

    def _observe_pod(self, kind: str, pod: dict) -> None:
        key = _pod_key(pod)
        old = self._node_of.pop(key, None)
        if old is not None:
            self._bound.get(old, {}).pop(key, None)
            self._stale_usage.add(old)
            self.version += 1
        node = (pod.get("spec") or {}).get("nodeName")
        if kind != "DELETED" and node:
            self._bound.setdefault(node, {})[key] = _Bound(pod, self.pod_amounts)
            self._node_of[key] = node
            self._stale_usage.add(node)
            self.version += 1

    # -- reads ----------------------------------------------------------------------------
    def pod_amounts(self, pod: dict) -> tuple[dict[str, int], str]:
        """``resources.pod_amounts``, worked out once per ``requests_key`` (the replicas of one
        template, a pod and its binding) while the cache lives."""
        key = resources.requests_key(pod)
        try:
            known = self._amounts.get(key) if key is not None else None
        except TypeError:           # a value JSON allows but a key cannot hold: not kept
            key = known = None
        if known is not None:
            return dict(known[0]), known[1]
        amounts, psram_name = resources.pod_amounts(pod)
        if key is not None:
            if len(self._amounts) >= AMOUNTS_KEPT:
                self._amounts.clear()
            self._amounts[key] = (dict(amounts), psram_name)
        return amounts, psram_name

    def bound_to(self, node: str) -> list[dict]:
        """The pods bound to ``node`` (read-only snapshots)."""
        return [b.pod for b in self._bound.get(node, {}).values()]

    def nodes(self) -> list[framework.NodeInfo]:
        """Every node as a NodeInfo, sorted by name, with up-to-date accounting."""
        if self._stale_nodes:
            count = len(self._infos)
            for name in self._stale_nodes:
                node = self.store.head.peek("nodes", "", name)
                if node is None:
                    if self._infos.pop(name, None) is not None:
                        count = -1          # a node left
                else:
                    self._infos[name] = framework.NodeInfo.of(node)
                    self._stale_usage.add(name)
            if count != len(self._infos):
                self.epoch += 1
            self._stale_nodes.clear()
            self._order = None
        if self._stale_usage:
            for name in self._stale_usage:
                info = self._infos.get(name)
                if info is not None:
                    bound = ((b.pod, b.amounts) for b in self._bound.get(name, {}).values())
                    info.account(accounting.usage(bound, info.resource_version))
                    self.changes.append(name)
            self._stale_usage.clear()
            if len(self.changes) > 2 * len(self._infos) + 256:
                self.changes.clear()
                self.epoch += 1
        if self._order is None:
            self._order = sorted(self._infos.values(), key=lambda info: info.name)
        return self._order

    def info(self, name: str) -> framework.NodeInfo | None:
        """One node's NodeInfo as of the last ``nodes()``."""
        return self._infos.get(name)
