"""Resource maths: what a pod asks for and what a node offers (reference.scheduler.resources)."""

from __future__ import annotations

import pytest
from sched_helpers import node, pod

from kube32.reference.scheduler import resources
from kube32.spec import constants

KI = 1024


def containers(*specs: tuple[dict | None, dict | None]) -> list[dict]:
    out = []
    for i, (requests, limits) in enumerate(specs):
        res = {}
        if requests is not None:
            res["requests"] = requests
        if limits is not None:
            res["limits"] = limits
        out.append({"name": f"c{i}", "image": "x", "resources": res})
    return out


@pytest.mark.parametrize(("case", "specs", "want"), [
    ("request", [({"memory": "64Ki"}, None)], 64 * KI),
    ("limit when there is no request", [(None, {"memory": "64Ki"})], 64 * KI),
    ("request wins over limit", [({"memory": "8Ki"}, {"memory": "64Ki"})], 8 * KI),
    ("containers add up, each by its own rule", [({"memory": "8Ki"}, None), (None, {"memory": "4Ki"})], 12 * KI),
    ("nothing declared: the 16 KiB default", [(None, None)], constants.DEFAULT_POD_MEMORY),
    ("default is per pod", [(None, None), (None, None)], constants.DEFAULT_POD_MEMORY),
    ("no default for undeclared containers of a declaring pod", [({"memory": "8Ki"}, None), (None, None)], 8 * KI),
    ("unknown suffix is a declared 0", [({"memory": "1Xi"}, None)], 0),
    ("milli bytes round up", [({"memory": "1500m"}, None)], 2),
    ("other resources do not declare memory", [({"esp32.io/gpio": "1"}, None)], constants.DEFAULT_POD_MEMORY),
])
def test_pod_memory(case, specs, want):
    assert resources.pod_memory(pod("p", containers=containers(*specs))) == want, case


@pytest.mark.parametrize(("requests", "want"), [
    ({"esp32.io/psram": "1Mi"}, (1 << 20, "esp32.io/psram")),
    ({"esp.io/psram": "1Mi"}, (1 << 20, "esp.io/psram")),
    ({"esp32.io/psram": "1Mi", "esp.io/psram": "1Ki"}, ((1 << 20) + KI, "esp32.io/psram")),
    ({}, (0, "esp32.io/psram")),
])
def test_pod_psram_is_one_pool_named_after_what_the_pod_used(requests, want):
    assert resources.pod_psram(pod("p", requests=requests)) == want


@pytest.mark.parametrize(("requests", "want"), [
    ({"esp32.io/i2c-bus-0": "1"}, {"esp32.io/i2c": 1}),
    ({"esp32.io/i2c-bus-0": "2"}, {"esp32.io/i2c": 1}),
    ({"esp32.io/i2c-bus-0": "1", "esp32.io/i2c-bus-1": "1"}, {"esp32.io/i2c": 2}),
    ({"esp32.io/i2c-bus-0": "1", "esp32.io/i2c": "1"}, {"esp32.io/i2c": 2}),
    ({"esp32.io/i2c-bus-0": "0"}, {}),
    ({"esp32.io/uart-1": "1"}, {"esp32.io/uart": 1}),
    ({"esp32.io/gpio-4": "1", "esp32.io/gpio-5": "1", "esp32.io/gpio": "1"}, {"esp32.io/gpio": 1}),
    ({"hardware.kube32.io/camera": "1"}, {}),
    ({"esp32.io/gpio": "2000m", "esp32.io/adc": "1500m"}, {"esp32.io/gpio": 2, "esp32.io/adc": 2}),
    ({"esp32.io/rmt-tx": "5X"}, {}),
])
def test_pod_counts_fold_named_buses_and_ignore_pin_claims(requests, want):
    counts = resources.pod_counts(pod("p", requests=requests))
    assert {k: v for k, v in counts.items() if v} == want
    assert set(counts) == set(constants.PERIPHERAL_RESOURCES)


def test_named_buses_take_the_same_bus_once_across_containers():
    p = pod("p", containers=containers(({"esp32.io/i2c-bus-0": "1"}, None), (None, {"esp32.io/i2c-bus-0": "1"})))
    assert resources.pod_counts(p)["esp32.io/i2c"] == 1


@pytest.mark.parametrize(("status", "want"), [
    ({"allocatable": {"memory": "20Ki"}, "capacity": {"memory": "100Ki"}}, 20 * KI),
    ({"allocatable": {}, "capacity": {"memory": "100Ki"}}, 100 * KI),
    ({"allocatable": {"esp32.io/gpio": "8"}, "capacity": {"memory": "100Ki"}}, 100 * KI),
    ({"capacity": {"memory": "100Ki"}}, 100 * KI),
    ({"allocatable": {"memory": "300KB"}}, 0),
    ({}, None),
])
def test_figure_is_allocatable_else_capacity_per_resource(status, want):
    assert resources.figure(status, "memory") == want


def test_node_figures_alias_psram_and_default_to_zero():
    n = node("n", extra={"esp.io/psram": "2Mi"})
    figures = resources.node_figures(n)
    assert figures[resources.PSRAM] == 2 << 20
    assert figures["esp32.io/i2c"] == 0
    both = node("n", extra={"esp.io/psram": "2Mi", "esp32.io/psram": "1Mi"})
    assert resources.node_figures(both)[resources.PSRAM] == 1 << 20


def test_totals_are_capacity_else_allocatable():
    n = node("n", memory="100Ki", capacity={"memory": "400Ki"})
    assert resources.node_totals(n) == {"memory": 400 * KI, "esp32.io/gpio": 8}
    assert resources.node_totals(node("n", gpio=None)) == {"memory": 200 * KI, "esp32.io/gpio": 0}


def test_malformed_quantities_count_as_zero():
    assert resources.amount("abc") == 0
    assert resources.amount(None) == 0
