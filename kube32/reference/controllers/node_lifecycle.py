"""The node lifecycle controller: lease timeouts, unreachable taints, NoExecute eviction, recovery.

Every ``lifecycle_check_interval`` (1 s hardware, 0.5 s simulator) it recomputes, from the store,
each node's state with the pure rules in ``lifecycle_rules`` and writes the differences: the Ready
condition, the ``node.kubernetes.io/unreachable`` taints, NodeNotReady / NodeReady events, and the
eviction (or removal, when terminating) of pods whose NoExecute toleration has run out.

Time without renewal is measured on the control plane's clock from the pass that first saw the
Lease's current renewTime (as upstream), so a board's clock skew does not matter. In memory it keeps
only that (per node: the renewTime seen and when): after a control-plane restart every node that was
not timed out counts as renewed at the restart, so it gets a full lease duration; taints and their
``timeAdded`` are persisted on the Node, so eviction deadlines carry on unchanged.

Cost of a pass at fleet scale (5,000 nodes renewing every 5 s): per node a Lease lookup, a string
compare and the health arithmetic; a node is planned (copied, compared, written) only when its
health differs from the one it was last left settled in at the same resourceVersion, and pods are
listed only when some node changed or carries an evicting taint.

``install(cp)`` also registers the pod admission that adds the default tolerations.
"""

from __future__ import annotations

from collections import defaultdict

from kube32.reference.controllers import lifecycle_rules as rules
from kube32.reference.machinery import defaults
from kube32.spec import constants, reasons, timefmt

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

    def interval(self) -> float:
        return self.cp.profile.lifecycle_check_interval

    # -- one pass -------------------------------------------------------------------------------
    def reconcile(self, now: float) -> None:
        store = self.cp.store
        present = set()
        acting: list[dict] = []      # nodes changed now or carrying an evicting taint: their pods count
        for node in store.list("nodes"):
            name = node["metadata"]["name"]
            present.add(name)
            if rules.ready_condition(node) is None:
                continue        # never reported status: nothing to time out
            updated = self.update_node(node, now)
            if updated is not node or ((updated.get("spec") or {}).get("taints") and rules.evicting_taints(updated)):
                acting.append(updated)
        if acting:
            pods_by_node: dict[str, list[dict]] = defaultdict(list)
            for pod in store.list("pods"):
                node_name = (pod.get("spec") or {}).get("nodeName")
                if node_name:
                    pods_by_node[node_name].append(pod)
            for node in acting:
                self.evict_pods(node, pods_by_node.get(node["metadata"]["name"], []), now)
        for name in set(self.renewals) - present:
            del self.renewals[name]
        for name in set(self._settled) - present:
            del self._settled[name]
        self._passes += 1

    def idle_until(self, now: float) -> float:
        """With the store unchanged, no pass before this time changes anything (manual-clock jumps
        skip those passes): the earliest next NotReady / NoExecute / eviction deadline, less two
        check intervals of margin; ``now`` when a renewal or a node is not yet observed."""
        store, profile = self.cp.store, self.cp.profile
        until = float("inf")
        tainted: list[dict] = []
        for node in store.list("nodes"):
            if rules.ready_condition(node) is None:
                continue
            name = node["metadata"]["name"]
            known = self.renewals.get(name)
            lease = store.peek(LEASES, constants.NODE_LEASE_NAMESPACE, name)
            if known is None or rules.lease_renew_time(lease) not in (None, known.seen):
                return now
            threshold = rules.lease_threshold(lease, profile.not_ready_timeout)
            if not rules.marked_unknown(node) and not rules.has_taint(node, constants.TAINT_UNREACHABLE,
                                                                      rules.NO_SCHEDULE):
                until = min(until, known.at + threshold)
            elif not rules.has_taint(node, constants.TAINT_UNREACHABLE, rules.NO_EXECUTE):
                until = min(until, known.at + threshold + profile.noexecute_delay)
            if rules.evicting_taints(node):
                tainted.append(node)
        if tainted:
            names = {n["metadata"]["name"]: n for n in tainted}
            for pod in store.list("pods"):
                node = names.get((pod.get("spec") or {}).get("nodeName"))
                if node is None or rules.exempt(pod):
                    continue
                taints = [(t, timefmt.parse(t["timeAdded"]) if t.get("timeAdded") else now)
                          for t in rules.evicting_taints(node)]
                deadline = rules.pod_deadline((pod.get("spec") or {}).get("tolerations") or [], taints)
                if deadline is not None:
                    until = min(until, deadline)
        return until - 2 * self.interval()

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
        lease = self.cp.store.peek(LEASES, constants.NODE_LEASE_NAMESPACE, node["metadata"]["name"])
        threshold = rules.lease_threshold(lease, profile.not_ready_timeout)
        last = self.last_renewal(node, lease, threshold, now)
        state = rules.health(last, threshold, profile.noexecute_delay, now)
        name, rv = node["metadata"]["name"], node["metadata"].get("resourceVersion")
        if self._settled.get(name) == (rv, state):
            return node         # planned at this version and health before: nothing to change
        plan = rules.plan_node(node, state, now)
        if not plan.changed:
            if rules.settles(state):
                self._settled[name] = (rv, state)
            return node
        updated = self.cp.store.update("nodes", plan.node, check_rv=False)
        for type_, reason, message in plan.events:
            self.cp.events.record(updated, type_, reason, message, reasons.NODE_CONTROLLER_COMPONENT)
        return updated

    def evict_pods(self, node: dict, pods: list[dict], now: float) -> None:
        taints = [(t, timefmt.parse(t["timeAdded"]) if t.get("timeAdded") else now)
                  for t in rules.evicting_taints(node)]
        if not taints:
            return
        for pod in pods:
            verdict = rules.pod_verdict(pod, taints, now)
            if verdict is rules.PodVerdict.EVICT:
                self.evict(pod, node, rules.expired_taint(pod, taints, now), now)
            elif verdict is rules.PodVerdict.REMOVE:
                meta = pod["metadata"]
                self.cp.store.delete("pods", meta.get("namespace", ""), meta["name"])

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
