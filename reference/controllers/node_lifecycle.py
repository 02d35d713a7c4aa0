"""The node lifecycle controller: lease timeouts, unreachable taints, NoExecute eviction, recovery.

Every ``lifecycle_check_interval`` (1 s hardware, 0.5 s simulator) it recomputes, from the store,
each node's state with the pure rules in ``lifecycle_rules`` and writes the differences: the Ready
condition, the ``node.kubernetes.io/unreachable`` taints, NodeNotReady / NodeReady events, and the
eviction (or removal, when terminating) of pods whose NoExecute toleration has run out.

In memory it keeps only what a restart must forget: when this controller started and when it first
saw each node. A node that was not already timed out when first seen counts its lease from
``max(renewTime, controller start)``, so after a control-plane restart it gets a full lease
duration; taints and their ``timeAdded`` are persisted on the Node, so eviction clocks carry on.

``install(cp)`` also registers the pod admission that adds the default tolerations.
"""

from __future__ import annotations

from collections import defaultdict

from reference.controllers import lifecycle_rules as rules
from reference.machinery import defaults
from spec import constants, reasons, timefmt

LEASES = "leases.coordination.k8s.io"


class NodeLifecycleController:
    NAME = "node-lifecycle"

    def __init__(self, cp) -> None:
        self.cp = cp
        self.started_at = getattr(cp, "started_at", None) or cp.clock.now()
        self.first_seen: dict[str, float] = {}
        self.graced: dict[str, bool] = {}
        self._passes = 0

    def interval(self) -> float:
        return self.cp.profile.lifecycle_check_interval

    # -- one pass -------------------------------------------------------------------------------
    def reconcile(self, now: float) -> None:
        store = self.cp.store
        pods_by_node: dict[str, list[dict]] = defaultdict(list)
        for pod in store.list("pods"):
            node_name = (pod.get("spec") or {}).get("nodeName")
            if node_name:
                pods_by_node[node_name].append(pod)
        present = set()
        for node in store.list("nodes"):
            name = node["metadata"]["name"]
            present.add(name)
            if rules.ready_condition(node) is None:
                continue        # never reported status: nothing to time out
            self.observe(name, node, now)
            node = self.update_node(node, now)
            self.evict_pods(node, pods_by_node.get(name, []), now)
        for name in set(self.first_seen) - present:
            self.first_seen.pop(name, None)
            self.graced.pop(name, None)
        self._passes += 1

    def observe(self, name: str, node: dict, now: float) -> None:
        """First sight of a node: remember when, and whether it gets the restart grace."""
        if name in self.first_seen:
            return
        self.first_seen[name] = self.started_at if self._passes == 0 else now
        self.graced[name] = not rules.marked_unknown(node)

    def last_renewal(self, name: str, lease: dict | None, threshold: float) -> float:
        """The renewal the node's timeline counts from (restart grace included)."""
        graced = self.graced.get(name, True)
        grace_from = None
        if graced:
            grace_from = self.started_at if lease is not None else self.first_seen[name]
        last = rules.effective_last_renewal(rules.lease_renewed_at(lease), grace_from)
        if last is None:          # timed out before we saw it and nothing renewed since
            last = self.first_seen[name] - threshold
        return last

    def update_node(self, node: dict, now: float) -> dict:
        name = node["metadata"]["name"]
        profile = self.cp.profile
        lease = self.cp.store.peek(LEASES, constants.NODE_LEASE_NAMESPACE, name)
        threshold = rules.lease_threshold(lease, profile.not_ready_timeout)
        last = self.last_renewal(name, lease, threshold)
        state = rules.health(last, threshold, profile.noexecute_delay, now)
        plan = rules.plan_node(node, state, now)
        if not plan.changed:
            return node
        updated = self.cp.store.update("nodes", plan.node, check_rv=False)
        for type_, reason, message in plan.events:
            self.cp.events.record(updated, type_, reason, message, reasons.NODE_CONTROLLER_COMPONENT)
        return updated

    def evict_pods(self, node: dict, pods: list[dict], now: float) -> None:
        taint = rules.find_taint(node, constants.TAINT_UNREACHABLE, rules.NO_EXECUTE)
        if taint is None:
            return
        added = timefmt.parse(taint["timeAdded"]) if taint.get("timeAdded") else now
        for pod in pods:
            verdict = rules.pod_verdict(pod, taint, added, now)
            if verdict is rules.PodVerdict.EVICT:
                self.evict(pod, node, taint, now)
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
