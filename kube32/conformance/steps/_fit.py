"""The kube-scheduler FailedScheduling message ("0/N nodes are available: c reason, ...") judged at
two levels (see kube32/conformance/levels.py).

The document shows the format and two of its reasons ("Insufficient <resource>" and "node(s) didn't
match Pod's node affinity/selector"); the other reason strings, their sorting and the merged or
separate counting of "not ready" and "no status" nodes are our (upstream's) readings. At document
level two messages agree when they have the same total, the same counts under the documented
reasons and the same number of nodes under the other reasons; at reference level they are equal.
Which name a shortage is reported under is a reading too: the two PSRAM names count as one, and a
named bus (esp32.io/i2c-bus-0) as its count (esp32.io/i2c).
"""

from __future__ import annotations

import re
from collections import Counter

from kube32.spec import constants, reasons

_FIT = re.compile(r"^0/(?P<total>\d+) nodes are available: (?P<entries>.+)\.$")
_ENTRY = re.compile(r"^(?P<count>\d+) (?P<reason>.+)$")
_INSUFFICIENT = reasons.REASON_INSUFFICIENT.format(resource="")
UNDOCUMENTED = "(any other reason)"


def is_fit_message(text: str) -> bool:
    return bool(_FIT.match(text.strip()))


def documented_form(text: str) -> tuple[int, Counter] | None:
    """(total, counts by documented reason, other reasons summed under UNDOCUMENTED), or None."""
    m = _FIT.match(text.strip())
    if m is None:
        return None
    counts: Counter = Counter()
    for part in m["entries"].split(", "):
        entry = _ENTRY.match(part.strip())
        if entry is None:
            return None
        reason = entry["reason"]
        if reason.startswith(_INSUFFICIENT):
            reason = _INSUFFICIENT + _resource(reason[len(_INSUFFICIENT):])
        elif reason != reasons.REASON_NODE_SELECTOR:
            reason = UNDOCUMENTED
        counts[reason] += int(entry["count"])
    return int(m["total"]), counts


def _resource(name: str) -> str:
    if name in constants.PSRAM_RESOURCES:
        return constants.PSRAM_RESOURCES[0]
    for prefix, count in constants.NAMED_BUS_PREFIXES.items():
        if name.startswith(prefix + "-"):
            return count
    return name


def agrees(got: str | None, expected: str) -> bool:
    """Do the messages agree at document level?"""
    want = documented_form(expected)
    if want is None or got is None:
        return got == expected
    return documented_form(got) == want


def explain(got: str | None, expected: str) -> str:
    want, have = documented_form(expected), documented_form(got or "")
    if have is None:
        return f"{got!r} is not in kube-scheduler format ('0/N nodes are available: <count> <reason>, ….')"
    return (f"{got!r}: total and counts by documented reason {have[0]}, {dict(have[1])}; "
            f"expected {want[0]}, {dict(want[1])}")
