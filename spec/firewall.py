"""The kubelet capability firewall of the kube32 document, as a pure rule.

"The kubelet capability firewall validates hardware and pin claims at admission": a board refuses a
pod that claims a ``hardware.kube32.io/*`` resource it does not have, or an ``esp32.io/gpio-<N>`` pin it
lacks or has already given to a running pod. Every kubelet of the toolkit (virtual node boards,
simulated boards) asks this one function; the message wording is ours (the document names none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kube32.spec import constants

REFUSED_REASON = "UnexpectedAdmissionError"  # upstream kubelet's reason for an admission it cannot serve
_PIN = re.compile(constants.GPIO_PIN_CLAIM_PATTERN)


def pod_claims(pod: dict) -> set[str]:
    """Every resource name a pod asks for (requests or limits of any container)."""
    names: set[str] = set()
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        names |= set(res.get("limits") or {}) | set(res.get("requests") or {})
    return names


def pin_claims(pod: dict) -> set[int]:
    """The pin numbers of a pod's ``esp32.io/gpio-<N>`` claims."""
    return {int(name.rsplit("-", 1)[1]) for name in pod_claims(pod) if _PIN.match(name)}


def refusal(hardware: Iterable[str], pins: Iterable[int], pod: dict, running: list[dict]) -> str | None:
    """Why a board with ``hardware`` and give-out-able ``pins``, running ``running``, refuses ``pod``;
    None when it admits it."""
    hardware, pins = frozenset(hardware), frozenset(pins)
    for name in sorted(pod_claims(pod)):
        if name.startswith(constants.IGNORED_RESOURCE_PREFIXES) and name not in hardware:
            return f"Pod was rejected: the board has no {name} (hardware: {', '.join(sorted(hardware)) or 'none'})"
    taken = set().union(*(pin_claims(p) for p in running)) if running else set()
    for pin in sorted(pin_claims(pod)):
        if pin not in pins:
            return f"Pod was rejected: the board has no pin esp32.io/gpio-{pin} it can give out"
        if pin in taken:
            return f"Pod was rejected: pin esp32.io/gpio-{pin} is already claimed by a running pod"
    return None
