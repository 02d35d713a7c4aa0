"""Deadline-driven manual-clock jumps: the same store, object for object (timestamps included), as
running every tick, while most ticks of a long jump are skipped."""

from __future__ import annotations

from kube32.reference.config import Config
from kube32.reference.controlplane import ControlPlane
from tests.reference.controllers.lifecycle_helpers import START, add_node, add_pod, renew


def scenario(monkeypatch, mode: str) -> tuple[dict, ControlPlane]:
    """Two nodes, one keeps renewing for a while; pods with and without tolerations; a pending pod
    that fits nowhere; then a 600 s jump in steps."""
    monkeypatch.setenv("KUBE32_CLOCK_JUMPS", mode)
    cp = ControlPlane(Config(clock="manual", clock_start=START))
    cp.start()
    add_node(cp, "esp-a")
    add_node(cp, "esp-b")
    add_pod(cp, "stays", "esp-a", tolerations=[{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                                "effect": "NoExecute", "tolerationSeconds": 100}])
    add_pod(cp, "goes", "esp-a", tolerations=[])
    for _ in range(4):
        cp.clock.advance(5)
        renew(cp, "esp-b")
    cp.clock.advance(600)
    renew(cp, "esp-b")          # back after a long silence: recovery
    cp.clock.advance(7.3)
    return {res: comparable(cp.store.list(res)) for res in ("nodes", "pods", "events")}, cp


def comparable(items: list[dict]) -> list[dict]:
    """Without what differs between any two runs: uids and the events' random name suffixes."""
    out = []
    for item in items:
        meta = {k: v for k, v in item["metadata"].items() if k != "uid"}
        if item.get("kind") == "Event":
            meta["name"] = meta["name"].rsplit(".", 1)[0]
            item = {**item, "involvedObject": {k: v for k, v in item["involvedObject"].items() if k != "uid"}}
        out.append({**item, "metadata": meta})
    return sorted(out, key=repr)


def test_a_long_jump_skips_ticks_and_ends_in_the_same_state(monkeypatch):
    ticked, cp_tick = scenario(monkeypatch, "tick")
    jumped, cp_jump = scenario(monkeypatch, "deadline")
    assert ticked == jumped
    reasons = {e["reason"] for e in jumped["events"]}
    assert {"NodeNotReady", "NodeReady"} <= reasons      # the scenario did cross deadlines
    assert cp_tick.loops.skipped == 0
    assert cp_jump.loops.skipped > 1000                  # 600 s of 0.5 s checks: most skipped

