"""Faults of the node lifecycle controller and the default-toleration admission.

Each patches one rule in ``reference.controllers.lifecycle_rules`` / ``node_lifecycle`` /
``reference.machinery.defaults`` and names the clauses whose scenarios must then fail.
"""

from __future__ import annotations

import copy

from kube32.reference.controllers import daemonset_plan, deployment_plan, job_plan, node_lifecycle
from kube32.reference.controllers import lifecycle_rules as rules
from kube32.reference.machinery import defaults
from kube32.spec import profiles, reasons, timefmt
from tests.sensitivity.registry import fair, fault

INTERVAL = profiles.load("simulator").lifecycle_check_interval
_silence = rules.silence
_lease_threshold = rules.lease_threshold
_mark_unreachable = rules.mark_unreachable
_mark_reachable = rules.mark_reachable
_add_taint = rules.add_taint
_unreachable_taint = rules.unreachable_taint
_eviction_deadline = rules.eviction_deadline
_exempt = rules.exempt
_evicted = rules.evicted
_pod_verdict = rules.pod_verdict
_first_sight = rules.first_sight
_plan_node = rules.plan_node
_remove_unreachable_taints = rules.remove_unreachable_taints
_add_default_tolerations = defaults.add_default_tolerations
_tolerates_default = defaults.already_tolerates
_evict = node_lifecycle.NodeLifecycleController.evict
_evict_pods = node_lifecycle.NodeLifecycleController.evict_pods
_reconcile = node_lifecycle.NodeLifecycleController.reconcile
_idle_until = node_lifecycle.NodeLifecycleController.idle_until


# -- NotReady ---------------------------------------------------------------------------------
def _lapse_shifted(delta: float):
    """Every moment of a silent node's timeline ``delta`` seconds off."""
    return lambda last, threshold, delay: [(at + delta, state) for at, state in _silence(last, threshold, delay)]


@fault("lapse-one-check-early", breaks=["NODE-NOTREADY-AT-LEASE-DURATION", "NODE-CHECK-INTERVAL",
                                        "NODE-NOTREADY-NOSCHEDULE-TAINT", "NODE-NOTREADY-EVENT",
                                        "NODE-THRESHOLD-DEFAULT", "NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    mp.setattr(rules, "silence", _lapse_shifted(-INTERVAL))


# One check late can be within the document's bound (T + one check interval) on some clock
# phases; two checks late never is. (The NodeNotReady event that comes with it is late too, but
# the document gives events no deadline: only our reading of NODE-NOTREADY-EVENT fails.)
@fault("lapse-two-checks-late", breaks=["NODE-NOTREADY-AT-LEASE-DURATION", "NODE-CHECK-INTERVAL",
                                        "NODE-NOTREADY-NOSCHEDULE-TAINT", "NODE-THRESHOLD-DEFAULT",
                                        "NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    mp.setattr(rules, "silence", _lapse_shifted(2 * INTERVAL))


@fault("check-every-other-interval", breaks=["NODE-CHECK-INTERVAL"])
def _(mp):
    mp.setattr(node_lifecycle.NodeLifecycleController, "interval",
               lambda self: 2 * self.cp.profile.lifecycle_check_interval)


@fault("hardware-checks-every-2s", breaks=["NODE-CHECK-INTERVAL"], args=("--profile", "hardware"))
def _(mp):
    """The hardware side of "1 s on hardware, 500 ms on the simulator" (a run with the hardware profile)."""
    mp.setattr(node_lifecycle.NodeLifecycleController, "interval",
               lambda self: 2.0 if self.cp.profile.name == "hardware" else self.cp.profile.lifecycle_check_interval)


@fault("ignore-lease-own-duration", breaks=["NODE-NOTREADY-AT-LEASE-DURATION", "NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    mp.setattr(rules, "lease_threshold", lambda lease, fallback: float(fallback))


@fault("lease-without-duration-never-lapses", breaks=["NODE-THRESHOLD-DEFAULT"])
def _(mp):
    mp.setattr(rules, "lease_threshold",
               lambda lease, fallback: _lease_threshold(lease, float("inf")))


@fault("no-noschedule-taint", breaks=["NODE-NOTREADY-NOSCHEDULE-TAINT"])
def _(mp):
    mp.setattr(rules, "add_taint", lambda node, effect, now: None if effect == rules.NO_SCHEDULE
               else _add_taint(node, effect, now))


@fault("no-notready-event", breaks=["NODE-NOTREADY-EVENT"])
def _(mp):
    def quiet(node, now):
        _mark_unreachable(node, now)
        return []
    mp.setattr(rules, "mark_unreachable", quiet)


@fault("unknown-keeps-old-transition-time", breaks=["NODE-NOTREADY-AT-LEASE-DURATION"], level="reference")
def _(mp):
    def keep_time(node, now):
        ready = rules.ready_condition(node) or {}
        before = ready.get("lastTransitionTime")
        events = _mark_unreachable(node, now)
        if before:
            rules.ready_condition(node)["lastTransitionTime"] = before
        return events
    mp.setattr(rules, "mark_unreachable", keep_time)


# -- NoExecute --------------------------------------------------------------------------------
@fault("noexecute-at-fixed-30s", breaks=["NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    def fixed(last, threshold, delay):
        return [(max(at, last + 30) if state is rules.Health.NO_EXECUTE else at, state)
                for at, state in _silence(last, threshold, delay)]
    mp.setattr(rules, "silence", fixed)


@fault("noexecute-without-time-added", breaks=["NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    def untimed(effect, now):
        taint = _unreachable_taint(effect, now)
        if effect == rules.NO_EXECUTE:
            taint.pop("timeAdded")
        return taint
    mp.setattr(rules, "unreachable_taint", untimed)


def _stamp_noexecute(shift: float):
    def stamped(effect, now):
        taint = _unreachable_taint(effect, now)
        if effect == rules.NO_EXECUTE:
            taint["timeAdded"] = timefmt.rfc3339(now + shift)
        return taint
    return stamped


@fault("time-added-at-notready", breaks=["NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    """timeAdded says when the node turned Unknown (15 s before the taint came)."""
    mp.setattr(rules, "unreachable_taint", _stamp_noexecute(-profiles.load("simulator").noexecute_delay))


@fault("time-added-ahead", breaks=["NODE-NOEXECUTE-AFTER-DELAY"])
def _(mp):
    """timeAdded lies 5 s after the taint came."""
    mp.setattr(rules, "unreachable_taint", _stamp_noexecute(5.0))


# -- eviction timing --------------------------------------------------------------------------
def _shift_deadline(delta: float):
    def shifted(tolerations, taint, time_added):
        deadline = _eviction_deadline(tolerations, taint, time_added)
        if deadline is None or deadline == float("-inf"):
            return deadline
        return deadline + delta
    return shifted


@fault("evict-one-check-early", breaks=["NODE-EVICT-AT-TOLERATION-EXPIRY", "NODE-EVICT-COUNTS-FROM-TIMEADDED",
                                        "NODE-TERMINATING-REMOVED"])
def _(mp):
    mp.setattr(rules, "eviction_deadline", _shift_deadline(-INTERVAL))


@fault("evict-two-checks-late", breaks=["NODE-EVICT-AT-TOLERATION-EXPIRY", "NODE-EVICT-COUNTS-FROM-TIMEADDED",
                                        "NODE-TERMINATING-REMOVED"])
def _(mp):
    mp.setattr(rules, "eviction_deadline", _shift_deadline(2 * INTERVAL))


@fault("count-from-pod-arrival", breaks=["NODE-EVICT-COUNTS-FROM-TIMEADDED"])
def _(mp):
    def from_arrival(pod, taints, now):
        arrived = timefmt.parse(pod["metadata"]["creationTimestamp"])
        return _pod_verdict(pod, [(t, max(added, arrived)) for t, added in taints], now)
    mp.setattr(rules, "pod_verdict", from_arrival)


@fault("untolerating-pods-stay", breaks=["NODE-EVICT-NO-TOLERATION"])
def _(mp):
    def lenient(tolerations, taint, time_added):
        if not any(rules.toleration_matches(t, taint) for t in tolerations or []):
            return None
        return _eviction_deadline(tolerations, taint, time_added)
    mp.setattr(rules, "eviction_deadline", lenient)


# Zero seconds read as "no limit": the running pods beside the Succeeded, Failed and DaemonSet pods
# with the same toleration stay too, which fails those scenarios' other side.
@fault("nonpositive-seconds-ignored", breaks=["NODE-EVICT-NONPOSITIVE-SECONDS", "NODE-LEAVES-FINISHED-PODS",
                                              "NODE-LEAVES-DAEMONSET-PODS"])
def _(mp):
    def positive_only(tolerations, taint, time_added):
        kept = [t for t in tolerations or [] if t.get("tolerationSeconds") is None or t["tolerationSeconds"] > 0]
        if len(kept) < len(tolerations or []):
            kept = [{**t, "tolerationSeconds": None} if t.get("tolerationSeconds") is not None
                    and t["tolerationSeconds"] <= 0 else t for t in tolerations]
            kept = [{k: v for k, v in t.items() if v is not None} for t in kept]
        return _eviction_deadline(kept, taint, time_added)
    mp.setattr(rules, "eviction_deadline", positive_only)


@fault("under-two-seconds-evicts-at-once", breaks=["NODE-EVICT-NONPOSITIVE-SECONDS"])
def _(mp):
    """The edge misplaced: tolerationSeconds 1 gives no grace either."""
    def edge(tolerations, taint, time_added):
        deadline = _eviction_deadline(tolerations, taint, time_added)
        if deadline is not None and deadline <= time_added + 1:
            return float("-inf")
        return deadline
    mp.setattr(rules, "eviction_deadline", edge)


@fault("short-tolerations-get-the-default", breaks=["NODE-EVICT-AT-TOLERATION-EXPIRY", "NODE-RECOVERY-PODS-STAY"])
def _(mp):
    """Every pod gets at least the default 300 s: a 20 s toleration outlives a renewal 30 s in."""
    def at_least_default(tolerations, taint, time_added):
        deadline = _eviction_deadline(tolerations, taint, time_added)
        if deadline is None or deadline == float("-inf"):
            return deadline
        return max(deadline, time_added + 300)
    mp.setattr(rules, "eviction_deadline", at_least_default)


@fault("omitted-seconds-means-default", breaks=["NODE-TOLERATE-FOREVER"])
def _(mp):
    def defaulted(tolerations, taint, time_added):
        filled = [t if t.get("tolerationSeconds") is not None else {**t, "tolerationSeconds": 300}
                  for t in tolerations or []]
        return _eviction_deadline(filled, taint, time_added)
    mp.setattr(rules, "eviction_deadline", defaulted)


@fault("largest-toleration-wins", breaks=["NODE-EVICT-AT-TOLERATION-EXPIRY"], level="reference")
def _(mp):
    def largest(tolerations, taint, time_added):
        used = [t for t in tolerations or [] if rules.toleration_matches(t, taint)]
        seconds = [t["tolerationSeconds"] for t in used if t.get("tolerationSeconds") is not None]
        if used and seconds and min(seconds) > 0:
            return time_added + max(seconds)
        return _eviction_deadline(tolerations, taint, time_added)
    mp.setattr(rules, "eviction_deadline", largest)


# -- what eviction does -----------------------------------------------------------------------
@fault("evicted-pod-keeps-node-name", breaks=["NODE-EVICT-RETURNS-TO-PENDING", "NODE-EVICT-REBIND"])
def _(mp):
    def keep_node(pod, node_name, taint, now):
        new = _evicted(pod, node_name, taint, now)
        new["spec"]["nodeName"] = node_name
        return new
    mp.setattr(rules, "evicted", keep_node)


@fault("evicted-pod-keeps-phase", breaks=["NODE-EVICT-RETURNS-TO-PENDING"])
def _(mp):
    def keep_phase(pod, node_name, taint, now):
        new = _evicted(pod, node_name, taint, now)
        new["status"]["phase"] = (pod.get("status") or {}).get("phase", "Pending")
        return new
    mp.setattr(rules, "evicted", keep_phase)


@fault("evicted-pod-without-reason", breaks=["NODE-EVICT-RETURNS-TO-PENDING"])
def _(mp):
    def no_reason(pod, node_name, taint, now):
        new = _evicted(pod, node_name, taint, now)
        new["status"].pop("reason", None)
        return new
    mp.setattr(rules, "evicted", no_reason)


@fault("evicted-pod-without-disruption-target", breaks=["NODE-EVICT-RETURNS-TO-PENDING"])
def _(mp):
    def no_condition(pod, node_name, taint, now):
        new = _evicted(pod, node_name, taint, now)
        new["status"]["conditions"] = []
        return new
    mp.setattr(rules, "evicted", no_condition)


@fault("eviction-deletes-the-pod", breaks=["NODE-EVICT-RETURNS-TO-PENDING", "NODE-EVICT-REBIND"])
def _(mp):
    def delete(self, pod, node, taint, now):
        meta = pod["metadata"]
        self.cp.store.delete("pods", meta["namespace"], meta["name"])
    mp.setattr(node_lifecycle.NodeLifecycleController, "evict", delete)


@fault("no-evicted-event", breaks=["NODE-EVICT-EVENT"])
def _(mp):
    def silent(self, pod, node, taint, now):
        self.cp.store.update("pods", rules.evicted(pod, node["metadata"]["name"], taint, now), check_rv=False)
    mp.setattr(node_lifecycle.NodeLifecycleController, "evict", silent)


@fault("terminating-pods-evicted-not-removed", breaks=["NODE-TERMINATING-REMOVED"])
def _(mp):
    def no_remove(pod, taints, now):
        verdict = _pod_verdict(pod, taints, now)
        if verdict.value is rules.PodVerdict.REMOVE:
            return rules.Timed(rules.PodVerdict.EVICT, cause=verdict.cause)
        return verdict
    mp.setattr(rules, "pod_verdict", no_remove)


@fault("evict-finished-pods", breaks=["NODE-LEAVES-FINISHED-PODS"])
def _(mp):
    mp.setattr(rules, "exempt", lambda pod: rules.owned_by_daemonset(pod))


# -- recovery ---------------------------------------------------------------------------------
@fault("no-nodeready-event", breaks=["NODE-RECOVERY-CLEARS-TAINTS"])
def _(mp):
    def quiet(node, now):
        _mark_reachable(node, now)
        return []
    mp.setattr(rules, "mark_reachable", quiet)


@fault("recovery-keeps-noexecute", breaks=["NODE-RECOVERY-CLEARS-TAINTS", "NODE-RECOVERY-PODS-STAY"])
def _(mp):
    def keep_noexecute(node):
        kept = [t for t in (node.get("spec") or {}).get("taints") or []
                if (t.get("key"), t.get("effect")) == (rules.constants.TAINT_UNREACHABLE, rules.NO_EXECUTE)]
        _remove_unreachable_taints(node)
        if kept:
            node.setdefault("spec", {})["taints"] = [*(node["spec"].get("taints") or []), *kept]
    mp.setattr(rules, "remove_unreachable_taints", keep_noexecute)


@fault("recovery-keeps-noschedule", breaks=["NODE-RECOVERY-CLEARS-TAINTS"])
def _(mp):
    def keep_noschedule(node):
        kept = [t for t in (node.get("spec") or {}).get("taints") or []
                if (t.get("key"), t.get("effect")) == (rules.constants.TAINT_UNREACHABLE, rules.NO_SCHEDULE)]
        _remove_unreachable_taints(node)
        if kept:
            node.setdefault("spec", {})["taints"] = [*(node["spec"].get("taints") or []), *kept]
    mp.setattr(rules, "remove_unreachable_taints", keep_noschedule)


@fault("unreachable-taints-lifted-after-45s", breaks=["NODE-RECOVERY-CLEARS-TAINTS"])
def _(mp):
    """The node is taken back without a renewal once it has been silent long enough."""
    def forgetful(last, threshold, delay):
        return [*_silence(last, threshold, delay), (last + threshold + delay + 45, rules.Health.FRESH)]
    mp.setattr(rules, "silence", forgetful)


@fair("recovery-waits-for-the-kubelet", passes=["NODE-RECOVERY-CLEARS-TAINTS", "NODE-RECOVERY-PODS-STAY"],
      differs=["NODE-RECOVERY-CLEARS-TAINTS"])
def _(mp):
    """On a renewal the controller takes the taints off and records NodeReady, and leaves the Ready
    condition to the kubelet's next status report (the document does not say who writes it)."""
    def taints_only(node, now):
        _remove_unreachable_taints(node)
        return [rules.status_change_event(node["metadata"]["name"], "NodeReady")]
    mp.setattr(rules, "mark_reachable", taints_only)


@fault("recovery-unbinds-pods", breaks=["NODE-RECOVERY-PODS-STAY"])
def _(mp):
    def unbind(self, node, pods, now):
        if not rules.evicting_taints(node) and not rules.marked_unknown(node):
            for pod in pods:
                if rules.exempt(pod):
                    continue
                self.evict(pod, node, {"key": rules.constants.TAINT_UNREACHABLE, "effect": "NoExecute"}, now)
            return
        _evict_pods(self, node, pods, now)
    mp.setattr(node_lifecycle.NodeLifecycleController, "evict_pods", unbind)


# -- restart ----------------------------------------------------------------------------------
@fault("restart-without-grace", breaks=["NODE-RESTART-GRACE"])
def _(mp):
    mp.setattr(rules, "clamp_renewal",
               lambda renew_time, earliest, latest: timefmt.parse(renew_time) if renew_time else earliest)


@fault("restart-forgives-timed-out-nodes", breaks=["NODE-RESTART-GRACE"], level="reference")
def _(mp):
    def forgiving(node, renew_time, threshold, since):
        return rules.Renewals(renew_time, since)
    mp.setattr(rules, "first_sight", forgiving)


@fault("restart-evicts-at-once", breaks=["NODE-RESTART-KEEPS-TIMEADDED"])
def _(mp):
    """After a restart the counts are taken as lost: on its first pass every pod on a NoExecute-tainted
    node whose toleration has a limit goes at once."""
    def hasty(self, node, pods, now):
        if self._passes:
            return _evict_pods(self, node, pods, now)
        rules.pod_verdict = lambda pod, taints, at: _pod_verdict(pod, taints, float("inf"))
        try:
            _evict_pods(self, node, pods, now)
        finally:
            rules.pod_verdict = _pod_verdict
    mp.setattr(node_lifecycle.NodeLifecycleController, "evict_pods", hasty)


@fault("restart-resets-time-added", breaks=["NODE-RESTART-KEEPS-TIMEADDED"])
def _(mp):
    def restamp(self, now):
        if self._passes == 0:
            for node in self.cp.store.list("nodes"):
                taints = (node.get("spec") or {}).get("taints") or []
                if any(t.get("effect") == rules.NO_EXECUTE for t in taints):
                    node = self.cp.store.get("nodes", "", node["metadata"]["name"])
                    for t in node["spec"]["taints"]:
                        if t.get("effect") == rules.NO_EXECUTE:
                            t["timeAdded"] = timefmt.rfc3339(now)
                    self.cp.store.update("nodes", node)
        _reconcile(self, now)
    mp.setattr(node_lifecycle.NodeLifecycleController, "reconcile", restamp)


# -- default tolerations and exemptions -------------------------------------------------------
@fault("no-default-tolerations", breaks=["NODE-DEFAULT-TOLERATIONS", "NODE-DEFAULT-TOLERATIONS-ONLY-MISSING"])
def _(mp):
    mp.setattr(defaults, "apply_default_tolerations", lambda pod, profile: pod)


@fault("no-default-not-ready-toleration", breaks=["NODE-DEFAULT-TOLERATIONS"])
def _(mp):
    mp.setattr(defaults, "DEFAULT_TOLERATION_KEYS", (rules.constants.TAINT_UNREACHABLE,))


@fault("no-default-unreachable-toleration", breaks=["NODE-DEFAULT-TOLERATIONS"])
def _(mp):
    mp.setattr(defaults, "DEFAULT_TOLERATION_KEYS", (rules.constants.TAINT_NOT_READY,))


@fault("default-tolerations-replace-the-pods-own", breaks=["NODE-DEFAULT-TOLERATIONS"])
def _(mp):
    """The pod's own tolerations give way to the defaults."""
    def replacing(pod, seconds):
        pod.setdefault("spec", {})["tolerations"] = []
        return _add_default_tolerations(pod, seconds)
    mp.setattr(defaults, "add_default_tolerations", replacing)


@fault("default-tolerations-reversed", breaks=["NODE-DEFAULT-TOLERATIONS"], level="reference")
def _(mp):
    mp.setattr(defaults, "DEFAULT_TOLERATION_KEYS", tuple(reversed(defaults.DEFAULT_TOLERATION_KEYS)))


@fault("default-tolerations-added-blindly", breaks=["NODE-DEFAULT-TOLERATIONS-ONLY-MISSING"])
def _(mp):
    mp.setattr(defaults, "already_tolerates", lambda tolerations, key, effect="NoExecute": False)


@fault("controllers-skip-default-tolerations", breaks=["NODE-DEFAULT-TOLERATIONS-CONTROLLERS"])
def _(mp):
    for module in (deployment_plan, job_plan):
        mp.setattr(module, "add_default_tolerations", lambda pod, seconds: pod)


@fault("daemonset-tolerations-expire", breaks=["NODE-DAEMONSET-TOLERATIONS"])
def _(mp):
    mp.setattr(daemonset_plan, "add_default_tolerations",
               lambda pod, seconds: _add_default_tolerations(pod, 300))


@fault("evict-daemonset-pods", breaks=["NODE-LEAVES-DAEMONSET-PODS"])
def _(mp):
    mp.setattr(rules, "exempt", lambda pod: (pod.get("status") or {}).get("phase") in rules.TERMINAL_PHASES)


# -- the simulator's timeout flags ------------------------------------------------------------
@fault("not-ready-timeout-flag-skips-noexecute-delay", breaks=["NODE-SIMULATOR-TIMEOUT-FLAGS"], level="reference")
def _(mp):
    real = profiles.flag_overrides

    def partial(values):
        overrides = real(values)
        overrides.pop("noexecute_delay", None)
        return overrides
    mp.setattr(profiles, "flag_overrides", partial)


def _ignoring(mp, flag: str) -> None:
    real = profiles.flag_overrides
    mp.setattr(profiles, "flag_overrides", lambda values: real({f: v for f, v in values.items() if f != flag}))


@fault("eviction-timeout-flag-ignored", breaks=["NODE-SIMULATOR-TIMEOUT-FLAGS"])
def _(mp):
    _ignoring(mp, "--eviction-timeout")


@fault("not-ready-timeout-flag-ignored", breaks=["NODE-SIMULATOR-TIMEOUT-FLAGS"])
def _(mp):
    _ignoring(mp, "--not-ready-timeout")


@fault("notready-event-every-check", breaks=["NODE-NOTREADY-EVENT"], level="reference")
def _(mp):
    def noisy(node, state, now):
        plan = _plan_node(node, state, now)
        if state is not rules.Health.FRESH and not plan.events:
            plan.events.append(rules.status_change_event(node["metadata"]["name"], "NodeNotReady"))
            plan.changed = True
        return plan
    mp.setattr(rules, "plan_node", noisy)
    mp.setattr(rules, "settles", lambda state: state is rules.Health.FRESH)


@fault("lifecycle-acts-on-unreachable-taint-only", breaks=["NODE-EVICT-NO-TOLERATION"], level="reference")
def _(mp):
    """A not-ready:NoExecute taint a user adds is ignored (our reading acts on it like unreachable)."""
    mp.setattr(rules, "EVICTING_KEYS", (rules.constants.TAINT_UNREACHABLE,))


# -- fair variants: other readings where the document is silent --------------------------------------
def _later(self) -> float:
    """Two checks on: one late is still within the document's bound on some clock phases."""
    return 2 * self.interval() - 1e-6


@fair("lifecycle-events-two-checks-late",
      passes=["NODE-NOTREADY-EVENT", "NODE-RECOVERY-CLEARS-TAINTS", "NODE-EVICT-EVENT"],
      differs=["NODE-NOTREADY-EVENT", "NODE-RECOVERY-CLEARS-TAINTS", "NODE-EVICT-EVENT"])
def _(mp):
    """NodeNotReady, NodeReady and Evicted are recorded two checks after the pass that made the change
    (an event queue drained now and then): the document gives events no deadline."""
    controller = node_lifecycle.NodeLifecycleController
    late: dict[int, list] = {}

    class Queue:
        def __init__(self, events, pending, due):
            self.events, self.pending, self.due = events, pending, due

        def record(self, *args, **kwargs):
            self.pending.append((self.due, args, kwargs))

        def __getattr__(self, name):
            return getattr(self.events, name)

    def reconcile(self, now):
        pending = late.setdefault(id(self), [])
        for entry in [e for e in pending if e[0] <= now]:
            pending.remove(entry)
            self.cp.events.record(*entry[1], **entry[2])
        events = self.cp.events
        self.cp.events = Queue(events, pending, now + _later(self))
        try:
            _reconcile(self, now)
        finally:
            self.cp.events = events

    def idle_until(self, now):
        return min([_idle_until(self, now), *(e[0] for e in late.get(id(self), []))])
    mp.setattr(controller, "reconcile", reconcile)
    mp.setattr(controller, "idle_until", idle_until)


@fair("lifecycle-events-own-type-and-words",
      passes=["NODE-NOTREADY-EVENT", "NODE-RECOVERY-CLEARS-TAINTS", "NODE-EVICT-EVENT"],
      differs=["NODE-NOTREADY-EVENT", "NODE-RECOVERY-CLEARS-TAINTS", "NODE-EVICT-EVENT"])
def _(mp):
    """A lost node is a Warning, an eviction Normal (as upstream's taint eviction), in other words."""
    def own(node_name, status):
        kind = "Warning" if status == reasons.EVENT_NODE_NOT_READY else "Normal"
        return (kind, status, f"node {node_name} is {status}")
    mp.setattr(rules, "status_change_event", own)
    mp.setattr(reasons, "EVENT_EVICTED_TYPE", "Normal")
    mp.setattr(reasons, "EVICTED_MESSAGE", "pod evicted from {node} ({taint})")


@fair("eviction-status-one-pass-late",
      passes=["NODE-EVICT-RETURNS-TO-PENDING", "NODE-EVICT-AT-TOLERATION-EXPIRY", "NODE-EVICT-NONPOSITIVE-SECONDS",
              "NODE-EVICT-REBIND", "NODE-RESTART-KEEPS-TIMEADDED", "NODE-RECOVERY-PODS-STAY"],
      differs=["NODE-EVICT-RETURNS-TO-PENDING"])
def _(mp):
    """Eviction unbinds the pod in one pass and writes its Pending/Evicted status and DisruptionTarget
    condition in the next (a spec write, then a status write): a status may lag its pass by one."""
    controller = node_lifecycle.NodeLifecycleController
    late: dict[int, list] = {}

    def evict(self, pod, node, taint, now):
        name = node["metadata"]["name"]
        unbound = rules.evicted(pod, name, taint, now)
        unbound["status"] = copy.deepcopy(pod.get("status") or {})
        self.cp.store.update("pods", unbound, check_rv=False)
        meta = pod["metadata"]
        late.setdefault(id(self), []).append((now + self.interval() - 1e-6, meta["namespace"], meta["name"],
                                              name, taint))
        self.cp.events.record(unbound, reasons.EVENT_EVICTED_TYPE, reasons.EVENT_EVICTED,
                              reasons.EVICTED_MESSAGE.format(node=name, taint=rules.taint_text(taint)),
                              reasons.NODE_CONTROLLER_COMPONENT)

    def reconcile(self, now):
        pending = late.setdefault(id(self), [])
        for entry in [e for e in pending if e[0] <= now]:
            pending.remove(entry)
            _, namespace, pod_name, node_name, taint = entry
            pod = self.cp.store.head.try_get("pods", namespace, pod_name)
            if pod is not None and not (pod.get("spec") or {}).get("nodeName"):
                pod["status"] = rules.evicted(pod, node_name, taint, now)["status"]
                self.cp.store.update("pods", pod, check_rv=False)
        _reconcile(self, now)

    def idle_until(self, now):
        return min([_idle_until(self, now), *(e[0] for e in late.get(id(self), []))])
    mp.setattr(controller, "evict", evict)
    mp.setattr(controller, "reconcile", reconcile)
    mp.setattr(controller, "idle_until", idle_until)


@fair("disruption-target-own-reason", passes=["NODE-EVICT-RETURNS-TO-PENDING"], differs=["NODE-EVICT-RETURNS-TO-PENDING"])
def _(mp):
    """The DisruptionTarget condition with the implementation's own reason and message."""
    mp.setattr(reasons, "DISRUPTION_TARGET_REASON", "NodeUnreachable")
    mp.setattr(reasons, "DISRUPTION_TARGET_MESSAGE", "the node stopped renewing its lease")


@fair("unknown-ready-in-own-words", passes=["NODE-NOTREADY-AT-LEASE-DURATION"],
      differs=["NODE-NOTREADY-AT-LEASE-DURATION"])
def _(mp):
    """The Ready Unknown condition says why in the implementation's own words."""
    mp.setattr(reasons, "NODE_STATUS_UNKNOWN_MESSAGE", "no lease renewal within the lease duration")


@fair("evicted-events-kept-in-kube-system", passes=["NODE-EVICT-EVENT"], differs=["NODE-EVICT-EVENT"])
def _(mp):
    """The controller keeps its Evicted events in its own namespace, kube-system, not the pod's (the
    event still names the pod: involvedObject)."""
    def evict(self, pod, node, taint, now):
        _evict(self, pod, node, taint, now)
        store = self.cp.store
        meta = pod["metadata"]
        for event in store.head.list("events", meta["namespace"]):
            involved = event.get("involvedObject") or {}
            if event.get("reason") == reasons.EVENT_EVICTED and involved.get("name") == meta["name"]:
                store.delete("events", meta["namespace"], event["metadata"]["name"])
                moved = copy.deepcopy(event)
                moved["metadata"] = {"name": event["metadata"]["name"], "namespace": "kube-system"}
                store.create("events", moved)
    mp.setattr(node_lifecycle.NodeLifecycleController, "evict", evict)
