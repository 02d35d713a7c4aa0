"""The node lifecycle rules as pure functions: (node, lease, pods, now) -> what should change.

Nothing here reads the store or the clock; ``node_lifecycle.NodeLifecycleController`` feeds these
functions and writes what they return. Every rule is a module attribute so the sensitivity suite can
replace one at a time. The timed rules (``health``, ``pod_verdict``) answer with what holds now and
until when it holds by time alone (``Timed.until``): the controller wakes a node at that moment and
never works a deadline out itself.

Timeline of a node whose Lease stops being renewed (``last`` = when the controller last saw its
renewTime change, see ``observe`` and ``first_sight``):

- ``last + threshold``: Ready becomes Unknown (reason NodeStatusUnknown), taint
  ``node.kubernetes.io/unreachable:NoSchedule``, event NodeNotReady. ``threshold`` is the Lease's own
  ``leaseDurationSeconds`` (the profile's ``not_ready_timeout`` when the Lease declares none).
- ``last + threshold + noexecute_delay``: taint ``node.kubernetes.io/unreachable:NoExecute`` with
  ``timeAdded``.
- per pod: evicted at ``timeAdded + tolerationSeconds`` of its matching toleration (at once when it has
  none, or when ``tolerationSeconds <= 0``; never when every matching toleration omits it). The
  NoExecute taints acted on are the unreachable one and a not-ready one (which only a user adds).

A renewal (``now - last < threshold``) undoes the node part: Ready True, both taints removed, NodeReady.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
from typing import Generic, TypeVar

from kube32.reference.machinery import defaults
from kube32.reference.machinery.conditions import ready_condition
from kube32.spec import constants, reasons, timefmt

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
TERMINAL_PHASES = ("Succeeded", "Failed")
EVICTING_KEYS = (constants.TAINT_UNREACHABLE, constants.TAINT_NOT_READY)
T = TypeVar("T")


class Health(enum.Enum):
    FRESH = "fresh"                    # renewed within the threshold
    UNREACHABLE = "unreachable"        # threshold passed: Unknown + NoSchedule
    NO_EXECUTE = "no-execute"          # threshold + delay passed: also NoExecute


class PodVerdict(enum.Enum):
    KEEP = "keep"
    EVICT = "evict"                    # back to Pending, unbound, for the scheduler to rebind
    REMOVE = "remove"                  # terminating pod: deleted from the store


NEVER = float("inf")


@dataclasses.dataclass(frozen=True)
class Timed(Generic[T]):
    """A timed rule's answer: ``value`` holds now and, with nothing written, until ``until``
    (NEVER: for good). ``cause``: what the answer is for (the taint a pod is evicted for)."""

    value: T
    until: float = NEVER
    cause: dict | None = None


@dataclasses.dataclass
class NodePlan:
    """The node as it should be after this pass, and the node events to record."""

    node: dict
    changed: bool
    events: list[tuple[str, str, str]]   # (type, reason, message)


# -- leases and time ------------------------------------------------------------------------------
@dataclasses.dataclass
class Renewals:
    """What the controller remembers of one node's Lease: the renewTime it last saw, and when (on
    the control plane's clock) it saw that renewTime change. Timing never trusts the board's clock."""

    seen: str | None
    at: float


def lease_renew_time(lease: dict | None) -> str | None:
    """spec.renewTime as written (None: no Lease or never renewed)."""
    return ((lease or {}).get("spec") or {}).get("renewTime") or None


def lease_threshold(lease: dict | None, fallback: float) -> float:
    """The Lease's own leaseDurationSeconds; ``fallback`` (not_ready_timeout) when it declares none."""
    duration = ((lease or {}).get("spec") or {}).get("leaseDurationSeconds")
    return float(duration) if duration else float(fallback)


def first_sight(node: dict, renew_time: str | None, threshold: float, since: float) -> Renewals:
    """The first time this controller sees a node (at start, or when it appears).

    A node not already timed out counts as renewed at ``since`` (the controller's start for nodes
    present then, so a restart grants a full lease duration; the moment of sight for later ones).
    A node we had already marked Unknown stays timed out: its clock restarts from when it went
    Unknown (the Ready condition's lastTransitionTime, written on our own clock).
    """
    if marked_unknown(node):
        went_unknown = (ready_condition(node) or {}).get("lastTransitionTime")
        base = timefmt.parse(went_unknown) if went_unknown else since
        return Renewals(renew_time, base - threshold)
    return Renewals(renew_time, since)


def clamp_renewal(renew_time: str | None, earliest: float, latest: float) -> float:
    """The renewTime as a time, trusted only within [earliest, latest] (board clocks may be off)."""
    written = timefmt.parse(renew_time) if renew_time else earliest
    return min(latest, max(earliest, written))


def observe(renewals: Renewals, renew_time: str | None, now: float) -> Renewals:
    """A renewTime different from the last one seen is a renewal, observed now."""
    if renew_time is not None and renew_time != renewals.seen:
        return Renewals(renew_time, now)
    return renewals


def silence(last: float, threshold: float, noexecute_delay: float) -> list[tuple[float, Health]]:
    """The healths a node that last renewed at ``last`` reaches without a renewal, each with the
    moment it begins: it times out AT the threshold (not one check later), and the NoExecute taint
    comes ``noexecute_delay`` after that. Before the first moment it is FRESH."""
    return [(last + threshold, Health.UNREACHABLE), (last + threshold + noexecute_delay, Health.NO_EXECUTE)]


def health(last: float, threshold: float, noexecute_delay: float, now: float) -> Timed[Health]:
    """The node's health at ``now``, until the next moment of ``silence``."""
    state = Health.FRESH
    for begins, reached in silence(last, threshold, noexecute_delay):
        if now < begins:
            return Timed(state, begins)
        state = reached
    return Timed(state)


# -- node conditions and taints -------------------------------------------------------------------
def marked_unknown(node: dict) -> bool:
    """Ready=Unknown with our reason: this controller timed the node out."""
    ready = ready_condition(node)
    return bool(ready) and ready.get("status") == "Unknown" and ready.get("reason") == reasons.NODE_STATUS_UNKNOWN


def has_taint(node: dict, key: str, effect: str) -> bool:
    return find_taint(node, key, effect) is not None


def find_taint(node: dict, key: str, effect: str) -> dict | None:
    for t in (node.get("spec") or {}).get("taints") or []:
        if t.get("key") == key and t.get("effect") == effect:
            return t
    return None


def unreachable_taint(effect: str, now: float) -> dict:
    return {"key": constants.TAINT_UNREACHABLE, "effect": effect, "timeAdded": timefmt.rfc3339(now)}


def status_change_event(node_name: str, status: str) -> tuple[str, str, str]:
    """("Normal", NodeNotReady|NodeReady, "Node <n> status is now: <status>")."""
    return ("Normal", status, reasons.NODE_STATUS_CHANGE_MESSAGE.format(node=node_name, status=status))


def _set_ready(node: dict, status: str, reason: str, message: str, now: float) -> None:
    conditions = node.setdefault("status", {}).setdefault("conditions", [])
    for c in conditions:
        if c.get("type") == "Ready":
            if c.get("status") != status:
                c["lastTransitionTime"] = timefmt.rfc3339(now)
            c.update(status=status, reason=reason, message=message)
            return
    conditions.append({"type": "Ready", "status": status, "reason": reason, "message": message,
                       "lastTransitionTime": timefmt.rfc3339(now)})


def mark_unreachable(node: dict, now: float) -> list[tuple[str, str, str]]:
    """Ready -> Unknown (lastHeartbeatTime kept, as upstream); NodeNotReady only when it was True."""
    ready = ready_condition(node) or {}
    was = ready.get("status")
    _set_ready(node, "Unknown", reasons.NODE_STATUS_UNKNOWN, reasons.NODE_STATUS_UNKNOWN_MESSAGE, now)
    if was == "True":
        return [status_change_event(node["metadata"]["name"], reasons.EVENT_NODE_NOT_READY)]
    return []


def mark_reachable(node: dict, now: float) -> list[tuple[str, str, str]]:
    """Ready back to True when we had set it Unknown; the unreachable taints go; NodeReady."""
    if marked_unknown(node):
        _set_ready(node, "True", reasons.KUBELET_READY, reasons.KUBELET_READY_MESSAGE, now)
    remove_unreachable_taints(node)
    return [status_change_event(node["metadata"]["name"], reasons.EVENT_NODE_READY)]


def add_taint(node: dict, effect: str, now: float) -> None:
    spec = node.setdefault("spec", {})
    spec["taints"] = [*(spec.get("taints") or []), unreachable_taint(effect, now)]


def remove_unreachable_taints(node: dict) -> None:
    spec = node.setdefault("spec", {})
    kept = [t for t in spec.get("taints") or [] if t.get("key") != constants.TAINT_UNREACHABLE]
    if kept:
        spec["taints"] = kept
    else:
        spec.pop("taints", None)


def plan_node(node: dict, state: Health, now: float) -> NodePlan:
    """What the node should look like for ``state``; only the differences are applied."""
    unreachable = marked_unknown(node) or has_taint(node, constants.TAINT_UNREACHABLE, NO_SCHEDULE) \
        or has_taint(node, constants.TAINT_UNREACHABLE, NO_EXECUTE)
    if state is Health.FRESH and not unreachable:
        return NodePlan(node, False, [])       # a healthy node as it should be (no copy: 5,000 report Ready at once)
    new = copy.deepcopy(node)
    events: list[tuple[str, str, str]] = []
    if state is Health.FRESH:
        events += mark_reachable(new, now)
    else:
        ready = ready_condition(node) or {}
        if ready.get("status") != "Unknown":
            events += mark_unreachable(new, now)
        if not has_taint(new, constants.TAINT_UNREACHABLE, NO_SCHEDULE):
            add_taint(new, NO_SCHEDULE, now)
        if state is Health.NO_EXECUTE and not has_taint(new, constants.TAINT_UNREACHABLE, NO_EXECUTE):
            add_taint(new, NO_EXECUTE, now)
    return NodePlan(new, new != node, events)


def settles(state: Health) -> bool:
    """Whether a node left unchanged in ``state`` needs no new plan until its object or its health
    changes (the controller then skips it). Every documented state does; a rule that must act on
    every check instead says False here."""
    return True


# -- tolerations and eviction ---------------------------------------------------------------------
def toleration_matches(toleration: dict, taint: dict) -> bool:
    """Upstream ToleratesTaint: effect empty or equal; key empty or equal; Exists, or Equal with the
    same value."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return (toleration.get("value") or "") == (taint.get("value") or "")


def eviction_deadline(tolerations: list[dict], taint: dict, time_added: float) -> float | None:
    """When a pod on a node with ``taint`` (NoExecute) must go; None: tolerated for ever.

    Upstream getMinTolerationTime over the matching tolerations, but counted from the taint's
    ``timeAdded``: no match -> at once; any tolerationSeconds <= 0 -> at once; none declares
    tolerationSeconds -> never; else timeAdded + the smallest tolerationSeconds.
    """
    used = [t for t in tolerations or [] if toleration_matches(t, taint)]
    if not used:
        return float("-inf")
    seconds = [t["tolerationSeconds"] for t in used if t.get("tolerationSeconds") is not None]
    if not seconds:
        return None
    if min(seconds) <= 0:
        return float("-inf")
    return time_added + min(seconds)


def owned_by_daemonset(pod: dict) -> bool:
    """The same test the default-toleration admission uses (an ownerReference of kind DaemonSet)."""
    return defaults.is_daemonset_pod(pod)


def exempt(pod: dict) -> bool:
    """Succeeded, Failed and DaemonSet pods stay on the node."""
    return (pod.get("status") or {}).get("phase") in TERMINAL_PHASES or owned_by_daemonset(pod)


def evicting_taints(node: dict) -> list[dict]:
    """The NoExecute taints eviction acts on: node.kubernetes.io/unreachable and /not-ready."""
    return [t for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") == NO_EXECUTE and t.get("key") in EVICTING_KEYS]


def timed_taints(node: dict, now: float) -> list[tuple[dict, float]]:
    """The evicting taints with the time each was added (one without ``timeAdded`` counts as added now)."""
    return [(t, timefmt.parse(t["timeAdded"]) if t.get("timeAdded") else now) for t in evicting_taints(node)]


def pod_verdict(pod: dict, taints: list[tuple[dict, float]], now: float) -> Timed[PodVerdict]:
    """What becomes of a pod on a node with these (taint, timeAdded) pairs: kept (until the earliest
    deadline over them), or evicted / removed for the taint whose deadline that was."""
    if exempt(pod) or not taints:
        return Timed(PodVerdict.KEEP)
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    deadlines = [(deadline, taint) for taint, added in taints
                 if (deadline := eviction_deadline(tolerations, taint, added)) is not None]
    if not deadlines:
        return Timed(PodVerdict.KEEP)
    deadline, taint = min(deadlines, key=lambda pair: pair[0])
    if now < deadline:
        return Timed(PodVerdict.KEEP, deadline)
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return Timed(PodVerdict.REMOVE, cause=taint)
    return Timed(PodVerdict.EVICT, cause=taint)


def taint_text(taint: dict) -> str:
    return f"{taint.get('key')}:{taint.get('effect')}"


def evicted(pod: dict, node_name: str, taint: dict, now: float) -> dict:
    """The pod unbound and Pending with reason Evicted and a DisruptionTarget condition.

    The kubelet-reported status (IPs, container states, Ready) is dropped: nothing runs the pod now.
    """
    new = copy.deepcopy(pod)
    new.setdefault("spec", {}).pop("nodeName", None)
    old_status = pod.get("status") or {}
    status = {
        "phase": "Pending",
        "reason": reasons.POD_REASON_EVICTED,
        "message": reasons.EVICTED_MESSAGE.format(node=node_name, taint=taint_text(taint)),
        "conditions": [{
            "type": reasons.CONDITION_DISRUPTION_TARGET,
            "status": "True",
            "reason": reasons.DISRUPTION_TARGET_REASON,
            "message": reasons.DISRUPTION_TARGET_MESSAGE,
            "lastTransitionTime": timefmt.rfc3339(now),
        }],
    }
    if "qosClass" in old_status:
        status["qosClass"] = old_status["qosClass"]
    new["status"] = status
    return new
