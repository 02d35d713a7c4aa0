"""Which scheduling clause a placement disagreement is about: the first documented rule that tells
the oracle's answer from the target's, worked out with the reference's readings (readings.py)."""

from __future__ import annotations

from collections import Counter

from kube32.conformance.explore import readings
from kube32.conformance.steps import _fit
from kube32.spec import constants, reasons

R = readings.REFERENCE_READING
FILTER_CLAUSES = {
    readings.INSUFFICIENT.format(resource=constants.MEMORY): "SCHED-FILTER-MEMORY",
    readings.INSUFFICIENT.format(resource=readings.PSRAM): "SCHED-FILTER-PSRAM",
    reasons.REASON_NODE_SELECTOR: "SCHED-FILTER-NODESELECTOR",
}


def _reason_clause(reason: str) -> str:
    if reason in FILTER_CLAUSES:
        return FILTER_CLAUSES[reason]
    if reason.startswith(_fit._INSUFFICIENT):
        return "SCHED-FILTER-PERIPHERALS"
    return "SCHED-FILTER-READY"


def _readiness_clause(node: dict) -> str:
    if (node.get("spec") or {}).get("unschedulable"):
        return "SCHED-FILTER-UNSCHEDULABLE"
    cond = next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None)
    return "SCHED-FILTER-STATUS-PRESENT" if cond is None else "SCHED-FILTER-READY"


def _accounting_clause(pod: dict, node: dict, pods: list[dict]) -> str | None:
    """The accounting rule that took the room, when without it the node would have passed."""
    name = node["metadata"]["name"]
    for other in pods:
        if (other.get("spec") or {}).get("nodeName") != name or not readings.counts_against(other, node, R):
            continue
        if readings._phase(other) == "Pending":
            return "SCHED-ACCOUNT-PENDING-SUBTRACTED"
        statuses = (other.get("status") or {}).get("containerStatuses") or []
        if any("waiting" in (c.get("state") or {}) for c in statuses):
            return "SCHED-ACCOUNT-WAITING-RESTART-SUBTRACTED"
        return "SCHED-ACCOUNT-MODIFIED-AFTER-STATUS"
    return None


def _rejection(pod: dict, node: dict, pods: list[dict]) -> tuple[str, ...] | None:
    need = readings.pod_amounts(pod, R)
    return readings._rejection(pod, node, need, readings._free(node, pods, R), R)


def _uses_suffixes(pod: dict, node: dict) -> bool:
    texts = [*readings._quantities(pod), *readings._quantities(node)]
    return any(str(t).rstrip().endswith(tuple("kMGm")) for t in texts)


def wrong_node(pod: dict, node: dict, oracle_node: dict | None, nodes: list[dict], pods: list[dict]) -> str:
    """The target bound the pod to ``node``; the oracle to ``oracle_node`` (None: nowhere)."""
    rejected = _rejection(pod, node, pods)
    if rejected is not None:
        if rejected == (readings.OTHER,):
            return _readiness_clause(node)
        without = readings._rejection(pod, node, readings.pod_amounts(pod, R), readings.node_figures(node, R), R)
        if without is None:
            return _accounting_clause(pod, node, pods) or "SCHED-ACCOUNT-PENDING-SUBTRACTED"
        return _reason_clause(rejected[0])
    if oracle_node is None:
        return "SCHED-FILTER-ORDER"
    need = readings.pod_amounts(pod, R)
    mine = readings._score(node, need, readings._free(node, pods, R), R)
    theirs = readings._score(oracle_node, need, readings._free(oracle_node, pods, R), R)
    return "SCHED-TIE-BREAK" if mine == theirs else "SCHED-SCORE-MEAN-AFTER-BIND"


def not_bound(pod: dict, oracle_node: dict, pods: list[dict]) -> str:
    """The oracle bound the pod to ``oracle_node``; the target left it unbound."""
    free = readings._free(oracle_node, pods, R)
    need = readings.pod_amounts(pod, R)
    running = [p for p in pods if (p.get("spec") or {}).get("nodeName") == oracle_node["metadata"]["name"]
               and readings._phase(p) == "Running" and not readings.counts_against(p, oracle_node, R)]
    tight = [name for name, amount in need.items() if amount > 0 and amount == free[name]]
    if tight:
        return {constants.MEMORY: "SCHED-FILTER-MEMORY", readings.PSRAM: "SCHED-FILTER-PSRAM"}.get(
            tight[0], "SCHED-FILTER-PERIPHERALS")
    if running:
        return "SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED"
    if _uses_suffixes(pod, oracle_node):
        return "SCHED-QUANTITY-GRAMMAR"
    return "SCHED-BIND-ON-CREATE"


def counts(oracle_message: str, target_message: str | None) -> str:
    """Which documented reason's count differs between two FailedScheduling messages."""
    want = _fit.documented_form(oracle_message)
    got = _fit.documented_form(target_message or "")
    if want is None or got is None or want[0] != got[0]:
        return "SCHED-FAILED-SCHEDULING-MESSAGE"
    delta = Counter(want[1])
    delta.subtract(got[1])
    changed = [reason for reason, n in delta.items() if n]
    if len(changed) == 2 and any(r in (reasons.REASON_NODE_SELECTOR, _fit.UNDOCUMENTED) for r in changed):
        return "SCHED-FILTER-ORDER"
    return _reason_clause(changed[0]) if changed else "SCHED-FAILED-SCHEDULING-MESSAGE"
