"""The document's timing model for the node_lifecycle area: what explore remembers of an example
(nodes' silences and returns, pods and their tolerations, restarts, flags) and, from that alone,
what a node shows and where a pod is at a moment -- or None where the document leaves it open.
No I/O: the area reads both sides and asks this model what to compare."""

from __future__ import annotations

import dataclasses

from kube32.conformance.steps.node_lifecycle import matches
from kube32.spec import constants

EPS = 1e-6
SLACK = 1e-4       # a moment decides only this far from its bound (clock moves add float noise)
UNREACHABLE = constants.TAINT_UNREACHABLE
NOT_READY = constants.TAINT_NOT_READY
NOSCHEDULE, NOEXECUTE = f"{UNREACHABLE}:NoSchedule", f"{UNREACHABLE}:NoExecute"
FOREVER = None

# the pod's own tolerations: the unreachable NoExecute taint tolerated for these seconds, or
# without a limit, or not at all (another key, another effect)
TOLERATIONS = {
    "none": [],
    "zero": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0}],
    "negative": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5}],
    "one": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 1}],
    "short": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 4}],
    "medium": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 20}],
    "forever": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute"}],
    "any-noexecute": [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}],
    "not-ready": [{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}],
    "noschedule": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoSchedule"}],
    "other-key": [{"key": "dedicated", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 3}],
    # for another value: matches nothing, yet (upstream's reading of "already tolerates") keeps the
    # default toleration away, so the pod is evicted as soon as the taint is there
    "other-value": [{"key": UNREACHABLE, "operator": "Equal", "value": "other", "effect": "NoExecute"}],
}


@dataclasses.dataclass
class Episode:
    """A node's silence: from its last renewal to its return (if any)."""
    renewed: float                      # the last renewal, seconds since the example began
    grace: float | None = None          # a restart while it was surely Ready: counts from there
    returned: float | None = None       # renewed again (and reported its status)
    node_open: bool = False             # a restart left the node's own state to a reading
    open: bool = False                  # ... and the pods' too (no timeAdded known yet)
    added: dict = dataclasses.field(default_factory=dict)    # side name -> timeAdded first seen (relative)
    judged_added: bool = False
    unreported: bool = False            # it began with a return the kubelet did not report


@dataclasses.dataclass
class NodeLife:
    name: str
    declares: float | None              # seconds the Lease declares; None: none (the not-ready timeout)
    episodes: list[Episode] = dataclasses.field(default_factory=list)
    # its state is a reading from then on: a restart came before its return was surely seen, or
    # --not-ready-timeout was set and its Lease declares its own duration
    unsettled: bool = False

    @property
    def silent(self) -> bool:
        return bool(self.episodes) and self.episodes[-1].returned is None


@dataclasses.dataclass
class PodLife:
    name: str
    node: str
    arrived: float
    kind: str                           # a key of TOLERATIONS
    started: bool = False
    finished: bool = False
    deleted: float | None = None        # when the user deleted it
    away: bool = False                  # evicted on both sides, compared once
    open: bool = False                  # its fate turned on a moment the document leaves open
    compared_tolerations: bool = False


@dataclasses.dataclass
class Notes:
    nodes: dict[str, NodeLife] = dataclasses.field(default_factory=dict)
    pods: dict[str, PodLife] = dataclasses.field(default_factory=dict)
    restarts: list[float] = dataclasses.field(default_factory=list)
    deployments: list[str] = dataclasses.field(default_factory=list)     # their pods' tolerations not yet compared
    daemonsets: list[str] = dataclasses.field(default_factory=list)
    deployed: bool = False
    flags: str | None = None            # the simulator flag the control plane was restarted with

    def next_node(self) -> str:
        return f"node-{'abcdefgh'[len(self.nodes)]}"


def notes(case) -> Notes:
    return case.notes.setdefault("node_lifecycle", Notes())


class Timing:
    """The document's numbers for one example (the oracle's profile: the same on both sides)."""

    def __init__(self, case) -> None:
        p = case.oracle.ctx.profile
        self.interval = float(p.lifecycle_check_interval)
        self.delay = float(p.noexecute_delay)
        self.not_ready = float(p.not_ready_timeout)
        self.default = float(p.lease_duration)
        self.eviction = float(p.default_toleration_seconds)
        flags = notes(case).flags
        # the not-ready timeout also replacing the further 15 s before NoExecute, and the eviction
        # timeout showing in the default tolerations' tolerationSeconds, are readings
        self.noexecute_open = flags == "not-ready timeout"
        self.defaults_open = flags == "eviction timeout"

    def threshold(self, node: NodeLife, ep: Episode) -> float:
        """When the Lease lapses: its renewal (or the restart that graced it) plus its duration."""
        duration = self.not_ready if node.declares is None else node.declares
        return max(ep.renewed, ep.grace or ep.renewed) + duration

    def lapsed(self, node: NodeLife, ep: Episode) -> bool:
        """Whether the episode surely lapsed (its return came after the lapse's check)."""
        t = self.threshold(node, ep)
        return ep.returned is None or ep.returned >= t + self.interval + SLACK


# -- what the document says a node shows at a moment ---------------------------------------------
def node_state(timing: Timing, node: NodeLife, now: float) -> dict | None:
    """{"ready": bool, "noschedule": bool, "noexecute": bool}, each None where undecided; None: all."""
    if node.unsettled:
        return None
    if not node.episodes:
        return {"ready": True, "noschedule": False, "noexecute": False}
    ep = node.episodes[-1]
    t = timing.threshold(node, ep)
    t2, i = t + timing.delay, timing.interval
    if len(node.episodes) > 1 and now < node.episodes[-2].returned + i + SLACK:
        return None                   # the check after the last return has not come yet
    if ep.returned is not None and now >= ep.returned + i + SLACK:
        return {"ready": True, "noschedule": False, "noexecute": False}
    if ep.node_open:
        return None
    end = ep.returned if ep.returned is not None else float("inf")
    if now >= end - SLACK:          # between the return and its check
        return None

    def at(moment: float) -> bool | None:
        if now < moment - SLACK:
            return False
        return True if now >= moment + i + SLACK else None
    lapsed = at(t)
    ready = None if lapsed is None or (ep.unreported and not lapsed) else not lapsed
    return {"ready": ready, "noschedule": lapsed, "noexecute": None if timing.noexecute_open else at(t2)}


def effective_seconds(tolerations: list[dict]) -> float | None | str:
    """How long a pod stays on the unreachable node, by the document: no matching toleration or one
    of 0 or less: 0; one without a limit: FOREVER; "open" when matching ones disagree."""
    taint = {"key": UNREACHABLE, "effect": "NoExecute", "value": ""}
    found = {t.get("tolerationSeconds") for t in tolerations if matches(t, taint)}
    if not found:
        return 0.0
    found = {None if s is None else max(float(s), 0.0) for s in found}
    if len(found) > 1:
        return "open"
    (seconds,) = found
    return seconds


def doc_seconds(timing: Timing, kind: str) -> float | None | str:
    """How long a pod written with these tolerations stays, by the document: its own matching
    tolerations, else the default one admission adds (--eviction-timeout, 300 s by default)."""
    own = TOLERATIONS[kind]
    taint = {"key": UNREACHABLE, "effect": "NoExecute", "value": ""}
    if kind == "other-value":
        return 0.0           # (a side that adds the default all the same leaves the pod open)
    return effective_seconds(own) if any(matches(t, taint) for t in own) else timing.eviction


def pod_fate(timing: Timing, node: NodeLife, pod: PodLife, side: str, now: float) -> str | None:
    """"home", "away" (evicted), "gone" (removed while being deleted) or None (undecided) on one side,
    counted from the timeAdded that side wrote."""
    if pod.finished:
        return "home"
    if node.unsettled:
        return None
    seconds = doc_seconds(timing, pod.kind)
    if seconds == "open":
        return None
    i = timing.interval
    for ep in node.episodes:
        if ep.returned is not None and ep.returned + i < pod.arrived:
            continue
        if ep.open:
            return None
        t2 = timing.threshold(node, ep) + timing.delay
        if seconds is FOREVER:
            continue
        added = ep.added.get(side)
        if added is None and timing.noexecute_open:
            return None
        if added is None:
            if ep.returned is None and now < t2 - SLACK:
                return "home"
            if ep.returned is not None and ep.returned < t2 - SLACK:
                continue                     # it returned before the taint could come
            return None
        start = max(added + seconds, pod.arrived)
        end = max(start, added + 1.0 if timing.noexecute_open else t2 + i) + i
        if ep.returned is not None:
            if ep.returned + i + SLACK < start:
                continue                     # the taint went before the pod's time ran out
            if ep.returned < end + SLACK:
                return None
        if now < start - SLACK:
            return "home"
        if now < end + SLACK or (ep.returned is not None and now >= ep.returned - SLACK):
            return None          # (once its node is back, an evicted pod may be bound to it again)
        if pod.deleted is None or pod.deleted > start - SLACK:
            return None if pod.deleted is not None else "away"
        return "gone"
    return "home"


def status_due(timing: Timing, start: float, noexecute: float, added: float) -> float:
    """When an eviction due from ``start`` has surely happened: its check interval, after the
    NoExecute taint's own and after the second timeAdded may lie before the taint came."""
    return max(start, noexecute + timing.interval, added + 1.0) + timing.interval


def restarted_within(restarts: list[float], start: float, end: float) -> bool:
    """A control-plane restart between the two moments (what it leaves unfinished is open)."""
    return any(start - SLACK <= r <= end + SLACK for r in restarts)
