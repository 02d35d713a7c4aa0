"""Does the document decide where a pod goes? The scheduling rules of the document's "Scheduler"
section, evaluated under every reasonable reading of what it leaves open (spec/decisions.md,
"Scheduler"); a placement (or a FailedScheduling count) is compared at document level only when
all readings agree.

This never says what the answer is -- the oracle reference does; it only says whether an
implementation reading the document another reasonable way could answer differently. It reads
the oracle's objects as any client would (black-box).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
from collections import Counter
from fractions import Fraction

from kube32.spec import constants, quantities, reasons

MEMORY, GPIO = constants.MEMORY, constants.GPIO
PSRAM = constants.PSRAM_RESOURCES[0]
PERIPHERALS = constants.PERIPHERAL_RESOURCES
INSUFFICIENT = reasons.REASON_INSUFFICIENT
OTHER = "(any other reason)"    # reasons the document does not show are counted together (steps/_fit.py)

# Each dimension lists the readings of one open point; the first is the reference's.
DIMENSIONS = {
    "rounding": ("ceil", "exact"),              # fractional amounts: Value() rounds up, or exact
    "unknown_memory": ("zero", "default"),      # memory declared only with an unknown suffix
    "empty_term": ("zero", "full", "dropped"),  # a node with no GPIO (or memory) total: SCHED-SCORE-NO-GPIO
    "score_numbers": ("exact", "integer"),      # percentages exact, or upstream's integer arithmetic
    "score_total": ("capacity", "allocatable"),  # what a percentage is of
    "fallback": ("per-resource", "whole"),      # allocatable else capacity: per name, or the whole map
    "terminal": ("ignored", "counted"),         # finished pods written after the node's last write
    "shortages": ("all", "first"),              # a node short of several peripherals reports each, or one
    "terminating": ("counted", "ignored"),      # bound pods being deleted (the document is silent)
}
REFERENCE_READING = {name: options[0] for name, options in DIMENSIONS.items()}


@dataclasses.dataclass(frozen=True)
class Decision:
    node: str | None                       # the node chosen, or None: unschedulable
    counts: tuple = ()                     # unschedulable: (total, sorted documented-form counts)

    def __str__(self) -> str:
        return f"bound to {self.node}" if self.node else f"unschedulable {self.counts}"


@functools.lru_cache(maxsize=4096)
def _amount(text, rounding: str) -> Fraction:
    try:
        value = quantities.parse(text)
    except quantities.QuantityError:
        return Fraction(0)
    return Fraction(math.ceil(value)) if rounding == "ceil" else value


_SUFFIXED = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)([A-Za-z]+)$")


def _unknown_suffix(text) -> bool:
    match = _SUFFIXED.match(str(text))
    return bool(match) and quantities.multiplier(match.group(1)) is None


def _declared(pod: dict) -> dict[str, str]:
    """requests, else limits, per resource name (the pods explore makes have one container)."""
    out: dict[str, str] = {}
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        out.update({**(res.get("limits") or {}), **(res.get("requests") or {})})
    return out


def pod_amounts(pod: dict, r: dict) -> dict[str, Fraction]:
    declared = _declared(pod)
    out = {name: Fraction(0) for name in (MEMORY, PSRAM, *PERIPHERALS)}
    if MEMORY in declared:
        unknown = _unknown_suffix(declared[MEMORY]) and r["unknown_memory"] == "default"
        out[MEMORY] = Fraction(constants.DEFAULT_POD_MEMORY) if unknown else _amount(declared[MEMORY], r["rounding"])
    else:
        out[MEMORY] = Fraction(constants.DEFAULT_POD_MEMORY)
    for name, value in declared.items():
        if name in constants.PSRAM_RESOURCES:
            out[PSRAM] += _amount(value, r["rounding"])
        elif name in PERIPHERALS:
            out[name] += _amount(value, r["rounding"])
        else:
            for prefix, count in constants.NAMED_BUS_PREFIXES.items():
                if name.startswith(prefix + "-") and _amount(value, r["rounding"]) > 0:
                    out[count] += 1
    return out


def _figure(status: dict, name: str, r: dict) -> Fraction | None:
    allocatable, capacity = status.get("allocatable") or {}, status.get("capacity") or {}
    if r["fallback"] == "whole":
        source = allocatable if allocatable else capacity
        return _amount(source[name], r["rounding"]) if name in source else None
    for source in (allocatable, capacity):
        if name in source:
            return _amount(source[name], r["rounding"])
    return None


def node_figures(node: dict, r: dict) -> dict[str, Fraction]:
    status = node.get("status") or {}
    out = {name: _figure(status, name, r) or Fraction(0) for name in (MEMORY, *PERIPHERALS)}
    psram = next((v for v in (_figure(status, n, r) for n in constants.PSRAM_RESOURCES) if v is not None), None)
    out[PSRAM] = psram or Fraction(0)
    return out


def _total(node: dict, name: str, r: dict) -> Fraction:
    status = node.get("status") or {}
    order = ("capacity", "allocatable") if r["score_total"] == "capacity" else ("allocatable", "capacity")
    for field in order:
        values = status.get(field) or {}
        if name in values:
            return _amount(values[name], r["rounding"])
    return Fraction(0)


def _rv(obj: dict) -> int:
    return int((obj.get("metadata") or {}).get("resourceVersion") or 0)


def _phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def counts_against(pod: dict, node: dict, r: dict) -> bool:
    """Bound pods the node's report cannot include yet: Pending, a container waiting to restart,
    or written after the node's last write (the document's Limitations: any Node write)."""
    later = _rv(pod) > _rv(node)
    if (pod.get("metadata") or {}).get("deletionTimestamp") and r["terminating"] == "ignored":
        return False
    if _phase(pod) in ("Succeeded", "Failed"):
        return r["terminal"] == "counted" and later
    waiting = any("waiting" in (c.get("state") or {}) for c in (pod.get("status") or {}).get("containerStatuses") or [])
    return _phase(pod) == "Pending" or waiting or later


def _ready(node: dict) -> bool:
    if (node.get("spec") or {}).get("unschedulable"):
        return False
    cond = next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None)
    return cond is not None and cond.get("status") == "True"


def _free(node: dict, pods: list[dict], r: dict) -> dict[str, Fraction]:
    free = node_figures(node, r)
    name = node["metadata"]["name"]
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName") == name and counts_against(pod, node, r):
            for key, value in pod_amounts(pod, r).items():
                free[key] -= value
    return free


def _rejection(pod: dict, node: dict, need: dict, free: dict, r: dict) -> tuple[str, ...] | None:
    """The documented-form reasons a node gives (its first failing filter), None when it passes."""
    if not _ready(node):
        return (OTHER,)
    labels = (node.get("metadata") or {}).get("labels") or {}
    selector = (pod.get("spec") or {}).get("nodeSelector") or {}
    if any(labels.get(k) != v for k, v in selector.items()):
        return (reasons.REASON_NODE_SELECTOR,)
    if need[MEMORY] > 0 and need[MEMORY] > free[MEMORY]:
        return (INSUFFICIENT.format(resource=MEMORY),)
    if need[PSRAM] > 0 and need[PSRAM] > free[PSRAM]:
        return (INSUFFICIENT.format(resource=PSRAM),)
    short = [name for name in PERIPHERALS if need[name] > 0 and need[name] > free[name]]
    if short:
        return tuple(INSUFFICIENT.format(resource=n) for n in (short if r["shortages"] == "all" else short[:1]))
    return None


def _percent(left: Fraction, total: Fraction, r: dict) -> Fraction | None:
    if total <= 0:
        return {"zero": Fraction(0), "full": Fraction(100), "dropped": None}[r["empty_term"]]
    if r["score_numbers"] == "integer":
        return Fraction((int(left) * 100) // int(total)) if left >= 0 else Fraction(-((-int(left) * 100) // int(total)))
    return 100 * left / total


def _score(node: dict, need: dict, free: dict, r: dict) -> Fraction:
    terms = [_percent(free[t] - need[t], _total(node, t, r), r) for t in (MEMORY, GPIO)]
    kept = [t for t in terms if t is not None]
    if not kept:
        return Fraction(0)
    if r["score_numbers"] == "integer":
        return Fraction(int(sum(kept)) // len(kept))
    return sum(kept) / len(kept)


def decide(pod: dict, nodes: list[dict], pods: list[dict], r: dict) -> Decision:
    need = pod_amounts(pod, r)
    passing, counts = [], Counter()
    for node in nodes:
        free = _free(node, pods, r)
        rejected = _rejection(pod, node, need, free, r)
        if rejected is None:
            passing.append((node, free))
        else:
            counts.update(rejected)
    if not passing:
        return Decision(None, (len(nodes), tuple(sorted(counts.items()))))
    scored = [(-_score(node, need, free, r), node["metadata"]["name"].encode()) for node, free in passing]
    return Decision(min(scored)[1].decode())


def _quantities(obj: dict) -> list:
    status, out = obj.get("status") or {}, []
    for field in ("allocatable", "capacity"):
        out += list((status.get(field) or {}).values())
    return out + list(_declared(obj).values())


def active(pod: dict, nodes: list[dict], pods: list[dict]) -> list[str]:
    """The open points these objects can reach (the others cannot change any decision here)."""
    dims = ["score_numbers", "score_total"]
    texts = [q for obj in (pod, *nodes, *pods) for q in _quantities(obj)]
    if any(_amount(q, "exact").denominator != 1 for q in texts):
        dims.append("rounding")
    if any(MEMORY in _declared(p) and _unknown_suffix(_declared(p)[MEMORY]) for p in (pod, *pods)):
        dims.append("unknown_memory")
    for node in nodes:
        status = node.get("status") or {}
        maps = [status.get("allocatable") or {}, status.get("capacity") or {}]
        if any(not _amount(m.get(t, "0"), "exact") > 0 for m in maps for t in (MEMORY, GPIO)):
            dims.append("empty_term")
        if all(maps) and set(maps[0]) != set(maps[1]):
            dims.append("fallback")
    if any(_phase(p) in ("Succeeded", "Failed") and (p.get("spec") or {}).get("nodeName") for p in pods):
        dims.append("terminal")
    if any((p.get("metadata") or {}).get("deletionTimestamp") and (p.get("spec") or {}).get("nodeName") for p in pods):
        dims.append("terminating")
    if sum(1 for name in _declared(pod) if name in PERIPHERALS or any(
            name.startswith(prefix + "-") for prefix in constants.NAMED_BUS_PREFIXES)) > 1:
        dims.append("shortages")
    return list(dict.fromkeys(dims))


def readings(dims: list[str]):
    for combo in itertools.product(*(DIMENSIONS[d] for d in dims)):
        yield {**REFERENCE_READING, **dict(zip(dims, combo, strict=True))}


def decided(pod: dict, nodes: list[dict], pods: list[dict]) -> Decision | None:
    """The decision every reading makes, or None when two readings differ (or there are no nodes:
    the zero-node message is a reading too)."""
    if not nodes:
        return None
    seen = None
    for r in readings(active(pod, nodes, pods)):
        d = decide(pod, nodes, pods, r)
        if seen is None:
            seen = d
        elif d != seen:
            return None
    return seen
