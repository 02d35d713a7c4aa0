"""The scheduler: filter every node in the documented order, score the survivors, bind or report.

``Scheduler.schedule(pod)`` is called by the API server inside a pod's create request (so the
response already names the node); ``ReconcileLoop`` retries every unbound pod each reconcile
interval. A binding sets ``spec.nodeName``, PodScheduled=True, a Normal ``Scheduled`` event and
the ``scheduler.kube32.io/decision`` annotation (per-node filter verdicts and scores, like
kube-scheduler-simulator's result annotations). A failure leaves the pod Pending with
PodScheduled=False/Unschedulable and a Warning ``FailedScheduling`` event in kube-scheduler's format.

A retry pass takes the store lock per pod, not for the whole pass, and a pod that failed before is
decided again only when it or the nodes (or what is bound to them) changed since; otherwise only its
FailedScheduling event is counted again (as upstream's retries do), and the pod is not rewritten.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections.abc import Iterable

from kube32.reference.machinery import encoding
from kube32.reference.scheduler import accounting, framework, memo, messages, ranking, registry
from kube32.reference.scheduler.cache import SchedulerCache
from kube32.spec import reasons, timefmt

ANNOTATION_DECISION = "scheduler.kube32.io/decision"
NEAR_TIE = 1e-9     # float scores this close are compared exactly
EXPLAIN_NODES = 10  # per-node verdicts the decision annotation lists (best-scoring, and rejected)


@dataclasses.dataclass
class Decision:
    """The outcome of one scheduling attempt."""

    node: str | None
    total_nodes: int
    rejected: dict[str, framework.Status]
    scores: dict[str, float]        # feasible node name -> score
    best: list[str]                 # the EXPLAIN_NODES best-scoring feasible nodes (Ranking.top_names)

    @property
    def message(self) -> str:
        return messages.fit_error(self.total_nodes, self.rejected.values())

    def explain(self) -> dict:
        """The annotation's content: the chosen node, how many nodes each filter rejected, and the
        verdicts of at most EXPLAIN_NODES best-scoring and EXPLAIN_NODES rejected nodes by name (an
        annotation listing every node of a large cluster would outweigh the pod itself)."""
        scores = self.scores
        rejected = heapq.nsmallest(EXPLAIN_NODES, self.rejected)
        nodes: dict[str, dict] = {}
        for name in sorted({*self.best, *rejected}):
            status = self.rejected.get(name)
            if status is not None:
                nodes[name] = {"filter": status.plugin, "reasons": list(status.reasons)}
            else:
                nodes[name] = {"score": round(scores[name], 4)}
        by_plugin: dict[str, int] = {}
        for status in self.rejected.values():
            by_plugin[status.plugin] = by_plugin.get(status.plugin, 0) + 1
        out: dict = {"node": self.node, "feasible": len(scores), "rejectedBy": dict(sorted(by_plugin.items()))}
        if self.node is None:
            out["message"] = self.message
        out["nodes"] = nodes
        omitted = len(scores) + len(self.rejected) - len(nodes)
        if omitted:
            out["omitted"] = omitted
        return out


def tie_break(names: Iterable[str]) -> str:
    """SCHED-TIE-BREAK: of the nodes of equal best score, the alphabetically (byte-wise) first name.
    (Python orders strings by code point, which is the byte-wise order of their UTF-8 encodings.)"""
    return min(names)


def _draft(stored: dict) -> dict:
    """What a decision writes (metadata.annotations, spec, status) copied one level deep for
    editing; everything else is shared with the stored pod (the store never changes a stored object
    in place and keeps a copy of what it is given)."""
    pod = dict(stored)
    meta = pod["metadata"] = dict(stored["metadata"])
    meta["annotations"] = dict(meta.get("annotations") or {})
    if isinstance(stored.get("spec"), dict):
        pod["spec"] = dict(stored["spec"])
    if isinstance(stored.get("status"), dict):
        pod["status"] = dict(stored["status"])
    return pod


def wants_scheduling(pod: dict) -> bool:
    """Unbound, not being deleted, not finished."""
    return (not (pod.get("spec") or {}).get("nodeName")
            and not (pod.get("metadata") or {}).get("deletionTimestamp")
            and not accounting.is_terminal(pod))


class Scheduler:
    def __init__(self, store, events, clock) -> None:
        self.store, self.events, self.clock = store, events, clock
        self.profile = registry.new_profile()
        self.cache = SchedulerCache(store)
        self.memos = memo.Memos()
        self.reads = memo.reads((*self.profile.filters, self.profile.score))
        # guard(obj, fn, *args): runs one pod's attempt; the control plane isolates failures per pod
        self.guard = lambda obj, fn, *args: fn(*args)
        # pod key -> (its resourceVersion, cache.version, message) of its last failed decision
        self._failed: dict[str, tuple[str, int, str]] = {}

    # -- deciding -------------------------------------------------------------------------
    def decide(self, pod: framework.PodInfo) -> Decision:
        """Run the filters in order over every node (a node leaves at its first failing filter),
        score the nodes left, and pick the best (``select_host``). Verdicts kept for pods that agree
        on every field the plugins read are reused for the nodes that did not change since (``memo``)."""
        nodes = self.cache.nodes()
        tie_key = ranking.tie_key_of(self.profile.score)
        kept = self._kept(pod)
        if kept is not None:
            kept.sync(self.cache, pod, nodes, self.evaluate, tie_key)
            # the memo's own tables, read only while the store lock is held (no copy of 1,000 entries)
            rejected, scores = kept.rejected, kept.scores
            chosen, best = kept.outcome(lambda ranked: self._outcome(pod, ranked))
        else:
            rejections, feasible, score_list = self.evaluate(pod, nodes)
            rejected = {node.name: status for node, status in rejections}
            scores = {node.name: score for node, score in zip(feasible, score_list, strict=True)}
            chosen, best = self._outcome(pod, ranking.Ranking.of(feasible, score_list, tie_key))
        return Decision(node=chosen, total_nodes=len(nodes), rejected=rejected, scores=scores, best=best)

    def _outcome(self, pod: framework.PodInfo, ranked: ranking.Ranking) -> tuple[str | None, list[str]]:
        """(the chosen node, None when no node is feasible; the best names the annotation lists)."""
        return self.select_host(pod, ranked) if len(ranked) else None, ranked.top_names(EXPLAIN_NODES)

    def evaluate(self, pod: framework.PodInfo, nodes: list[framework.NodeInfo]
                 ) -> tuple[framework.Rejections, list[framework.NodeInfo], list[float]]:
        """The filters in order over ``nodes``, then the score of those left."""
        rejections: framework.Rejections = []
        remaining = nodes
        for plugin in self.profile.filters:
            if not remaining:
                break
            if plugin.pre_filter(pod) is framework.SKIP:
                continue
            remaining, out = plugin.filter_all(pod, remaining)
            rejections.extend(out)
        return rejections, remaining, self.profile.score.score_all(pod, remaining) if remaining else []

    def _kept(self, pod: framework.PodInfo) -> memo.Kept | None:
        """The verdicts kept for the values of the fields the profile reads (None: not kept)."""
        if self.reads is None:
            return None
        try:
            return self.memos.get(memo.key(pod, self.reads))
        except TypeError:         # a value no key can hold (not JSON): decided afresh
            return None

    def select_host(self, pod: framework.PodInfo, ranked: ranking.Ranking) -> str:
        """kube-scheduler's selectHost: the highest score wins, and of the nodes of equal best
        score ``tie_break`` picks one, handed every one of them (so any rule works). Float scores
        this close (NEAR_TIE) are settled exactly, once per group of nodes that score the same."""
        best = ranked.best()
        near = ranked.at_least(best - NEAR_TIE * max(1.0, abs(best)))
        if len(near) > 1:
            score, exact = self.profile.score, ranked.exact
            values = []
            for key, group in near:       # (a group's exact score is kept while the group lives)
                value = exact.get(key)
                if value is None:
                    value = exact[key] = score.exact_score(pod, next(iter(group.values())))
                values.append(value)
            top = max(values)
            near = [(key, group) for (key, group), value in zip(near, values, strict=True) if value == top]
        return tie_break(itertools.chain.from_iterable(group for _, group in near))

    # -- acting ---------------------------------------------------------------------------
    def schedule(self, pod: dict) -> dict | None:
        """Try to place one pod now; returns the pod afterwards (None if it is gone; READ-ONLY)."""
        meta = pod.get("metadata") or {}
        with self.store.lock:
            key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
            stored = self.store.head.peek("pods", meta.get("namespace", ""), meta.get("name", ""))
            if stored is None or not wants_scheduling(stored):
                self._failed.pop(key, None)
                return self.store.head.try_get("pods", meta.get("namespace", ""), meta.get("name", ""))
            last = self._failed.get(key)
            if last is not None and last[:2] == (stored["metadata"]["resourceVersion"], self.cache.version):
                self.events.record(stored, "Warning", reasons.EVENT_FAILED_SCHEDULING, last[2],
                                   reasons.SCHEDULER_COMPONENT)
                return stored          # nothing it depends on moved: the same decision, not rewritten
            decision = self.decide(framework.PodInfo.of(stored, self.cache.pod_amounts(stored)))
            if decision.node is not None:
                return self.bind(stored, decision)
            return self.record_failure(stored, decision)

    def bind(self, stored: dict, decision: Decision) -> dict:
        """Write the binding; returns the stored pod (READ-ONLY)."""
        pod = _draft(stored)
        pod["spec"]["nodeName"] = decision.node
        self._annotate(pod, decision)
        self._set_scheduled_condition(pod, {"status": "True"})
        bound = self.store.update("pods", pod, check_rv=False, copy=False)
        meta = bound["metadata"]
        self.events.record(bound, "Normal", reasons.EVENT_SCHEDULED,
                           messages.scheduled(meta["namespace"], meta["name"], decision.node),
                           reasons.SCHEDULER_COMPONENT)
        return bound

    def record_failure(self, stored: dict, decision: Decision) -> dict:
        """Write why the pod stays Pending; returns the stored pod (READ-ONLY)."""
        message = decision.message
        pod = _draft(stored)
        self._annotate(pod, decision)
        self._set_scheduled_condition(pod, {"status": "False", "reason": reasons.POD_REASON_UNSCHEDULABLE,
                                            "message": message})
        stored = self.store.update("pods", pod, check_rv=False, copy=False)
        self.events.record(stored, "Warning", reasons.EVENT_FAILED_SCHEDULING, message,
                           reasons.SCHEDULER_COMPONENT)
        meta = stored["metadata"]
        self._failed[f"{meta.get('namespace', '')}/{meta['name']}"] = (
            meta["resourceVersion"], self.cache.version, message)
        return stored

    def _annotate(self, pod: dict, decision: Decision) -> None:
        annotations = pod["metadata"].setdefault("annotations", {})
        annotations[ANNOTATION_DECISION] = encoding.compact(decision.explain())

    def _set_scheduled_condition(self, pod: dict, fields: dict) -> None:
        """Replace the PodScheduled condition; lastTransitionTime moves only when status does."""
        status = pod.setdefault("status", {})
        status.setdefault("phase", "Pending")
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        previous = next((c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
        since = (previous or {}).get("lastTransitionTime")
        if previous is None or previous.get("status") != fields["status"] or not since:
            since = timefmt.rfc3339(self.clock.now())
        conditions.append({"type": "PodScheduled", **fields, "lastProbeTime": None,
                           "lastTransitionTime": since})
        status["conditions"] = conditions

    def retry_unbound(self) -> int:
        """One reconcile pass: try every unbound pod, oldest first, taking the store lock per pod
        (requests go on between them). Returns how many were bound."""
        with self.store.lock:
            waiting = [p for p in self.store.head.list("pods") if wants_scheduling(p)]
            known = {f"{p['metadata'].get('namespace', '')}/{p['metadata']['name']}" for p in waiting}
            for key in set(self._failed) - known:
                del self._failed[key]
        waiting.sort(key=lambda p: (p["metadata"].get("creationTimestamp", ""),
                                    p["metadata"].get("namespace", ""), p["metadata"]["name"]))
        bound = 0
        for pod in waiting:
            result = self.guard(pod, self.schedule, pod)   # one failing pod must not stop the others
            if result is not None and (result.get("spec") or {}).get("nodeName"):
                bound += 1
        return bound


class ReconcileLoop:
    """Retries unbound pods every ``profile.reconcile_interval`` (``--reconcile-interval``)."""

    NAME = "scheduler"
    LOCKS_ITSELF = True     # the runner does not hold the store lock for the whole pass

    def __init__(self, scheduler: Scheduler, profile) -> None:
        self.scheduler, self.profile = scheduler, profile

    def interval(self) -> float:
        return self.profile.reconcile_interval

    def reconcile(self, now: float) -> None:
        self.scheduler.retry_unbound()

    def idle_until(self, now: float) -> float:
        """No pending pod: with the store unchanged, no pass does anything. A pending pod's retry
        counts its FailedScheduling event again: every pass runs."""
        if any(wants_scheduling(p) for p in self.scheduler.store.head.list("pods")):
            return now
        return float("inf")
