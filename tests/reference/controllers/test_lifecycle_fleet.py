"""The node lifecycle pass at fleet scale looks only at the nodes whose state can change: those whose
Node or Lease was written since the last pass, and those at a deadline; every node on the
first pass and when the store's log no longer reaches back to the last pass."""

from __future__ import annotations

import pytest
from lifecycle_helpers import add_node, control_plane, ready, renew

from kube32.reference.controllers import node_lifecycle

NODES = 60


@pytest.fixture
def cp(monkeypatch):
    monkeypatch.setenv("KUBE32_CLOCK_JUMPS", "tick")      # every check runs: each one is counted
    cp = control_plane()
    for i in range(NODES):
        add_node(cp, f"n{i:02d}")
    yield cp
    cp.stop()


@pytest.fixture
def looked_at(monkeypatch) -> list[list[str]]:
    """The nodes each pass planned, by pass (a pass that looked at none adds an empty list)."""
    passes: list[list[str]] = []
    update_node, reconcile = node_lifecycle.NodeLifecycleController.update_node, \
        node_lifecycle.NodeLifecycleController.reconcile

    def counting_reconcile(self, now):
        passes.append([])
        reconcile(self, now)

    def counting_update(self, node, now):
        passes[-1].append(node["metadata"]["name"])
        return update_node(self, node, now)
    monkeypatch.setattr(node_lifecycle.NodeLifecycleController, "reconcile", counting_reconcile)
    monkeypatch.setattr(node_lifecycle.NodeLifecycleController, "update_node", counting_update)
    return passes


def controller(cp) -> node_lifecycle.NodeLifecycleController:
    return next(c for c in cp.loops.controllers if c.NAME == node_lifecycle.NodeLifecycleController.NAME)


def step(cp) -> float:
    return cp.profile.lifecycle_check_interval


def test_the_first_pass_looks_at_every_node_then_only_at_renewed_ones(cp, looked_at):
    cp.clock.advance(step(cp))
    assert len(looked_at[-1]) == NODES
    renew(cp, "n03")
    renew(cp, "n41")
    cp.clock.advance(step(cp))
    assert looked_at[-1] == ["n03", "n41"]
    cp.clock.advance(step(cp))
    assert looked_at[-1] == []                  # nothing written, no deadline near: nothing to look at


def test_a_silent_node_is_looked_at_again_at_its_deadline_only(cp, looked_at):
    cp.clock.advance(step(cp))
    quiet = cp.profile.lease_duration - 4 * step(cp)
    for _ in range(int(quiet / step(cp))):      # everybody but n07 keeps renewing
        cp.clock.advance(step(cp))
        for i in range(NODES):
            if i != 7:
                renew(cp, f"n{i:02d}")
    assert "n07" not in looked_at[-1]
    looked_at.clear()
    while ready(cp, "n07")["status"] == "True":
        cp.clock.advance(step(cp))
    assert looked_at[-1] == ["n07"]                       # the pass at its deadline
    assert not any("n07" in names for names in looked_at[:-1])    # not before: its health held until then
    assert ready(cp, "n00")["status"] == "True"


def test_a_log_that_no_longer_reaches_back_means_every_node(cp, looked_at, monkeypatch):
    cp.clock.advance(step(cp))
    renew(cp, "n05")
    monkeypatch.setattr(cp.store, "changes_after", lambda cursor: None)
    cp.clock.advance(step(cp))
    assert len(looked_at[-1]) == NODES


def test_a_deleted_node_is_forgotten(cp):
    cp.clock.advance(step(cp))
    assert "n09" in controller(cp).renewals
    cp.store.delete("nodes", "", "n09")
    cp.clock.advance(step(cp))
    assert "n09" not in controller(cp).renewals
    assert "n09" not in controller(cp)._wake
