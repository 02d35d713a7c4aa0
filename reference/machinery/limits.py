"""Admission limits: every bound the API server puts on a request body, in one place.

Upstream's bounds where upstream has them (int32 fields, label and annotation sizes, DNS names),
and the bounds a Python server needs so that no body can hang it: nesting depth, YAML alias
expansion, quantity magnitude decided from the digits and the exponent before any arithmetic.
Everything here is pure and cheap: linear in the size of the body, never in the value of a number.
"""

from __future__ import annotations

import functools
import math
import re

from kube32.spec import constants, quantities

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
# JSON/YAML nesting. Upstream's JSON decoder stops at 10000 levels; Python's parsers and the
# schema validator recurse, so the reference stops far earlier (a kube32 object nests ~12 deep).
MAX_NESTING_DEPTH = 100
# YAML aliases may not make a document bigger than its own text (upstream: "excessive aliasing").
ALIAS_EXPANSION_PER_BYTE = 1
# Upstream apimachinery: all annotations of an object together; label values; qualified names.
TOTAL_ANNOTATION_SIZE = 256 * 1024
# A quantity's number is at most this many characters and its decimal exponent at most this
# large, so computing its exact value stays cheap; beyond either no amount fits an int64 anyway
# (a longer number with a tiny value is refused as well: nobody writes one).
QUANTITY_MAX_NUMBER_CHARS = 64
QUANTITY_MAX_EXPONENT = 64
# The manual clock moves at most this far in one call (every controller tick on the way runs).
MAX_CLOCK_STEP = 86400.0
# Upstream's apiserver: at most this many operations in one JSON patch (kubernetes/kubernetes#74000).
MAX_JSON_PATCH_OPERATIONS = 10000
# An object as stored, JSON-encoded, at most this large: the largest body plus room for what the server
# adds (identity, defaults, status). What a patch may make of an object, and what the copies of one
# JSON patch may add together.
MAX_OBJECT_BYTES = constants.MAX_REQUEST_BODY_BYTES + 1024 * 1024
# Upstream's ReplicaSet/Job controllers create at most this many pods per owner and sync (burstReplicas).
BURST_REPLICAS = 500


class LimitError(ValueError):
    """A body beyond a limit: the API answers 400 BadRequest with this message."""


# -- the decoded tree ----------------------------------------------------------------------
def check_tree(doc: object, budget: int) -> None:
    """Walk a decoded JSON/YAML document once (iteratively): nesting depth, at most ``budget``
    nodes counting every alias expansion, string keys, strings that are valid Unicode (no lone
    surrogates), finite numbers, integers within int64. Raises ``LimitError``."""
    stack: list[tuple[object, int]] = [(doc, 1)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > budget:
            raise LimitError("yaml: document contains excessive aliasing")
        if isinstance(node, dict):
            if depth > MAX_NESTING_DEPTH:
                raise LimitError(f"the object nests deeper than {MAX_NESTING_DEPTH} levels")
            for key, value in node.items():
                if not isinstance(key, str):
                    raise LimitError(f"map keys must be strings, got {type(key).__name__} {key!r:.40}")
                _check_string(key)
                stack.append((value, depth + 1))
        elif isinstance(node, list):
            if depth > MAX_NESTING_DEPTH:
                raise LimitError(f"the object nests deeper than {MAX_NESTING_DEPTH} levels")
            stack.extend((item, depth + 1) for item in node)
        elif isinstance(node, str):
            _check_string(node)
        elif isinstance(node, bool) or node is None:
            pass
        elif isinstance(node, int):
            if not -INT64_MAX - 1 <= node <= INT64_MAX:
                raise LimitError(f"the number {_short(node)} does not fit a signed 64-bit integer")
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise LimitError(f"numbers must be finite, got {node!r}")
        else:
            raise LimitError(f"values must be JSON (string, number, boolean, null, list, map), "
                             f"got {type(node).__name__}")


def _short(n: int) -> str:
    digits = len(str(abs(n))) if abs(n) < 10**4000 else "4000+"
    return str(n) if isinstance(digits, int) and digits <= 40 else f"of {digits} digits"


def _check_string(s: str) -> None:
    if s.isascii():
        return
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise LimitError(f"strings must be valid UTF-8 (no lone surrogates): {exc.reason} at "
                         f"position {exc.start}") from None


_BRACKETS = re.compile(r"[\[\]{}]")


def check_flow_nesting(text: str) -> None:
    """YAML flow collections (``[[[…]]]``) nest no deeper than ``MAX_NESTING_DEPTH``, judged from
    the brackets before parsing: PyYAML's scanner slows down quadratically with flow depth. (A
    bracket inside a quoted string counts too; no real body has a hundred of them open.)"""
    depth = 0
    for m in _BRACKETS.finditer(text):
        depth += 1 if m.group(0) in "[{" else -1
        if depth > MAX_NESTING_DEPTH:
            raise LimitError(f"it nests deeper than {MAX_NESTING_DEPTH} levels")


# -- int32 fields --------------------------------------------------------------------------
_POD_SPEC_INT32 = ("containers.*.ports.*.containerPort", "containers.*.ports.*.hostPort",
                   "initContainers.*.ports.*.containerPort", "initContainers.*.ports.*.hostPort")
_NONNEG_POD_SPEC = ("terminationGracePeriodSeconds", "activeDeadlineSeconds")
_TEMPLATED = {
    "Deployment": ("spec.replicas", "spec.minReadySeconds", "spec.revisionHistoryLimit",
                   "spec.progressDeadlineSeconds", "status.replicas", "status.readyReplicas",
                   "status.availableReplicas", "status.updatedReplicas", "status.unavailableReplicas"),
    "DaemonSet": ("spec.minReadySeconds", "spec.revisionHistoryLimit", "status.currentNumberScheduled",
                  "status.desiredNumberScheduled", "status.numberReady", "status.numberMisscheduled",
                  "status.updatedNumberScheduled", "status.numberAvailable", "status.numberUnavailable"),
    "Job": ("spec.parallelism", "spec.completions", "spec.backoffLimit", "status.active",
            "status.succeeded", "status.failed", "status.ready"),
}
# kind -> int32 field paths ("*" = every list item); every one of them must also be >= 0
INT32_FIELDS: dict[str, tuple[str, ...]] = {
    "Pod": (*(f"spec.{p}" for p in _POD_SPEC_INT32), "status.containerStatuses.*.restartCount"),
    "Service": ("spec.ports.*.port", "spec.ports.*.nodePort"),
    "Lease": ("spec.leaseDurationSeconds", "spec.leaseTransitions"),
    **{kind: (*fields, *(f"spec.template.spec.{p}" for p in _POD_SPEC_INT32))
       for kind, fields in _TEMPLATED.items()},
}
NONNEGATIVE_FIELDS: dict[str, tuple[str, ...]] = {
    "Pod": tuple(f"spec.{p}" for p in _NONNEG_POD_SPEC),
    **{kind: (*fields, *(f"spec.template.spec.{p}" for p in _NONNEG_POD_SPEC))
       for kind, fields in _TEMPLATED.items()},
    "Service": ("spec.ports.*.port", "spec.ports.*.nodePort"),
    "Lease": ("spec.leaseTransitions",),
    "Job": (*_TEMPLATED["Job"], "spec.activeDeadlineSeconds",
            *(f"spec.template.spec.{p}" for p in _NONNEG_POD_SPEC)),
}


def values_at(obj: object, path: str) -> list[tuple[str, object]]:
    """(field path, value) for every value at a dotted ``path`` ("*" walks each list item)."""
    found: list[tuple[str, object]] = []
    _walk(obj, _parts(path), 0, "", found)
    return found


@functools.cache
def _parts(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


def _walk(node: object, parts: tuple[str, ...], i: int, where: str, found: list) -> None:
    while i < len(parts):
        head = parts[i]
        if head == "*":
            if isinstance(node, list):
                for k, item in enumerate(node):
                    _walk(item, parts, i + 1, f"{where}[{k}]", found)
            return
        if not (isinstance(node, dict) and head in node):
            return
        node, where, i = node[head], f"{where}.{head}" if where else head, i + 1
    found.append((where, node))


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def int_range_causes(kind: str, obj: dict) -> tuple[list[dict], list[dict]]:
    """(decode causes: an int32 field beyond int32 — upstream cannot decode it, a 400;
    invalid causes: a negative count — upstream's 422 "must be greater than or equal to 0")."""
    decode, invalid = [], []
    for path in INT32_FIELDS.get(kind, ()):
        for field, v in values_at(obj, path):
            if _is_int(v) and not -INT32_MAX - 1 <= v <= INT32_MAX:
                decode.append(_cause(field, f"Invalid value: json: cannot unmarshal number {_short(v)} into "
                                     f"Go struct field {kind}.{field} of type int32", "FieldValueTypeInvalid"))
    for path in NONNEGATIVE_FIELDS.get(kind, ()):
        for field, v in values_at(obj, path):
            if _is_int(v) and v < 0 and v >= -INT32_MAX - 1:
                invalid.append(_cause(field, f"Invalid value: {v}: must be greater than or equal to 0"))
    return decode, invalid


def _cause(field: str, message: str, reason: str = "FieldValueInvalid") -> dict:
    return {"reason": reason, "message": message, "field": field}


# -- quantities ----------------------------------------------------------------------------
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)")
_EXPONENT = re.compile(r"^[eE]([+-]?)(\d+)$")


def quantity_problem(q: object) -> str | None:
    """Why a quantity cannot be admitted for its size, or None. Decided from the number's length
    and the exponent's digits first; only then (a bounded computation) is the exact amount
    compared with the largest signed 64-bit count. The grammar itself (unknown suffixes count 0)
    is ``spec.quantities``' business, untouched here."""
    if isinstance(q, float):
        q = repr(q)
    if _is_int(q):
        return None if -INT64_MAX - 1 <= q <= INT64_MAX else "must fit a signed 64-bit integer"
    if not isinstance(q, str):
        return None                          # the grammar check reports it
    number = _NUMBER.match(q)
    if number is None:
        return None
    if len(number.group(0)) > QUANTITY_MAX_NUMBER_CHARS:
        return f"the number may have at most {QUANTITY_MAX_NUMBER_CHARS} characters"
    exponent = _EXPONENT.match(q[number.end():])
    digits = exponent.group(2).lstrip("0") if exponent else ""
    if len(digits) > len(str(QUANTITY_MAX_EXPONENT)) or int(digits or 0) > QUANTITY_MAX_EXPONENT:
        return f"the exponent must lie between -{QUANTITY_MAX_EXPONENT} and {QUANTITY_MAX_EXPONENT}"
    try:
        amount = quantities.parse(q)     # bounded: <= 64 digits times at most 10^64 or 2^60
    except (quantities.QuantityError, ValueError):
        return None
    if abs(amount) > INT64_MAX:
        return "must fit a signed 64-bit count of its unit (at most 9223372036854775807)"
    return None



# -- query parameters ----------------------------------------------------------------------
# A label or field selector of a request: at most this many characters (a selector names a few
# labels; a Deployment's is tens of characters) and this many requirements, so reading it and
# matching each listed object against it cost a bounded amount. Upstream bounds neither beyond
# the request line's size; these are the reference's own.
MAX_SELECTOR_BYTES = 4096
MAX_SELECTOR_REQUIREMENTS = 100
