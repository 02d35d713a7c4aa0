"""The pure DaemonSet planner: placement, pinning, hashing and the rolling-update budget."""

from __future__ import annotations

import pytest

from kube32.reference.controllers import daemonset_plan as dp
from kube32.spec import constants

UID = "ds-uid"


def ds(image="v1", node_selector=None, strategy=None) -> dict:
    spec = {"template": {"metadata": {"labels": {"app": "x"}},
                         "spec": {"containers": [{"name": "c", "image": image}],
                                  **({"nodeSelector": node_selector} if node_selector else {})}}}
    if strategy:
        spec["updateStrategy"] = strategy
    return {"metadata": {"name": "d", "namespace": "default", "uid": UID, "generation": 3}, "spec": spec}


def node(name, **labels) -> dict:
    return {"metadata": {"name": name, "labels": {constants.HOSTNAME_LABEL: name, **labels}}}


def pod(name, node_name, revision, *, ready=True, terminating=False, phase="Running", bound=True) -> dict:
    meta = {"name": name, "labels": {constants.CONTROLLER_REVISION_HASH_LABEL: revision},
            "creationTimestamp": "2026-01-01T00:00:00Z"}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    spec = {"nodeSelector": {constants.HOSTNAME_LABEL: node_name}}
    if bound:
        spec["nodeName"] = node_name
    return {"metadata": meta, "spec": spec,
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def test_template_hash_is_stable_uses_upstream_alphabet_and_follows_the_template():
    a, b = ds("v1")["spec"]["template"], ds("v1")["spec"]["template"]
    assert dp.template_hash(a) == dp.template_hash(b)
    assert set(dp.template_hash(a)) <= set("4589bcdf67"), dp.template_hash(a)
    assert dp.template_hash(a) != dp.template_hash(ds("v2")["spec"]["template"])


def test_fnv32a_matches_the_published_test_vectors():
    assert dp.fnv32a(b"") == 0x811C9DC5
    assert dp.fnv32a(b"a") == 0xE40C292C
    assert dp.fnv32a(b"foobar") == 0xBF9CF968


@pytest.mark.parametrize("value,desired,expected", [
    (1, 10, 1), (3, 10, 3), ("10%", 10, 1), ("25%", 3, 1), ("34%", 3, 2), ("50%", 5, 3), ("1%", 1, 1),
    ("0%", 4, 0), ("100%", 4, 4),
])
def test_max_unavailable_percent_rounds_up(value, desired, expected):
    assert dp.resolve_max_unavailable(value, desired) == expected


def test_build_pod_pins_labels_tolerates_and_is_owned():
    p = dp.build_pod(ds(node_selector={"board": "s3"}), "node-a", "abc")
    assert p["metadata"]["generateName"] == "d-"
    assert p["spec"]["nodeSelector"] == {"board": "s3", constants.HOSTNAME_LABEL: "node-a"}
    assert p["metadata"]["labels"] == {"app": "x", constants.CONTROLLER_REVISION_HASH_LABEL: "abc"}
    assert p["spec"]["tolerations"] == [
        {"key": constants.TAINT_NOT_READY, "operator": "Exists", "effect": "NoExecute"},
        {"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute"}]
    ref = p["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["uid"], ref["controller"]) == ("DaemonSet", UID, True)
    assert "nodeName" not in p["spec"]


def test_placement_creates_only_on_matching_nodes_without_a_pod():
    d = ds(node_selector={"board": "s3"})
    nodes = [node("a", board="s3"), node("b", board="c3"), node("c", board="s3")]
    rev = dp.template_hash(d["spec"]["template"])
    plan = dp.plan(d, nodes, [pod("p-a", "a", rev)])
    assert plan.create_on == ["c"]
    assert plan.delete == []


def test_pods_on_nodes_that_left_or_stopped_matching_are_deleted():
    d = ds(node_selector={"board": "s3"})
    rev = dp.template_hash(d["spec"]["template"])
    plan = dp.plan(d, [node("a", board="s3"), node("b", board="c3")],
                   [pod("p-a", "a", rev), pod("p-b", "b", rev), pod("p-gone", "gone", rev)])
    assert sorted(dp.pod_name(p) for p, _ in plan.delete) == ["p-b", "p-gone"]
    assert plan.create_on == []


def test_a_terminating_pod_blocks_the_replacement_on_its_node():
    d = ds()
    rev = dp.template_hash(d["spec"]["template"])
    plan = dp.plan(d, [node("a")], [pod("old", "a", rev, terminating=True)])
    assert plan.create_on == []
    plan = dp.plan(d, [node("a")], [])
    assert plan.create_on == ["a"]


def test_failed_pod_is_deleted_and_extra_pods_trimmed():
    d = ds()
    rev = dp.template_hash(d["spec"]["template"])
    plan = dp.plan(d, [node("a"), node("b")],
                   [pod("f", "a", rev, phase="Failed"), pod("b1", "b", rev), pod("b2", "b", rev)])
    assert sorted(dp.pod_name(p) for p, _ in plan.delete) == ["b2", "f"]


def test_rolling_update_replaces_one_ready_pod_at_a_time_by_default():
    d = ds("v2")
    nodes = [node("a"), node("b"), node("c")]
    plan = dp.plan(d, nodes, [pod("pa", "a", "old"), pod("pb", "b", "old"), pod("pc", "c", "old")])
    assert [dp.pod_name(p) for p, _ in plan.delete] == ["pa"]


def test_rolling_update_waits_while_a_node_is_without_an_available_pod():
    d = ds("v2")
    nodes = [node("a"), node("b")]
    plan = dp.plan(d, nodes, [pod("pa", "a", "old", terminating=True), pod("pb", "b", "old")])
    assert plan.delete == []
    rev = dp.template_hash(d["spec"]["template"])
    plan = dp.plan(d, nodes, [pod("pa2", "a", rev, ready=False), pod("pb", "b", "old")])
    assert plan.delete == []
    plan = dp.plan(d, nodes, [pod("pa2", "a", rev), pod("pb", "b", "old")])
    assert [dp.pod_name(p) for p, _ in plan.delete] == ["pb"]


def test_not_ready_old_pods_go_first_and_beyond_the_budget():
    d = ds("v2")
    nodes = [node("a"), node("b"), node("c")]
    plan = dp.plan(d, nodes, [pod("pa", "a", "old"), pod("pb", "b", "old", ready=False),
                              pod("pc", "c", "old", ready=False)])
    assert sorted(dp.pod_name(p) for p, _ in plan.delete) == ["pb", "pc"]


def test_max_unavailable_percent_budget():
    d = ds("v2", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "34%"}})
    nodes = [node("a"), node("b"), node("c")]
    plan = dp.plan(d, nodes, [pod("pa", "a", "old"), pod("pb", "b", "old"), pod("pc", "c", "old")])
    assert [dp.pod_name(p) for p, _ in plan.delete] == ["pa", "pb"]   # ceil(1.02) = 2, floor would be 1


def test_on_delete_never_replaces_out_of_date_pods():
    d = ds("v2", strategy={"type": "OnDelete"})
    plan = dp.plan(d, [node("a")], [pod("pa", "a", "old", ready=False)])
    assert plan.delete == [] and plan.create_on == []


def test_status_counts():
    d = ds("v2", node_selector={"board": "s3"})
    rev = dp.template_hash(d["spec"]["template"])
    nodes = [node("a", board="s3"), node("b", board="s3"), node("c", board="s3"), node("x", board="c3")]
    pods = [pod("pa", "a", rev), pod("pb", "b", "old", ready=False), pod("px", "x", rev)]
    status = dp.compute_status(d, rev, nodes, dp.pods_by_node(pods))
    assert status == {"currentNumberScheduled": 2, "desiredNumberScheduled": 3, "numberMisscheduled": 1,
                      "numberReady": 1, "numberAvailable": 1, "updatedNumberScheduled": 1,
                      "observedGeneration": 3, "numberUnavailable": 2}
