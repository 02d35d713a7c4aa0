"""The node lifecycle controller: lease timeouts, unreachable taints, NoExecute eviction, recovery.

Every ``lifecycle_check_interval`` (1 s hardware, 0.5 s simulator) it recomputes, from the store,
each node's state with the pure rules in ``lifecycle_rules`` and writes the differences: the Ready
condition, the ``node.kubernetes.io/unreachable`` taints, NodeNotReady / NodeReady events, and the
eviction (or removal, when terminating) of pods whose NoExecute toleration has run out.

Time without renewal is measured on the control plane's clock from the pass that first saw the
Lease's current renewTime (as upstream), so a board's clock skew does not matter. In memory it keeps
only that (per node: the renewTime seen and when; the deadline heap and the log cursor below are
caches the first pass rebuilds): after a control-plane restart every node that was
not timed out counts as renewed at the restart, so it gets a full lease duration; taints and their
``timeAdded`` are persisted on the Node, so eviction deadlines carry on unchanged.

Cost of a pass at fleet scale (5,000 nodes renewing every 5 s): O(nodes whose state can change),
not O(nodes). A pass reads the store's change log since its last pass (``Store.changes_after``)
and looks only at the nodes whose Node or Lease was written since, and at those whose health
holds no longer than now (``rules.health``'s ``until``, kept in a heap): the rule says when it can
change, the heap only remembers it. The first pass after a start, and any pass the log no longer
reaches back for, looks at every node. A node is planned (copied, compared, written) only when its
health differs from the one it was last left settled in at the same resourceVersion, and pods are
listed only when some node changed or carries an evicting taint.

``install(cp)`` also registers the pod admission that adds the default tolerations.
"""

from __future__ import annotations

import heapq
from collections import defaultdict

from kube32.reference.controllers import lifecycle_rules as rules
from kube32.reference.machinery import defaults
from kube32.spec import constants, reasons

LEASES = "leases.coordination.k8s.io"


class NodeLifecycleController:
    NAME = "node-lifecycle"
    READS = ("nodes", LEASES, "pods")      # what a pass depends on (besides the time)

    def __init__(self, cp) -> None:
        self.cp = cp
        self.started_at = getattr(cp, "started_at", None) or cp.clock.now()
        self.renewals: dict[str, rules.Renewals] = {}
        self._passes = 0
        # node name -> (resourceVersion, health) it was last seen settled in (nothing to write)
        self._settled: dict[str, tuple[str, rules.Health]] = {}
        self._cursor: int | None = None      # the store's version when the last pass began (None: none yet)
        self._wake: dict[str, float] = {}     # node -> from when to look at it again without a write
        self._due: list[tuple[float, str]] = []   # heap of (_wake time, node); entries _wake no longer has are stale
        self._evicting: set[str] = set()     # nodes carrying an evicting NoExecute taint: their pods count
        self._next_eviction = rules.NEVER    # the earliest pod verdict's ``until`` of the last pass

    def interval(self) -> float:
        return self.cp.profile.lifecycle_check_interval

    # -- one pass -------------------------------------------------------------------------------
    def reconcile(self, now: float) -> None:
        store = self.cp.store
        names = self._to_visit(now)
        self._cursor = store.head.resource_version       # this pass's own writes are looked at next pass
        acting: dict[str, dict] = {}   # nodes changed now or carrying an evicting taint: their pods count
        for name in names:
            node = store.head.peek("nodes", "", name)
            if node is None:
                self._forget(name)
                continue
            if rules.ready_condition(node) is None:
                self._evicting.discard(name)
                continue        # never reported status: nothing to time out
            updated = self.update_node(node, now)
            if rules.evicting_taints(updated):
                self._evicting.add(name)
            else:
                self._evicting.discard(name)
            if updated is not node:
                acting[name] = updated
        for name in self._evicting - acting.keys():
            acting[name] = store.head.peek("nodes", "", name)
        self._next_eviction = rules.NEVER
        if acting:
            pods_by_node: dict[str, list[dict]] = defaultdict(list)
            for pod in store.head.list("pods"):
                node_name = (pod.get("spec") or {}).get("nodeName")
                if node_name:
                    pods_by_node[node_name].append(pod)
            for name in sorted(acting):
                self.evict_pods(acting[name], pods_by_node.get(name, []), now)
        self._passes += 1

    def _to_visit(self, now: float) -> list[str]:
        """The nodes this pass looks at, by name: those written (Node or Lease) since the last pass
        and those whose wake time came; every node on the first pass or when the log is too short."""
        store = self.cp.store
        changes = None if self._cursor is None else store.changes_after(self._cursor)
        if changes is None:
            names = [n["metadata"]["name"] for n in store.head.list("nodes")]
            for gone in (self.renewals.keys() | self._settled.keys() | self._wake.keys() | self._evicting) - set(names):
                self._forget(gone)
            return names
        changed: set[str] = set()
        for event in changes:
            if event.res == "nodes" or (event.res == LEASES and event.namespace == constants.NODE_LEASE_NAMESPACE):
                changed.add(event.obj["metadata"]["name"])
        due = self._due
        while due and due[0][0] <= now:
            at, name = heapq.heappop(due)
            if self._wake.get(name) == at:
                del self._wake[name]
                changed.add(name)
        return sorted(changed)

    def _forget(self, name: str) -> None:
        """A node gone from the store: nothing of it is kept."""
        self.renewals.pop(name, None)
        self._settled.pop(name, None)
        self._wake.pop(name, None)
        self._evicting.discard(name)

    def _look_again(self, name: str, at: float) -> None:
        if at == rules.NEVER:
            self._wake.pop(name, None)      # nothing comes by time alone: only a write wakes it
            return
        self._wake[name] = at
        heapq.heappush(self._due, (at, name))
        if len(self._due) > 4 * len(self._wake) + 1024:        # mostly stale entries: rebuild
            self._due = [(t, n) for n, t in self._wake.items()]
            heapq.heapify(self._due)

    def idle_until(self, now: float) -> float:
        """With the store unchanged, no pass before this time changes anything (manual-clock jumps
        skip those passes): the earliest ``until`` the rules gave, of a node's health (or the next
        check, for a state that does not settle) or of a pod's verdict."""
        due = self._due
        while due and self._wake.get(due[0][1]) != due[0][0]:
            heapq.heappop(due)
        return min(due[0][0] if due else rules.NEVER, self._next_eviction)

    def last_renewal(self, node: dict, lease: dict | None, threshold: float, now: float) -> float:
        """When this controller last saw the node's Lease renewed (restart grace included)."""
        name = node["metadata"]["name"]
        renew_time = rules.lease_renew_time(lease)
        known = self.renewals.get(name)
        if known is None:
            since = now
            if self._passes == 0:    # present at start: renewed no earlier than the start
                since = rules.clamp_renewal(renew_time, self.started_at, now)
            known = rules.first_sight(node, renew_time, threshold, since)
        known = rules.observe(known, renew_time, now)
        self.renewals[name] = known
        return known.at

    def update_node(self, node: dict, now: float) -> dict:
        profile = self.cp.profile
        lease = self.cp.store.head.peek(LEASES, constants.NODE_LEASE_NAMESPACE, node["metadata"]["name"])
        threshold = rules.lease_threshold(lease, profile.not_ready_timeout)
        last = self.last_renewal(node, lease, threshold, now)
        health = rules.health(last, threshold, profile.noexecute_delay, now)
        state, name, rv = health.value, node["metadata"]["name"], node["metadata"].get("resourceVersion")
        self._look_again(name, health.until)     # looked at again (without a write) when it can change
        if self._settled.get(name) == (rv, state):
            return node         # planned at this version and health before: nothing to change
        plan = rules.plan_node(node, state, now)
        if not plan.changed:
            if rules.settles(state):
                self._settled[name] = (rv, state)
            else:
                self._look_again(name, now)     # a state that does not settle: every check
            return node
        updated = self.cp.store.update("nodes", plan.node, check_rv=False)
        for type_, reason, message in plan.events:
            self.cp.events.record(updated, type_, reason, message, reasons.NODE_CONTROLLER_COMPONENT)
        return updated

    def evict_pods(self, node: dict, pods: list[dict], now: float) -> None:
        """Evict or remove the pods whose toleration ran out; the others' verdicts hold until
        ``_next_eviction`` at the earliest."""
        taints = rules.timed_taints(node, now)
        if not taints:
            return
        for pod in pods:
            verdict = rules.pod_verdict(pod, taints, now)
            if verdict.value is rules.PodVerdict.EVICT:
                self.evict(pod, node, verdict.cause, now)
            elif verdict.value is rules.PodVerdict.REMOVE:
                meta = pod["metadata"]
                self.cp.store.delete("pods", meta.get("namespace", ""), meta["name"])
            elif verdict.until < self._next_eviction:
                self._next_eviction = verdict.until

    def evict(self, pod: dict, node: dict, taint: dict, now: float) -> None:
        name = node["metadata"]["name"]
        updated = self.cp.store.update("pods", rules.evicted(pod, name, taint, now), check_rv=False)
        message = reasons.EVICTED_MESSAGE.format(node=name, taint=rules.taint_text(taint))
        self.cp.events.record(updated, reasons.EVENT_EVICTED_TYPE, reasons.EVENT_EVICTED, message,
                              reasons.NODE_CONTROLLER_COMPONENT)


def admit_default_tolerations(cp, res: str, obj: dict, old: dict | None, operation: str) -> None:
    """Pod CREATE through the API: add the default not-ready / unreachable tolerations."""
    if res == "pods" and operation == "CREATE":
        defaults.apply_default_tolerations(obj, cp.profile)


def install(cp) -> None:
    """Register the controller on the loops and the default-toleration admission."""
    cp.loops.register(NodeLifecycleController(cp))
    cp.admission.append(admit_default_tolerations)
