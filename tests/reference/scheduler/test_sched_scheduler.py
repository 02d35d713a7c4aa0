"""The scheduler wired into a control plane: binding, reporting, the loop, and the cache."""

from __future__ import annotations

import json
import random
import types

from sched_helpers import node, pod

from kube32.reference.scheduler import accounting, framework, ranking, resources
from kube32.reference.scheduler.scheduler import ANNOTATION_DECISION


def add_node(cp, n: dict) -> dict:
    status = n.pop("status", None)
    created = cp.store.create("nodes", n)
    if status is not None:
        created["status"] = status
        created = cp.store.update("nodes", created)
    return created


def create_pod(cp, p: dict) -> dict:
    """What the API does: store the pod, then schedule it inside the same request."""
    with cp.store.lock:
        created = cp.store.create("pods", p)
        if not created["spec"].get("nodeName"):
            cp.scheduler.schedule(created)
        return cp.store.get("pods", created["metadata"]["namespace"], created["metadata"]["name"])


def events(cp, reason: str) -> list[dict]:
    return [e for e in cp.store.list("events", "default") if e["reason"] == reason]


def condition(p: dict) -> dict | None:
    return next((c for c in p.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), None)


def test_binding_sets_node_condition_event_and_explanation(cp):
    add_node(cp, node("a", memory="200Ki"))
    add_node(cp, node("b", memory="2000Ki"))
    add_node(cp, node("c", ready="False"))
    p = create_pod(cp, pod("p", requests={"memory": "100Ki", "esp32.io/gpio": "4"}))
    assert p["spec"]["nodeName"] == "b"
    assert condition(p)["status"] == "True"
    [event] = events(cp, "Scheduled")
    assert (event["type"], event["message"], event["source"]["component"]) == (
        "Normal", "Successfully assigned default/p to b", "default-scheduler")
    decision = json.loads(p["metadata"]["annotations"][ANNOTATION_DECISION])
    assert decision["node"] == "b" and decision["feasible"] == 2
    assert decision["nodes"]["a"] == {"score": 50.0}
    assert decision["nodes"]["b"] == {"score": 72.5}
    assert decision["nodes"]["c"] == {"filter": "NodeReadiness", "reasons": ["node(s) were not ready"]}


def test_failure_reports_and_retries_aggregate(cp):
    add_node(cp, node("a", memory="100Ki"))
    p = create_pod(cp, pod("p", requests={"memory": "200Ki"}))
    message = "0/1 nodes are available: 1 Insufficient memory."
    assert not p["spec"].get("nodeName")
    assert p["status"]["phase"] == "Pending"
    cond = condition(p)
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "Unschedulable", message)
    rv = p["metadata"]["resourceVersion"]
    cp.clock.advance(3 * cp.profile.reconcile_interval)
    [event] = events(cp, "FailedScheduling")
    assert (event["type"], event["message"], event["count"]) == ("Warning", message, 4)
    assert event["involvedObject"]["uid"] == p["metadata"]["uid"]
    # unchanged failures do not rewrite the pod
    assert cp.store.get("pods", "default", "p")["metadata"]["resourceVersion"] == rv


def test_the_loop_binds_once_room_appears(cp):
    n = add_node(cp, node("a", memory="100Ki"))
    create_pod(cp, pod("p", requests={"memory": "200Ki"}))
    n["status"]["allocatable"]["memory"] = "300Ki"
    cp.store.update("nodes", n)
    assert not cp.store.get("pods", "default", "p")["spec"].get("nodeName")
    cp.clock.advance(cp.profile.reconcile_interval)
    p = cp.store.get("pods", "default", "p")
    assert p["spec"]["nodeName"] == "a"
    assert condition(p)["status"] == "True"


def test_named_pods_are_left_alone(cp):
    add_node(cp, node("a", memory="8Ki", unschedulable=True))
    p = create_pod(cp, pod("p", requests={"memory": "100Ki"}, node_name="a"))
    cp.clock.advance(2 * cp.profile.reconcile_interval)
    p = cp.store.get("pods", "default", "p")
    assert p["spec"]["nodeName"] == "a" and condition(p) is None
    assert not cp.store.list("events", "default")


def test_no_nodes_at_all(cp):
    p = create_pod(cp, pod("p"))
    assert condition(p)["message"] == "no nodes available to schedule pods"
    assert condition(p)["reason"] == "Unschedulable"


def test_finished_and_terminating_pods_are_not_scheduled(cp):
    add_node(cp, node("a"))
    cp.store.create("pods", pod("done", phase="Succeeded"))
    cp.clock.advance(cp.profile.reconcile_interval)
    assert not cp.store.get("pods", "default", "done")["spec"].get("nodeName")


def brute_force_usage(cp, name: str) -> dict:
    n = cp.store.get("nodes", "", name)
    rv = int(n["metadata"]["resourceVersion"])
    out = resources.zero()
    for p in cp.store.list("pods"):
        if p["spec"].get("nodeName") == name and accounting.counts_against_node(p, rv):
            for k, v in resources.pod_amounts(p)[0].items():
                out[k] += v
    return out


def test_cache_matches_a_full_recount_after_random_writes(cp):
    """The incremental cache (NodeInfo per node rv, bound pods by node) equals a from-scratch
    recount from the store after any mix of writes."""
    rnd = random.Random(7)
    names = [f"n{i}" for i in range(5)]
    for name in names:
        add_node(cp, node(name, memory=f"{rnd.randint(50, 400)}Ki"))
    for step in range(300):
        action = rnd.choice(["create", "create", "start", "node", "move", "delete", "finish", "label"])
        pods = cp.store.list("pods")
        if action == "create":
            create_pod(cp, pod(f"p{step}", requests={"memory": f"{rnd.randint(1, 60)}Ki"},
                               node_name=rnd.choice([None, rnd.choice(names)])))
        elif action in ("start", "finish") and pods:
            p = cp.store.get("pods", "default", rnd.choice(pods)["metadata"]["name"])
            p.setdefault("status", {})["phase"] = "Running" if action == "start" else "Succeeded"
            cp.store.update("pods", p)
        elif action == "move" and pods:
            p = cp.store.get("pods", "default", rnd.choice(pods)["metadata"]["name"])
            p["spec"]["nodeName"] = rnd.choice(names + [""])
            cp.store.update("pods", p)
        elif action == "delete" and pods:
            cp.store.delete("pods", "default", rnd.choice(pods)["metadata"]["name"])
        elif action in ("node", "label"):
            n = cp.store.get("nodes", "", rnd.choice(names))
            if action == "node":
                n["status"]["allocatable"]["memory"] = f"{rnd.randint(50, 400)}Ki"
            else:
                n["metadata"].setdefault("labels", {})["step"] = str(step)
            cp.store.update("nodes", n)
        if step % 10 == 0:
            with cp.store.lock:
                infos = {i.name: i for i in cp.scheduler.cache.nodes()}
            for name in names:
                assert infos[name].accounted == brute_force_usage(cp, name), (step, name)
                assert infos[name].resource_version == int(cp.store.get("nodes", "", name)["metadata"]["resourceVersion"])


def test_cache_is_seeded_from_an_existing_store(cp):
    add_node(cp, node("a", memory="100Ki"))
    cp.store.create("pods", pod("early", requests={"memory": "60Ki"}, node_name="a"))
    from kube32.reference.scheduler.cache import SchedulerCache
    fresh = SchedulerCache(cp.store)
    with cp.store.lock:
        [info] = fresh.nodes()
    assert info.accounted["memory"] == 60 * 1024
    assert isinstance(info, framework.NodeInfo)


def test_the_decision_annotation_stays_small_on_a_large_cluster():
    from kube32.reference.scheduler import scheduler as sched

    statuses = {f"r{i:03d}": framework.Status(framework.Code.UNSCHEDULABLE, ["node(s) were not ready"],
                                              plugin="NodeReadiness") for i in range(40)}
    feasible = [types.SimpleNamespace(name=f"f{i:03d}") for i in range(40)]
    ranked = ranking.Ranking.of(feasible, [float(i) for i in range(40)], lambda node: node.name)
    decision = sched.Decision("f039", 80, statuses, {n.name: float(i) for i, n in enumerate(feasible)},
                              ranked.top_names(sched.EXPLAIN_NODES))
    out = decision.explain()
    assert len(out["nodes"]) == 2 * sched.EXPLAIN_NODES and out["omitted"] == 80 - 2 * sched.EXPLAIN_NODES
    assert out["rejectedBy"] == {"NodeReadiness": 40}
    assert "f039" in out["nodes"] and "f029" not in out["nodes"]     # the best-scoring ones are kept


def test_a_retry_pass_takes_the_store_lock_per_pod_and_rewrites_no_unchanged_pod(cp, monkeypatch):
    """The pass holds the store lock only inside each pod's attempt (requests go on between them);
    a pod whose decision did not change keeps its resourceVersion, also when a node changed, while
    its FailedScheduling event counts every attempt."""
    n = add_node(cp, node("a", memory="100Ki"))
    pending = [create_pod(cp, pod(f"p{i}", requests={"memory": "200Ki"})) for i in range(3)]
    attempts: list[bool] = []
    schedule = cp.scheduler.schedule

    def attempt(p: dict):
        attempts.append(cp.store.lock._is_owned())        # held by this thread when the attempt starts?
        return schedule(p)
    monkeypatch.setattr(cp.scheduler, "schedule", attempt)
    cp.clock.advance(cp.profile.reconcile_interval)
    assert attempts == [False, False, False]
    n["metadata"]["labels"] = {**n["metadata"].get("labels", {}), "unrelated": "yes"}
    cp.store.update("nodes", n)                       # the cache moves: each pod is decided again
    cp.clock.advance(cp.profile.reconcile_interval)
    assert attempts == [False] * 6
    for p in pending:
        now = cp.store.get("pods", "default", p["metadata"]["name"])
        assert now["metadata"]["resourceVersion"] == p["metadata"]["resourceVersion"]
    assert sorted(e["count"] for e in events(cp, "FailedScheduling")) == [3, 3, 3]
