"""The other side of sensitivity: implementations that follow the document another reasonable way
must PASS. Each variant below patches the in-process reference the way an independent
implementation could behave, and the clauses it touches must still pass."""

from __future__ import annotations

import copy

import pytest

from kube32.reference.controllers import lifecycle_rules as rules
from tests.conftest import FEATURES, run_features, statuses

_plan_node = rules.plan_node


def edge_triggered_ready(mp: pytest.MonkeyPatch) -> None:
    """Sets Ready Unknown once when the lease lapses and never forces it again (the document asks
    for the transition, not for a controller that keeps overwriting what the node says)."""
    marked: set[str] = set()

    def plan(node: dict, state, now: float):
        name = node["metadata"]["name"]
        if state is rules.Health.FRESH:
            marked.discard(name)
            return _plan_node(node, state, now)
        result = _plan_node(node, state, now)
        if name in marked:
            before = copy.deepcopy(rules.ready_condition(node))
            conditions = [c for c in (result.node.get("status") or {}).get("conditions") or []
                          if c.get("type") != "Ready"]
            result.node.setdefault("status", {})["conditions"] = conditions + ([before] if before else [])
            result.events = [e for e in result.events if e[1] != "NodeNotReady"]
            result.changed = result.node != node
        elif rules.marked_unknown(result.node):
            marked.add(name)
        return result

    mp.setattr(rules, "plan_node", plan)


VARIANTS = {
    "edge-triggered-ready": (edge_triggered_ready, ["NODE-NOTREADY-AT-LEASE-DURATION",
                                                    "NODE-EVICT-COUNTS-FROM-TIMEADDED"]),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_reasonable_variant_passes(name, pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    patch, clauses = VARIANTS[name]
    with pytest.MonkeyPatch.context() as mp:
        patch(mp)
        result, doc = run_features(pytester, tmp_path / "report", *(f"--clause={c}" for c in clauses))
    ran = {c: s for c, s in statuses(doc).items() if s not in ("not-selected", "uncovered")}
    assert ran and all(s == "passed" for s in ran.values()), f"variant {name}: {ran}"
    assert result.ret == 0
