"""Each filter plugin alone, asserting upstream's exact reason strings (k8s test-table style)."""

from __future__ import annotations

import copy
import random

import pytest
from sched_helpers import node, pod

from kube32.reference.scheduler import framework, registry
from kube32.reference.scheduler.plugins import (
    memory_fit,
    node_name,
    node_readiness,
    node_selector,
    peripheral_fit,
    psram_fit,
)
from kube32.spec import reasons

U, UU = framework.Code.UNSCHEDULABLE, framework.Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def run(plugin, p: dict, n: dict) -> framework.Status | None:
    return plugin.filter(framework.PodInfo.of(p), framework.NodeInfo.of(n))


def test_the_profile_runs_the_documented_order():
    assert [cls.NAME for cls in registry.FILTERS] == [
        "NodeReadiness", "NodeName", "NodeSelector", "MemoryFit", "PsramFit", "PeripheralFit"]


@pytest.mark.parametrize(("case", "n", "want"), [
    ("ready node passes", node("n"), None),
    ("cordoned", node("n", unschedulable=True), (UU, reasons.REASON_UNSCHEDULABLE)),
    ("cordoned and not ready: cordon is checked first", node("n", unschedulable=True, ready="False"),
     (UU, reasons.REASON_UNSCHEDULABLE)),
    ("no status", node("n", status=False), (UU, reasons.REASON_UNKNOWN_CONDITION)),
    ("status without Ready", node("n", ready=None), (UU, reasons.REASON_UNKNOWN_CONDITION)),
    ("Ready False", node("n", ready="False"), (UU, reasons.REASON_NOT_READY)),
    ("Ready Unknown", node("n", ready="Unknown"), (UU, reasons.REASON_NOT_READY)),
])
def test_node_readiness(case, n, want):
    status = run(node_readiness.NodeReadiness(), pod("p"), n)
    got = None if status is None else (status.code, status.message())
    assert got == want, case


def test_node_readiness_is_memoised_per_node_info():
    info = framework.NodeInfo.of(node("n", ready="False"))
    plugin = node_readiness.NodeReadiness()
    first = plugin.filter(framework.PodInfo.of(pod("p")), info)
    assert info.memo[node_readiness.NAME] is first


def test_node_name():
    plugin = node_name.NodeName()
    assert plugin.pre_filter(framework.PodInfo.of(pod("p"))) is framework.SKIP
    assert run(plugin, pod("p", node_name="a"), node("a")) is None
    status = run(plugin, pod("p", node_name="a"), node("b"))
    assert (status.code, status.reasons) == (UU, (reasons.REASON_NODE_NAME,))


@pytest.mark.parametrize(("labels", "passes"), [
    ({"board": "s3", "zone": "a"}, True),
    ({"board": "s3", "zone": "a", "extra": "x"}, True),
    ({"board": "s3"}, False),
    ({"board": "s3", "zone": "b"}, False),
    ({}, False),
])
def test_node_selector(labels, passes):
    status = run(node_selector.NodeSelector(), pod("p", selector={"board": "s3", "zone": "a"}), node("n", labels=labels))
    assert (status is None) == passes
    if status is not None:
        assert (status.code, status.reasons) == (UU, (reasons.REASON_NODE_SELECTOR,))


@pytest.mark.parametrize(("plugin", "requests", "n", "want"), [
    (memory_fit.MemoryFit(), {"memory": "100Ki"}, node("n", memory="100Ki"), None),
    (memory_fit.MemoryFit(), {"memory": "102401"}, node("n", memory="100Ki"), "Insufficient memory"),
    (memory_fit.MemoryFit(), {"memory": "0"}, node("n", memory="0"), None),
    (psram_fit.PsramFit(), {"esp.io/psram": "2Mi"}, node("n", extra={"esp32.io/psram": "2Mi"}), None),
    (psram_fit.PsramFit(), {"esp.io/psram": "2097153"}, node("n", extra={"esp32.io/psram": "2Mi"}),
     "Insufficient esp.io/psram"),
    (psram_fit.PsramFit(), {"esp32.io/psram": "1"}, node("n"), "Insufficient esp32.io/psram"),
    (peripheral_fit.PeripheralFit(), {"esp32.io/gpio": "8"}, node("n", gpio="8"), None),
    (peripheral_fit.PeripheralFit(), {"esp32.io/gpio": "9", "esp32.io/adc": "1"}, node("n", gpio="8"),
     "Insufficient esp32.io/gpio, Insufficient esp32.io/adc"),
    (peripheral_fit.PeripheralFit(), {"esp32.io/i2c-bus-0": "1", "esp32.io/i2c": "1"},
     node("n", extra={"esp32.io/i2c": "1"}), "Insufficient esp32.io/i2c"),
])
def test_resource_fit(plugin, requests, n, want):
    status = run(plugin, pod("p", requests=requests), n)
    assert (None if status is None else status.message()) == want
    if status is not None:
        assert status.code == U


def test_resource_filters_skip_pods_that_ask_for_nothing():
    info = framework.PodInfo.of(pod("p", requests={"memory": "0"}))
    for plugin in (memory_fit.MemoryFit(), psram_fit.PsramFit(), peripheral_fit.PeripheralFit()):
        assert plugin.pre_filter(info) is framework.SKIP, plugin.NAME


def test_free_is_figure_minus_accounted():
    info = framework.NodeInfo.of(node("n", memory="100Ki"))
    info.account({**info.accounted, "memory": 60 * 1024})
    assert info.free["memory"] == 40 * 1024
    assert run(memory_fit.MemoryFit(), pod("p", requests={"memory": "40Ki"}), node("n", memory="40Ki")) is None
    status = memory_fit.MemoryFit().filter(framework.PodInfo.of(pod("p", requests={"memory": "41Ki"})), info)
    assert status is not None and status.message() == "Insufficient memory"


# one way to change each pod field, to show a plugin's verdicts do not depend on what it does not declare
CHANGES = {
    "metadata.name": lambda p, rnd: p["metadata"].update(name=f"p-{rnd.randrange(9)}"),
    "metadata.annotations": lambda p, rnd: p["metadata"].update(annotations={"zone": rnd.choice("ab")}),
    "metadata.labels": lambda p, rnd: p["metadata"].update(labels={"app": rnd.choice("xy")}),
    "spec.nodeName": lambda p, rnd: p["spec"].update(nodeName=rnd.choice(["", "n1", "n2"])),
    "spec.nodeSelector": lambda p, rnd: p["spec"].update(nodeSelector=rnd.choice([{}, {"board": "s3"}])),
    "spec.tolerations": lambda p, rnd: p["spec"].update(tolerations=[{"operator": "Exists"}] * rnd.randrange(2)),
    "spec.containers.image": lambda p, rnd: [c.update(image=rnd.choice("ab")) for c in p["spec"]["containers"]],
    "spec.containers.resources": lambda p, rnd: [c.update(resources={"requests": {
        "memory": f"{rnd.choice([1, 60, 150])}Ki", "esp32.io/gpio": str(rnd.randrange(6)),
        "esp32.io/psram": rnd.choice(["0", "1Mi"])}}) for c in p["spec"]["containers"]],
}


def test_every_plugin_reads_no_pod_field_it_does_not_declare():
    """Changing any pod field outside a plugin's READS leaves its verdicts and scores unchanged,
    so keeping verdicts per value of the declared fields (``memo``) is sound."""
    rnd = random.Random(21)
    profile = registry.new_profile()
    nodes = [framework.NodeInfo.of(node(f"n{i}", memory=m, gpio=g, ready=r, labels=lab))
             for i, (m, g, r, lab) in enumerate([("200Ki", "8", "True", {"board": "s3"}), ("100Ki", "2", "True", {}),
                                                  ("400Ki", "0", "True", {"board": "c3"}), ("200Ki", "8", "False", {})])]
    for _ in range(150):
        base = pod("p")
        for change in CHANGES.values():
            if rnd.random() < 0.6:
                change(base, rnd)
        for plugin in (*profile.filters, profile.score):
            other = copy.deepcopy(base)
            for field, change in CHANGES.items():
                if field not in plugin.READS:
                    change(other, rnd)
            a, b = framework.PodInfo.of(base), framework.PodInfo.of(other)
            if plugin is profile.score:
                assert plugin.score_all(a, nodes) == plugin.score_all(b, nodes), plugin.NAME
                assert [plugin.exact_score(a, n) for n in nodes] == [plugin.exact_score(b, n) for n in nodes]
            else:
                assert [plugin.filter(a, n) for n in nodes] == [plugin.filter(b, n) for n in nodes], plugin.NAME
