"""Faults of the reference scheduler (``reference.scheduler``).

Each patches one documented rule in a small unit (a plugin, ``resources``, ``accounting``,
``messages``, the score, the tie-break, the loop) and names the clauses whose scenarios must then
fail. Faults that make the scheduler honour something the document says it ignores (taints,
affinity, topology, hardware requests) add an extra filter plugin to the profile.
"""

from __future__ import annotations

import copy
import types

import kube32.reference.scheduler as scheduler_pkg
from kube32.reference import controlplane
from kube32.reference import events as events_module
from kube32.reference.scheduler import accounting, framework, messages, registry, resources
from kube32.reference.scheduler import scheduler as sched
from kube32.reference.scheduler.plugins import (
    free_share,
    memory_fit,
    node_name,
    node_readiness,
    node_selector,
    peripheral_fit,
    psram_fit,
)
from kube32.spec import constants, profiles, quantities, reasons
from tests.sensitivity.registry import fair, fault

_check = node_readiness.check
_container_amount = resources.container_amount
_declared_total = resources.declared_total
_figure = resources.figure
_bus_count_for = resources.bus_count_for
_amount = resources.amount
_pod_memory = resources.pod_memory
_peripheral_filter_all = peripheral_fit.PeripheralFit.filter_all
_schedule = sched.Scheduler.schedule
_record_failure = sched.Scheduler.record_failure
_scheduler_init = sched.Scheduler.__init__


def _reasons(**changes) -> types.SimpleNamespace:
    """spec.reasons with some strings changed, for the scheduler module only."""
    names = {k: getattr(reasons, k) for k in dir(reasons) if k.isupper()}
    return types.SimpleNamespace(**{**names, **changes})


def _extra_filter(mp, name: str, rejects, reason: str) -> None:
    """Append a filter that rejects nodes for which ``rejects(pod dict, node dict)`` is true."""

    class Extra(framework.FilterPlugin):
        NAME = name

        def filter_all(self, pod, nodes):
            status = framework.unresolvable(name, reason)
            passed = [n for n in nodes if not rejects(pod.pod, n.node)]
            return passed, [(n, status) for n in nodes if rejects(pod.pod, n.node)]

    mp.setattr(registry, "FILTERS", (*registry.FILTERS, Extra))


def _requested(pod: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        out.update(res.get("limits") or {})
        out.update(res.get("requests") or {})
    return out


# -- binding and the loop ---------------------------------------------------------------------
@fault("sched-binds-only-in-the-loop", breaks=["SCHED-BIND-ON-CREATE"])
def _(mp):
    def install(cp):
        scheduler = sched.Scheduler(cp.store, cp.events, cp.clock)
        cp.loops.register(sched.ReconcileLoop(scheduler, cp.profile))
        cp.scheduler = types.SimpleNamespace(schedule=lambda pod: pod)   # the create hook does nothing
    mp.setattr(scheduler_pkg, "install", install)


@fault("sched-reschedules-named-pods", breaks=["SCHED-NODENAME-SKIPS-SCHEDULER", "SCHED-FILTER-NODENAME"])
def _(mp):
    mp.setattr(sched, "wants_scheduling", lambda pod: not accounting.is_terminal(pod))
    mp.setattr(node_name.NodeName, "pre_filter", lambda self, pod: framework.SKIP)


@fault("sched-named-node-filtered", breaks=["SCHED-NODENAME-SKIPS-SCHEDULER"])
def _(mp):
    """Named pods are run through the filters (and reported) but never moved."""
    def wants(pod):
        return not accounting.is_terminal(pod) and not (pod.get("metadata") or {}).get("deletionTimestamp")

    def schedule(self, pod):
        current = self.store.try_get("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
        if current is not None and (current.get("spec") or {}).get("nodeName"):
            decision = self.decide(framework.PodInfo.of(current))
            if decision.node is None:
                return self.record_failure(current, decision)
            return current
        return _schedule(self, pod)
    mp.setattr(sched, "wants_scheduling", wants)
    mp.setattr(sched.Scheduler, "schedule", schedule)


@fault("sched-retry-every-two-intervals", breaks=["SCHED-RECONCILE-RETRY"])
def _(mp):
    mp.setattr(sched.ReconcileLoop, "interval", lambda self: 2 * self.profile.reconcile_interval)


# -- filter 1: readiness ----------------------------------------------------------------------
def _node_without(node: dict, *, unschedulable=False, conditions=False) -> dict:
    node = {**node, "spec": dict(node.get("spec") or {}), "status": dict(node.get("status") or {})}
    if unschedulable:
        node["spec"].pop("unschedulable", None)
    if conditions:
        node["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    return node


@fault("sched-cordon-ignored", breaks=["SCHED-FILTER-UNSCHEDULABLE"])
def _(mp):
    mp.setattr(node_readiness, "check", lambda node: _check(_node_without(node, unschedulable=True)))


@fault("sched-missing-status-is-ready", breaks=["SCHED-FILTER-STATUS-PRESENT"])
def _(mp):
    def check(node):
        if node_readiness.ready_condition(node) is None:
            return _check(_node_without(node, conditions=True))
        return _check(node)
    mp.setattr(node_readiness, "check", check)


@fault("sched-ready-condition-ignored", breaks=["SCHED-FILTER-READY"])
def _(mp):
    def check(node):
        cond = node_readiness.ready_condition(node)
        if cond is not None and cond.get("status") != "True":
            return _check(_node_without(node, conditions=True))
        return _check(node)
    mp.setattr(node_readiness, "check", check)


# -- filters 3-6 ------------------------------------------------------------------------------
@fault("sched-node-selector-ignored", breaks=["SCHED-FILTER-NODESELECTOR"])
def _(mp):
    mp.setattr(node_selector.NodeSelector, "pre_filter", lambda self, pod: framework.SKIP)


@fault("sched-node-selector-keys-only", breaks=["SCHED-FILTER-NODESELECTOR"])
def _(mp):
    def keys_only(self, pod, nodes):
        status = framework.unresolvable(node_selector.NAME, node_selector.REASON)
        passed = [n for n in nodes if all(k in n.labels for k in pod.node_selector)]
        return passed, [(n, status) for n in nodes if n not in passed]
    mp.setattr(node_selector.NodeSelector, "filter_all", keys_only)


@fault("sched-memory-must-be-strictly-less", breaks=["SCHED-FILTER-MEMORY"])
def _(mp):
    mp.setattr(memory_fit, "need", lambda pod: pod.amounts[resources.MEMORY] + 1)


@fault("sched-memory-limit-ignored", breaks=["SCHED-MEMORY-LIMIT-FALLBACK"])
def _(mp):
    def requests_only(container, resource):
        requests = ((container.get("resources") or {}).get("requests") or {})
        return resources.amount(requests[resource]) if resource in requests else None
    mp.setattr(resources, "container_amount", requests_only)


@fault("sched-memory-limit-per-pod", breaks=["SCHED-MEMORY-LIMIT-FALLBACK"], level="reference")
def _(mp):
    """Limits count only when no container of the pod has a request."""
    def declared_total(pod, resource):
        containers = (pod.get("spec") or {}).get("containers") or []
        reqs = [(c.get("resources") or {}).get("requests") or {} for c in containers]
        if any(resource in r for r in reqs):
            return sum(resources.amount(r[resource]) for r in reqs if resource in r)
        return _declared_total(pod, resource)
    mp.setattr(resources, "declared_total", declared_total)


@fault("sched-no-default-memory", breaks=["SCHED-MEMORY-DEFAULT"])
def _(mp):
    mp.setattr(resources, "pod_memory", lambda pod: resources.declared_total(pod, resources.MEMORY) or 0)


@fault("sched-default-memory-per-container", breaks=["SCHED-MEMORY-DEFAULT"], level="reference")
def _(mp):
    def pod_memory(pod):
        containers = (pod.get("spec") or {}).get("containers") or []
        return sum(constants.DEFAULT_POD_MEMORY if (v := resources.container_amount(c, resources.MEMORY)) is None
                   else v for c in containers)
    mp.setattr(resources, "pod_memory", pod_memory)


@fault("sched-psram-short-name-unknown", breaks=["SCHED-FILTER-PSRAM"])
def _(mp):
    def pod_psram(pod):
        return resources.declared_total(pod, resources.PSRAM) or 0, resources.PSRAM

    def node_psram(status):
        return resources.figure(status, resources.PSRAM) or 0
    mp.setattr(resources, "pod_psram", pod_psram)
    mp.setattr(resources, "node_psram", node_psram)


@fault("sched-psram-reason-generic", breaks=["SCHED-FILTER-PSRAM", "EXAMPLE-OVERSIZED-POD-MESSAGE"])
def _(mp):
    mp.setattr(psram_fit, "reason", lambda pod: "Insufficient psram")


@fault("sched-peripherals-ignored", breaks=["SCHED-FILTER-PERIPHERALS"])
def _(mp):
    mp.setattr(peripheral_fit.PeripheralFit, "pre_filter", lambda self, pod: framework.SKIP)


@fault("sched-rmt-rx-not-checked", breaks=["SCHED-FILTER-PERIPHERALS"])
def _(mp):
    mp.setattr(peripheral_fit, "RESOURCES", tuple(r for r in peripheral_fit.RESOURCES if r != "esp32.io/rmt-rx"))


@fault("sched-named-buses-free", breaks=["SCHED-NAMED-BUS-CONSUMES-ONE"])
def _(mp):
    mp.setattr(resources, "bus_units", lambda buses: 0)


@fault("sched-named-bus-counts-its-amount", breaks=["SCHED-NAMED-BUS-CONSUMES-ONE"], level="reference")
def _(mp):
    def named_buses_amounts(pod):
        out: dict[str, int] = {}
        for name, value in _requested(pod).items():
            count = resources.bus_count_for(name)
            if count is not None:
                out[count] = out.get(count, 0) + resources.amount(value)
        return out

    def pod_counts(pod):
        buses = named_buses_amounts(pod)
        return {name: (resources.declared_total(pod, name) or 0) + buses.get(name, 0)
                for name in constants.PERIPHERAL_RESOURCES}
    mp.setattr(resources, "pod_counts", pod_counts)


@fault("sched-filters-reversed", breaks=["SCHED-FILTER-ORDER"])
def _(mp):
    mp.setattr(registry, "FILTERS", tuple(reversed(registry.FILTERS)))


@fault("sched-selector-after-resources", breaks=["SCHED-FILTER-ORDER"])
def _(mp):
    f = registry.FILTERS
    mp.setattr(registry, "FILTERS", (f[0], f[1], f[3], f[4], f[5], f[2]))


# -- quantities and node figures --------------------------------------------------------------
@fault("sched-binary-suffixes-decimal", breaks=["SCHED-QUANTITY-GRAMMAR"])
def _(mp):
    def amount(text):
        if isinstance(text, str) and text[-2:] in quantities.BINARY:
            text = text[:-2] + {"Ki": "k", "Mi": "M", "Gi": "G", "Ti": "T", "Pi": "P", "Ei": "E"}[text[-2:]]
        return _amount(text)
    mp.setattr(resources, "amount", amount)


@fault("sched-fractions-truncated", breaks=["SCHED-QUANTITY-GRAMMAR"])
def _(mp):
    def amount(text):
        try:
            return int(quantities.parse(text))
        except quantities.QuantityError:
            return 0
    mp.setattr(resources, "amount", amount)


@fault("sched-unknown-suffix-ignored-not-zero", breaks=["SCHED-QUANTITY-UNKNOWN-SUFFIX"])
def _(mp):
    def amount(text):
        if isinstance(text, str):
            match = quantities._NUMBER.match(text)
            if match and quantities.multiplier(match.group(2)) is None:
                return _amount(match.group(1))
        return _amount(text)
    mp.setattr(resources, "amount", amount)


@fault("sched-capacity-before-allocatable", breaks=["SCHED-ALLOCATABLE-FALLBACK"])
def _(mp):
    def figure(status, resource):
        for field in ("capacity", "allocatable"):
            if resource in (status.get(field) or {}):
                return resources.amount(status[field][resource])
        return None
    mp.setattr(resources, "figure", figure)


@fault("sched-allocatable-only", breaks=["SCHED-ALLOCATABLE-FALLBACK"])
def _(mp):
    def figure(status, resource):
        values = status.get("allocatable") or {}
        return resources.amount(values[resource]) if resource in values else None
    mp.setattr(resources, "figure", figure)


# -- accounting -------------------------------------------------------------------------------
@fault("sched-running-pods-subtracted", breaks=["SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED"])
def _(mp):
    mp.setattr(accounting, "counts_against_node", lambda pod, rv: not accounting.is_terminal(pod))


@fault("sched-pending-pods-not-subtracted", breaks=["SCHED-ACCOUNT-PENDING-SUBTRACTED"])
def _(mp):
    mp.setattr(accounting, "is_pending", lambda pod: False)


@fault("sched-waiting-pods-not-subtracted", breaks=["SCHED-ACCOUNT-WAITING-RESTART-SUBTRACTED"])
def _(mp):
    mp.setattr(accounting, "waiting_to_restart", lambda pod: False)


@fault("sched-late-writes-not-subtracted",
       breaks=["SCHED-ACCOUNT-MODIFIED-AFTER-STATUS", "LIMIT-NODE-WRITE-RESETS-ACCOUNTING"])
def _(mp):
    mp.setattr(accounting, "modified_after_status", lambda pod, rv: False)


@fault("sched-late-writes-always-subtracted",
       breaks=["SCHED-ACCOUNT-MODIFIED-AFTER-STATUS", "LIMIT-NODE-WRITE-RESETS-ACCOUNTING"])
def _(mp):
    """Running pods count until they are older than the node's *status* (not any Node write):
    approximated by never letting a Node write end the subtraction."""
    mp.setattr(accounting, "modified_after_status", lambda pod, rv: True)


@fault("sched-finished-pods-subtracted", breaks=["SCHED-ACCOUNT-TERMINAL-IGNORED"], level="reference")
def _(mp):
    mp.setattr(accounting, "is_terminal", lambda pod: False)


# -- what the scheduler ignores ---------------------------------------------------------------
@fault("sched-hardware-requests-filtered", breaks=["SCHED-IGNORE-HARDWARE-RESOURCES"])
def _(mp):
    def rejects(pod, node):
        status = node.get("status") or {}
        return any(resources.amount(v) > (resources.figure(status, k) or 0)
                   for k, v in _requested(pod).items() if k.startswith(constants.IGNORED_RESOURCE_PREFIXES))
    _extra_filter(mp, "HardwareFit", rejects, "Insufficient hardware")


@fault("sched-pin-claims-counted-as-gpio", breaks=["SCHED-IGNORE-GPIO-PIN-CLAIMS"])
def _(mp):
    def bus_count_for(name):
        if name.startswith(constants.GPIO + "-"):
            return constants.GPIO
        return _bus_count_for(name)
    mp.setattr(resources, "bus_count_for", bus_count_for)


def _tolerated(pod: dict, taint: dict) -> bool:
    for t in (pod.get("spec") or {}).get("tolerations") or []:
        if t.get("key") in (None, "", taint.get("key")) and t.get("effect") in (None, "", taint.get("effect")):
            return True
    return False


@fault("sched-taints-honoured", breaks=["SCHED-IGNORE-TAINTS"])
def _(mp):
    def rejects(pod, node):
        return any(t.get("effect") in ("NoSchedule", "NoExecute") and not _tolerated(pod, t)
                   for t in (node.get("spec") or {}).get("taints") or [])
    _extra_filter(mp, "TaintToleration", rejects, "node(s) had untolerated taint(s)")


@fault("sched-node-affinity-honoured", breaks=["SCHED-IGNORE-AFFINITY"])
def _(mp):
    def rejects(pod, node):
        required = ((((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {})
                    .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
        terms = required.get("nodeSelectorTerms") or []
        if not terms:
            return False
        labels = (node.get("metadata") or {}).get("labels") or {}
        return not any(all(labels.get(e["key"]) in e.get("values", []) for e in term.get("matchExpressions") or [])
                       for term in terms)
    _extra_filter(mp, "NodeAffinity", rejects, reasons.REASON_NODE_SELECTOR)


@fault("sched-topology-honoured", breaks=["SCHED-IGNORE-TOPOLOGY"])
def _(mp):
    def rejects(pod, node):
        labels = (node.get("metadata") or {}).get("labels") or {}
        return any(c.get("whenUnsatisfiable") == "DoNotSchedule" and c.get("topologyKey") not in labels
                   for c in (pod.get("spec") or {}).get("topologySpreadConstraints") or [])
    _extra_filter(mp, "PodTopologySpread", rejects, "node(s) didn't match pod topology spread constraints")


# -- scoring ----------------------------------------------------------------------------------
@fault("sched-score-before-binding", breaks=["SCHED-SCORE-MEAN-AFTER-BIND"])
def _(mp):
    mp.setattr(free_share, "demand", lambda pod: tuple(0 for _ in free_share.TERMS))


@fault("sched-score-memory-only", breaks=["SCHED-SCORE-MEAN-AFTER-BIND"])
def _(mp):
    mp.setattr(free_share, "TERMS", (resources.MEMORY,))


@fault("sched-score-gpio-only", breaks=["SCHED-SCORE-MEAN-AFTER-BIND"])
def _(mp):
    mp.setattr(free_share, "TERMS", (resources.GPIO,))


@fault("sched-score-free-amounts", breaks=["SCHED-SCORE-MEAN-AFTER-BIND"])
def _(mp):
    """Free amounts (bytes + pins) instead of percentages."""
    mp.setattr(free_share, "percent", lambda left, total, number=float: number(left) if total > 0 else number(0))


@fault("sched-lowest-score-wins", breaks=["SCHED-SCORE-MEAN-AFTER-BIND"])
def _(mp):
    def select_host(self, pod, ranked):
        low = min(score for score, _ in ranked.groups)
        return sched.tie_break([name for (score, _), group in ranked.groups.items() if score == low
                                for name in group])
    mp.setattr(sched.Scheduler, "select_host", select_host)


@fault("sched-no-gpio-counts-as-free", breaks=["SCHED-SCORE-NO-GPIO"], level="reference")
def _(mp):
    mp.setattr(free_share, "percent",
               lambda left, total, number=float: number(100) * left / total if total > 0 else number(100))


@fault("sched-tie-break-descending", breaks=["SCHED-TIE-BREAK"])
def _(mp):
    mp.setattr(sched, "tie_break", lambda names: max(names))


# -- reporting --------------------------------------------------------------------------------
@fault("sched-condition-reason-scheduler-error", breaks=["SCHED-UNSCHEDULABLE-CONDITION"])
def _(mp):
    mp.setattr(sched, "reasons", _reasons(POD_REASON_UNSCHEDULABLE="SchedulerError"))


@fault("sched-condition-without-message", breaks=["SCHED-UNSCHEDULABLE-CONDITION"], level="reference")
def _(mp):
    def record_failure(self, pod, decision):
        stored = copy.deepcopy(_record_failure(self, pod, decision))     # stored objects are read-only
        for c in stored.get("status", {}).get("conditions") or []:
            if c.get("type") == "PodScheduled":
                c.pop("message", None)
        return self.store.update("pods", stored, check_rv=False)
    mp.setattr(sched.Scheduler, "record_failure", record_failure)


@fault("sched-event-from-another-component", breaks=["SCHED-FAILED-SCHEDULING-EVENT"], level="reference")
def _(mp):
    mp.setattr(sched, "reasons", _reasons(SCHEDULER_COMPONENT="kube32-scheduler"))


@fault("sched-failure-recorded-as-normal",
       breaks=["SCHED-FAILED-SCHEDULING-EVENT", "EXAMPLE-EVENT-ROW"])
def _(mp):
    def init(self, store, events, clock):
        _scheduler_init(self, store, events, clock)
        real = self.events

        def record(obj, type_, reason, message, component):
            if reason == reasons.EVENT_FAILED_SCHEDULING:
                type_ = "Normal"
            return real.record(obj, type_, reason, message, component)
        self.events = types.SimpleNamespace(record=record)
    mp.setattr(sched.Scheduler, "__init__", init)


@fault("sched-message-sorted-by-count", breaks=["SCHED-FAILED-SCHEDULING-MESSAGE"], level="reference")
def _(mp):
    mp.setattr(messages, "sort_entries", lambda entries: sorted(entries, key=lambda e: int(e.split(" ", 1)[0])))


@fault("sched-message-in-filter-order", breaks=["SCHED-FAILED-SCHEDULING-MESSAGE"], level="reference")
def _(mp):
    mp.setattr(messages, "sort_entries", lambda entries: list(entries))


@fault("sched-no-nodes-fit-error", breaks=["SCHED-FAILED-SCHEDULING-MESSAGE"], level="reference")
def _(mp):
    mp.setattr(messages, "no_nodes", lambda: "0/0 nodes are available.")


@fault("sched-unschedulable-pod-reason", breaks=["EXAMPLE-PENDING-POD-ROW"])
def _(mp):
    """The pod itself gets status.reason Unschedulable, so lists show that instead of Pending."""
    def record_failure(self, pod, decision):
        pod = {**pod, "status": {**(pod.get("status") or {}), "reason": reasons.POD_REASON_UNSCHEDULABLE}}
        return _record_failure(self, pod, decision)
    mp.setattr(sched.Scheduler, "record_failure", record_failure)


@fault("sched-reports-every-requested-peripheral", breaks=["SCHED-FILTER-PERIPHERALS"])
def _(mp):
    """A node short of one peripheral is reported short of every peripheral the pod asks for."""
    def filter_all(self, pod, nodes):
        passed, rejected = _peripheral_filter_all(self, pod, nodes)
        every = framework.unschedulable(peripheral_fit.NAME, *(peripheral_fit.reason(n)
                                                               for n, _ in peripheral_fit.needs(pod)))
        return passed, [(node, every) for node, _ in rejected]
    mp.setattr(peripheral_fit.PeripheralFit, "filter_all", filter_all)


@fault("sched-hardware-amounts-counted-as-memory", breaks=["SCHED-IGNORE-HARDWARE-RESOURCES"])
def _(mp):
    """hardware.kube32.io amounts (written with Ki/Mi like memory) are added to the pod's memory."""
    def pod_memory(pod):
        hardware = sum(resources.amount(v) for k, v in _requested(pod).items()
                       if k.startswith(constants.IGNORED_RESOURCE_PREFIXES))
        return _pod_memory(pod) + hardware
    mp.setattr(resources, "pod_memory", pod_memory)


@fault("reconcile-interval-flag-ignored", breaks=["SCHED-RECONCILE-RETRY"])
def _(mp):
    """--reconcile-interval is read but the retries keep the document's default pace."""
    mp.setattr(sched.ReconcileLoop, "interval", lambda self: profiles.load(self.profile.name).reconcile_interval)


# -- fair variants: the document read another way where it is silent ---------------------------
@fair("scheduler-records-no-scheduled-event", passes=["SCHED-BIND-ON-CREATE", "SCHED-NODENAME-SKIPS-SCHEDULER"],
      differs=["SCHED-BIND-ON-CREATE"])
def _(mp):
    """A binding leaves no event (the document names FailedScheduling, not Scheduled)."""
    real = events_module.EventRecorder.record

    def record(self, obj, type_, reason, message, component):
        return {} if reason == reasons.EVENT_SCHEDULED else real(self, obj, type_, reason, message, component)
    mp.setattr(events_module.EventRecorder, "record", record)


@fair("named-pods-marked-scheduled", passes=["SCHED-NODENAME-SKIPS-SCHEDULER", "SCHED-FILTER-NODENAME"],
      differs=["SCHED-NODENAME-SKIPS-SCHEDULER"])
def _(mp):
    """A pod created with spec.nodeName is marked PodScheduled True at admission (as upstream's
    kubelet marks the pods it runs): never found unschedulable, still never scheduled."""
    real = controlplane.ControlPlane.admit

    def admit(self, res, obj, old, operation):
        real(self, res, obj, old, operation)
        if res == "pods" and operation == "CREATE" and (obj.get("spec") or {}).get("nodeName"):
            obj.setdefault("status", {}).setdefault("conditions", []).append(
                {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": None})
    mp.setattr(controlplane.ControlPlane, "admit", admit)


@fair("scheduler-drops-podscheduled-on-binding", passes=["SCHED-UNSCHEDULABLE-CONDITION"],
      differs=["SCHED-UNSCHEDULABLE-CONDITION"])
def _(mp):
    """Binding removes the PodScheduled condition instead of turning it True (the document names
    only the False one)."""
    real = sched.Scheduler._set_scheduled_condition

    def set_condition(self, pod, fields):
        if fields.get("status") == "True":
            status = pod.setdefault("status", {})
            status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
            return
        real(self, pod, fields)
    mp.setattr(sched.Scheduler, "_set_scheduled_condition", set_condition)


@fault("quantity-k-and-G-read-as-unknown", breaks=["SCHED-QUANTITY-GRAMMAR"])
def _(mp):
    """k and G are not known suffixes, so an amount written with them counts as 0."""
    mp.setattr(quantities, "DECIMAL", {s: v for s, v in quantities.DECIMAL.items() if s not in ("k", "G")})


def _pending_not_subtracted(counted: str):
    def apply(mp):
        real = accounting.usage

        def usage(bound, node_resource_version):
            bound = list(bound)
            out = real(bound, node_resource_version)
            for pod, amounts in bound:
                if accounting.is_pending(pod) and accounting.counts_against_node(pod, node_resource_version):
                    out[counted] -= amounts.get(counted, 0)
            return out
        mp.setattr(accounting, "usage", usage)
    return apply


for _counted in resources.COUNTED:      # one fault per counted resource: each must be caught on its own
    fault(f"pending-pods-{_counted.rsplit('/', 1)[-1]}-not-subtracted",
          breaks=["SCHED-ACCOUNT-PENDING-SUBTRACTED"])(_pending_not_subtracted(_counted))
