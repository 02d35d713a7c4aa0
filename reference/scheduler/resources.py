"""Resource maths: what a pod asks for and what a node offers, as integers.

Pure and I/O-free. The scheduler calls these once per pod write and once per node write and caches
the results (``cache.py``), so a scheduling decision never parses a quantity.

Rules (the "Filters" list of the kube32 document and our catalogue interpretations):
- a container's amount of a resource is ``requests[r]``, else ``limits[r]``, else nothing;
- the pod's amount is the sum over ``spec.containers``; a pod that declares no memory counts
  ``constants.DEFAULT_POD_MEMORY`` (per pod, not per container);
- PSRAM under ``esp32.io/psram`` and ``esp.io/psram`` is one pool;
- each distinct named bus (``esp32.io/i2c-bus-0``, ``esp32.io/uart-1``) takes one unit of its count;
- ``hardware.kube32.io/*`` and ``esp32.io/gpio-<N>`` pin claims are ignored: only the names above
  (and named buses) are ever read, so anything else a pod asks for plays no part;
- quantities follow ``spec.quantities`` (unknown suffix = 0, rounded up to whole units);
- a node's figure is ``status.allocatable[r]``, else ``status.capacity[r]`` (per resource name).
"""

from __future__ import annotations

import functools

from kube32.spec import constants, quantities

MEMORY = constants.MEMORY
PSRAM = constants.PSRAM_RESOURCES[0]   # the key the PSRAM pool is kept under
GPIO = constants.GPIO
COUNTED = (MEMORY, PSRAM, *constants.PERIPHERAL_RESOURCES)   # every key of an amounts dict


def amount(text: object) -> int:
    """A quantity as a whole number of units, rounded up; malformed values (which the API
    rejects at admission) count as 0 like unknown suffixes."""
    try:
        return _value(text)
    except TypeError:           # unhashable: not a quantity
        return 0
    except quantities.QuantityError:
        return 0


@functools.lru_cache(maxsize=4096, typed=True)     # a fleet's pods repeat a few quantities
def _value(text: object) -> int:
    return quantities.value(text)  # type: ignore[arg-type]


def bus_count_for(name: str) -> str | None:
    """The count a named bus draws from (``esp32.io/i2c-bus-0`` -> ``esp32.io/i2c``), else None."""
    for prefix, count in constants.NAMED_BUS_PREFIXES.items():
        if name.startswith(prefix + "-"):
            return count
    return None


def _containers(pod: dict) -> list[dict]:
    return [c for c in ((pod.get("spec") or {}).get("containers") or []) if isinstance(c, dict)]


def container_amount(container: dict, resource: str) -> int | None:
    """requests[resource], else limits[resource], else None (not declared)."""
    res = container.get("resources") or {}
    requests, limits = res.get("requests") or {}, res.get("limits") or {}
    if resource in requests:
        return amount(requests[resource])
    if resource in limits:
        return amount(limits[resource])
    return None


def declared_total(pod: dict, resource: str) -> int | None:
    """Sum of the containers' declared amounts, or None when no container declares the resource."""
    total, declared = 0, False
    for container in _containers(pod):
        value = container_amount(container, resource)
        if value is not None:
            total, declared = total + value, True
    return total if declared else None


def pod_memory(pod: dict) -> int:
    """The pod's memory: the declared total, or the 16 KiB default when nothing is declared."""
    total = declared_total(pod, MEMORY)
    return constants.DEFAULT_POD_MEMORY if total is None else total


def pod_psram(pod: dict) -> tuple[int, str]:
    """(PSRAM amount over both names, the name a shortage is reported under)."""
    total, used = 0, []
    for name in constants.PSRAM_RESOURCES:
        value = declared_total(pod, name)
        if value is not None:
            total += value
            used.append(name)
    return total, (used[0] if used else PSRAM)


def named_buses(pod: dict) -> dict[str, set[str]]:
    """count resource -> the distinct named buses the pod asks for with a positive amount."""
    out: dict[str, set[str]] = {}
    for container in _containers(pod):
        res = container.get("resources") or {}
        names = set(res.get("requests") or {}) | set(res.get("limits") or {})
        for name in names:
            count = bus_count_for(name)
            if count is not None and (container_amount(container, name) or 0) > 0:
                out.setdefault(count, set()).add(name)
    return out


def bus_units(buses: set[str]) -> int:
    """Units of a count that a set of named buses consumes: one per bus."""
    return len(buses)


def pod_counts(pod: dict) -> dict[str, int]:
    """Peripheral counts (gpio, i2c, uart, adc, rmt-tx, rmt-rx) incl. named-bus units."""
    buses = named_buses(pod)
    return {name: (declared_total(pod, name) or 0) + bus_units(buses.get(name, set()))
            for name in constants.PERIPHERAL_RESOURCES}


def pod_amounts(pod: dict) -> tuple[dict[str, int], str]:
    """(amounts keyed by ``COUNTED``, the PSRAM name for reasons). They depend on ``requests_key``
    alone (the scheduler's cache keeps them per key)."""
    psram, psram_name = pod_psram(pod)
    return {MEMORY: pod_memory(pod), PSRAM: psram, **pod_counts(pod)}, psram_name


def requests_key(pod: dict) -> tuple | None:
    """What ``pod_amounts`` reads of a pod, as a key (None: a shape it does not expect)."""
    parts = []
    for container in _containers(pod):
        res = container.get("resources") or {}
        if not isinstance(res, dict):
            return None
        requests, limits = res.get("requests") or {}, res.get("limits") or {}
        if not (isinstance(requests, dict) and isinstance(limits, dict)):
            return None
        parts.append((tuple(requests.items()), tuple(limits.items())))
    return tuple(parts)


def figure(status: dict, resource: str) -> int | None:
    """What the node offers of ``resource``: allocatable, else capacity, else None."""
    for field in ("allocatable", "capacity"):
        values = status.get(field) or {}
        if resource in values:
            return amount(values[resource])
    return None


def total(status: dict, resource: str) -> int:
    """The node's total of ``resource`` (the score's denominator): capacity, else allocatable."""
    for field in ("capacity", "allocatable"):
        values = status.get(field) or {}
        if resource in values:
            return amount(values[resource])
    return 0


def node_psram(status: dict) -> int:
    """The PSRAM pool: the esp32.io/psram figure, else the esp.io/psram figure, else 0."""
    for name in constants.PSRAM_RESOURCES:
        value = figure(status, name)
        if value is not None:
            return value
    return 0


def node_figures(node: dict) -> dict[str, int]:
    """The node's offer of every counted resource (0 where it lists none)."""
    status = node.get("status") or {}
    out = {name: figure(status, name) or 0 for name in (MEMORY, *constants.PERIPHERAL_RESOURCES)}
    out[PSRAM] = node_psram(status)
    return out


def node_totals(node: dict) -> dict[str, int]:
    """Denominators of the score: total memory and total GPIO."""
    status = node.get("status") or {}
    return {MEMORY: total(status, MEMORY), GPIO: total(status, GPIO)}


def zero() -> dict[str, int]:
    return dict.fromkeys(COUNTED, 0)
