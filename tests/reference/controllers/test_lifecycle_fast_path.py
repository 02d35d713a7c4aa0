"""The node lifecycle controller's fast path (a pass looks only at the nodes written since the last
pass or whose health's ``until`` came; manual-clock jumps skip passes before ``idle_until``) decides
exactly what the plain one decides (every pass looks at every node; every check runs). Random
fleets, renewals, pods with and without tolerations, Lease deletions and clock jumps, run on both
side by side; Hypothesis shrinks a difference to the shortest story."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lifecycle_helpers import LEASES, START, add_node, add_pod, renew

from kube32.reference.config import Config
from kube32.reference.controllers import node_lifecycle
from kube32.reference.controlplane import ControlPlane
from kube32.spec import constants, reasons

NODES = 4

nodes = st.integers(0, NODES - 1)
ops = st.lists(st.one_of(
    st.tuples(st.just("renew"), nodes),
    st.tuples(st.just("pod"), nodes, st.sampled_from([None, 0, 3, 10, 40])),
    st.tuples(st.just("drop-lease"), nodes),
    st.tuples(st.just("advance"), st.sampled_from([0.5, 1, 2.5, 5, 9, 14.5, 15, 16, 31, 47])),
), min_size=1, max_size=18)


def _control_plane(plain: bool) -> ControlPlane:
    cp = ControlPlane(Config(clock="manual", clock_start=START, clock_jumps="tick" if plain else "deadline"))
    if plain:
        ctl = next(c for c in cp.loops.controllers if c.NAME == node_lifecycle.NodeLifecycleController.NAME)
        ctl._to_visit = lambda now: [n["metadata"]["name"] for n in cp.store.head.list("nodes")]
    cp.start()
    for i in range(NODES):
        add_node(cp, f"n{i}")
    return cp


def _apply(cp: ControlPlane, op: tuple, count: int) -> None:
    kind, *args = op
    if kind == "renew":
        if cp.store.head.try_get(LEASES, constants.NODE_LEASE_NAMESPACE, f"n{args[0]}") is not None:
            renew(cp, f"n{args[0]}")
    elif kind == "pod":
        node, seconds = args
        tolerations = None if seconds is None else [
            {"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": seconds}]
        add_pod(cp, f"p{count}", f"n{node}", tolerations=tolerations)
    elif kind == "drop-lease":
        if cp.store.head.try_get(LEASES, constants.NODE_LEASE_NAMESPACE, f"n{args[0]}") is not None:
            cp.store.delete(LEASES, constants.NODE_LEASE_NAMESPACE, f"n{args[0]}")
    else:
        cp.clock.advance(args[0])


def _decisions(cp: ControlPlane) -> dict:
    """What the controller decided, without times or versions: each node's Ready status and reason,
    its taints, the pods left, and its events per object and reason (the scheduler's retries of an
    evicted pod count as often as its own passes run, so other components' events are left out)."""
    nodes = {}
    for node in cp.store.head.list("nodes"):
        ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
        nodes[node["metadata"]["name"]] = (ready["status"], ready.get("reason"),
                                           sorted(f"{t['key']}:{t['effect']}"
                                                  for t in (node.get("spec") or {}).get("taints") or []))
    pods = sorted((p["metadata"]["name"], bool(p["metadata"].get("deletionTimestamp")))
                  for p in cp.store.head.list("pods"))
    events = sorted((e["involvedObject"]["name"], e["reason"], e.get("count", 1))
                    for e in cp.store.head.list("events")
                    if (e.get("source") or {}).get("component") == reasons.NODE_CONTROLLER_COMPONENT)
    return {"nodes": nodes, "pods": pods, "events": events}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@settings(max_examples=40, deadline=None)
@given(ops)
def test_the_fast_path_decides_what_the_plain_pass_decides(ops):
    fast, plain = _control_plane(plain=False), _control_plane(plain=True)
    try:
        for count, op in enumerate(ops):
            _apply(fast, op, count)
            _apply(plain, op, count)
            if op[0] == "advance":
                assert _decisions(fast) == _decisions(plain), f"after {ops[:count + 1]}"
        fast.clock.advance(60)
        plain.clock.advance(60)
        assert _decisions(fast) == _decisions(plain)
    finally:
        fast.stop()
        plain.stop()
