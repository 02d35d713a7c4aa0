"""deployment_plan: hashing, fenceposts, ownership, deletion order and the per-pass plan."""

from __future__ import annotations

import re

import pytest
from deployment_helpers import START, deployment, kinds, pod, rolling

from kube32.reference.controllers import deployment_plan as dp
from kube32.spec import constants

TOL = 300


# -- the template hash ----------------------------------------------------------------------
def test_hash_uses_upstream_alphabet_and_is_stable_across_key_order():
    a = {"metadata": {"labels": {"app": "web", "tier": "x"}}, "spec": {"containers": [{"name": "c", "image": "v1"}]}}
    b = {"spec": {"containers": [{"image": "v1", "name": "c"}]}, "metadata": {"labels": {"tier": "x", "app": "web"}}}
    h = dp.template_hash(a)
    assert re.fullmatch(r"[4-9bcdf]{1,10}", h), h
    assert dp.template_hash(b) == h


def test_hash_changes_with_the_template():
    a = deployment(image="v1")["spec"]["template"]
    b = deployment(image="v2")["spec"]["template"]
    assert dp.template_hash(a) != dp.template_hash(b)


def test_safe_encode_maps_digits_as_upstream():
    assert dp.safe_encode("0123456789") == "456789bcdf"


def test_fnv32a_known_vectors():
    assert dp.fnv32a(b"") == 0x811C9DC5
    assert dp.fnv32a(b"a") == 0xE40C292C


# -- fenceposts ------------------------------------------------------------------------------
@pytest.mark.parametrize("surge, unavailable, desired, expected", [
    (None, None, 4, (1, 1)),        # 25 % of 4
    (None, None, 7, (2, 1)),        # 1.75: surge up to 2, unavailable down to 1
    (None, None, 3, (1, 0)),        # 0.75: unavailable 0 stays 0 because surge is 1
    (0, None, 3, (0, 1)),           # both 0 -> unavailable 1
    ("0%", "0%", 10, (0, 1)),
    (None, None, 0, (0, 1)),
    ("50%", "10%", 10, (5, 1)),
    (2, "100%", 3, (2, 3)),
])
def test_resolve_fenceposts(surge, unavailable, desired, expected):
    assert dp.resolve_fenceposts(surge, unavailable, desired) == expected


def test_percent_without_sign_is_an_error():
    with pytest.raises(ValueError, match="not a percentage"):
        dp.scaled_value("25", 4, False, "25%")


@pytest.mark.parametrize("replicas, strategy, expected", [
    (4, None, 1), (7, None, 1), (3, None, 0), (3, rolling(max_surge=0), 1),
    (0, None, 0), (2, rolling(max_unavailable=5), 2), (4, {"type": "Recreate"}, 0),
])
def test_max_unavailable_for_the_available_condition(replicas, strategy, expected):
    assert dp.max_unavailable(deployment(replicas=replicas, strategy=strategy)) == expected


def test_defaults_when_spec_is_silent():
    d = deployment(replicas=None)
    assert dp.desired_replicas(d) == constants.DEPLOYMENT_DEFAULT_REPLICAS
    assert dp.progress_deadline(d) == constants.DEPLOYMENT_DEFAULT_PROGRESS_DEADLINE_SECONDS


# -- ownership -------------------------------------------------------------------------------
def test_only_the_controller_reference_with_the_uid_counts():
    d = deployment()
    other = deployment(uid="uid-other")
    mine = pod("a", d)
    foreign = pod("b", other)
    not_controller = pod("c", d)
    not_controller["metadata"]["ownerReferences"][0]["controller"] = False
    assert dp.owned_pods(d, [mine, foreign, not_controller]) == [mine]


def test_orphans_are_pods_whose_deployment_uid_is_gone():
    d = deployment()
    gone = deployment(uid="uid-gone")
    keep, orphan = pod("a", d), pod("b", gone)
    terminating_orphan = pod("c", gone, terminating=True)
    assert [a.name for a in dp.orphans([keep, orphan, terminating_orphan], [d])] == ["b"]


def test_a_recreated_deployment_of_the_same_name_does_not_adopt_old_pods():
    old = deployment(uid="uid-1")
    new = deployment(uid="uid-2")
    assert [a.name for a in dp.orphans([pod("a", old)], [new])] == ["a"]


# -- creating --------------------------------------------------------------------------------
def test_creates_missing_pods_from_the_template():
    d = deployment(replicas=2)
    actions = dp.plan(d, [], START, TOL)
    assert kinds(actions) == [("create", "missing")] * 2
    m = actions[0].manifest
    h = dp.template_hash(d["spec"]["template"])
    assert m["metadata"]["generateName"] == f"web-{h}-"
    assert m["metadata"]["labels"] == {"app": "web", constants.POD_TEMPLATE_HASH_LABEL: h}
    assert m["metadata"]["ownerReferences"][0] == {
        "apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-web",
        "controller": True, "blockOwnerDeletion": True}
    assert m["spec"]["tolerations"] == [
        {"key": constants.TAINT_NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": TOL},
        {"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": TOL}]
    assert "tolerations" not in d["spec"]["template"]["spec"], "the plan must not mutate the Deployment"


def test_template_tolerations_are_kept_and_not_duplicated():
    d = deployment(replicas=1)
    d["spec"]["template"]["spec"]["tolerations"] = [{"key": constants.TAINT_UNREACHABLE, "operator": "Exists",
                                                      "effect": "NoExecute", "tolerationSeconds": 5}]
    m = dp.plan(d, [], START, TOL)[0].manifest
    assert [(t["key"], t.get("tolerationSeconds")) for t in m["spec"]["tolerations"]] == [
        (constants.TAINT_UNREACHABLE, 5), (constants.TAINT_NOT_READY, TOL)]


def test_terminating_pods_do_not_count_and_are_replaced():
    d = deployment(replicas=2)
    pods = [pod("a", d), pod("b", d, terminating=True)]
    assert kinds(dp.plan(d, pods, START, TOL)) == [("create", "missing")]


def test_finished_pods_are_deleted_and_replaced():
    d = deployment(replicas=1)
    pods = [pod("a", d, phase="Failed", ready=False)]
    assert kinds(dp.plan(d, pods, START, TOL)) == [("delete", "a"), ("create", "missing")]


def test_nothing_to_do_in_steady_state():
    d = deployment(replicas=2)
    assert dp.plan(d, [pod("a", d), pod("b", d)], START, TOL) == []


# -- deleting surplus --------------------------------------------------------------------------
def test_scale_down_removes_the_not_ready_and_the_stale_pod():
    d = deployment(replicas=1)
    pods = [pod("ready-new", d, created=START + 2),
            pod("not-ready", d, ready=False, created=START),
            pod("stale", d, hash_="old", created=START + 1)]
    assert sorted(kinds(dp.plan(d, pods, START + 10, TOL))) == [("delete", "not-ready"), ("delete", "stale")]


def test_deletion_order():
    d = deployment(replicas=0)
    pods = [pod("ready-current-old", d, created=START),
            pod("ready-current-new", d, created=START + 5),
            pod("ready-stale", d, hash_="old"),
            pod("notready-a", d, ready=False),
            pod("notready-b", d, ready=False),
            pod("notready-stale", d, ready=False, hash_="old", created=START - 5)]
    ordered = [p["metadata"]["name"] for p in dp.deletion_order(pods, dp.template_hash(d["spec"]["template"]))]
    assert ordered == ["notready-stale", "notready-b", "notready-a", "ready-stale", "ready-current-new",
                       "ready-current-old"]


def test_default_four_replicas_replace_one_per_pass_when_new_pods_are_ready():
    d = deployment(replicas=4)                              # maxUnavailable 1, maxSurge 1
    pods = [pod("n0", d)] + [pod(f"s{i}", d, hash_="old", created=START + i) for i in range(3)]
    assert kinds(dp.plan(d, pods, START + 10, TOL)) == [("delete", "s2"), ("create", "replacement")]


# -- rolling out -------------------------------------------------------------------------------
def test_one_stale_pod_is_replaced_per_pass():
    d = deployment(replicas=3, strategy=rolling(max_unavailable=3))
    pods = [pod(f"s{i}", d, hash_="old", created=START + i) for i in range(3)]
    assert kinds(dp.plan(d, pods, START + 10, TOL)) == [("delete", "s2"), ("create", "replacement")]


def test_not_ready_stale_pod_goes_first():
    d = deployment(replicas=3, strategy=rolling(max_unavailable=3))
    pods = [pod("s0", d, hash_="old", ready=False), pod("s1", d, hash_="old", created=START + 1),
            pod("s2", d, hash_="old", created=START + 2)]
    assert kinds(dp.plan(d, pods, START + 10, TOL))[0] == ("delete", "s0")


def test_rollout_waits_for_availability_and_surges_one_pod():
    d = deployment(replicas=4)                              # maxUnavailable 1, maxSurge 1
    cur = [pod("n0", d, ready=False)]
    stale = [pod(f"s{i}", d, hash_="old") for i in range(3)]
    # 3 ready of 4: deleting a ready stale pod would leave 2 < 4 - 1 -> blocked; surge one pod
    assert kinds(dp.plan(d, cur + stale, START, TOL)) == [("create", "surge")]
    # at replicas + maxSurge nothing more happens
    assert dp.plan(d, cur + stale + [pod("n1", d, ready=False)], START, TOL) == []


def test_default_three_replicas_surge_before_deleting():
    d = deployment(replicas=3)                              # maxUnavailable 0, maxSurge 1
    stale = [pod(f"s{i}", d, hash_="old") for i in range(3)]
    assert kinds(dp.plan(d, stale, START, TOL)) == [("create", "surge")]
    ready_new = [pod("n0", d)]
    # the surge pod is ready: one stale pod goes and the next surge starts in the same pass
    assert kinds(dp.plan(d, stale + ready_new, START, TOL)) == [("delete", "s2"), ("create", "surge")]


def test_scale_down_during_rollout_keeps_the_surge_allowance():
    d = deployment(replicas=2, strategy=rolling(max_unavailable=0, max_surge=1))
    pods = [pod("s0", d, hash_="old"), pod("s1", d, hash_="old"), pod("n0", d, ready=False)]
    assert dp.plan(d, pods, START, TOL) == []     # 3 = 2 + surge 1; stale ready pods wait


def test_recreate_has_no_availability_gate_but_one_per_pass():
    d = deployment(replicas=2, strategy={"type": "Recreate"})
    pods = [pod("s0", d, hash_="old"), pod("s1", d, hash_="old", created=START + 1)]
    assert kinds(dp.plan(d, pods, START, TOL)) == [("delete", "s1"), ("create", "replacement")]
