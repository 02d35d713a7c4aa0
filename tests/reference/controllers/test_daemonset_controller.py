"""The workload loop on DaemonSets, against an in-memory control plane on a manual clock."""

from __future__ import annotations

import pytest
import workload_helpers as h

from kube32.reference import errors
from kube32.spec import constants


@pytest.fixture
def cp():
    c = h.control_plane()
    yield c
    c.stop()


def test_one_pod_per_matching_node_created_on_the_next_pass(cp):
    h.add_node(cp, "a", board="s3")
    h.add_node(cp, "b", board="c3")
    h.add_node(cp, "c", board="s3")
    d = h.create(cp, h.DS, h.daemonset(node_selector={"board": "s3"}))
    assert h.owned(cp, d) == []
    h.passes(cp)
    pods = h.by_node(cp, d)
    assert sorted(pods) == ["a", "c"] and all(len(v) == 1 for v in pods.values())
    h.passes(cp, 3)
    assert sorted(h.by_node(cp, d)) == ["a", "c"]     # no duplicates on later passes


def test_joining_node_gets_a_pod_and_leaving_node_loses_it(cp):
    h.add_node(cp, "a")
    d = h.create(cp, h.DS, h.daemonset())
    h.passes(cp)
    h.start_all(cp, d)
    h.add_node(cp, "b")
    h.passes(cp)
    assert sorted(h.by_node(cp, d)) == ["a", "b"]
    h.start_all(cp, d)
    cp.store.delete("nodes", "", "b")
    h.passes(cp)
    assert sorted(h.by_node(cp, d)) == ["a"]          # pod on a vanished node removed at once


def test_node_that_stops_matching_has_its_pod_terminated(cp):
    h.add_node(cp, "a", board="s3")
    d = h.create(cp, h.DS, h.daemonset(node_selector={"board": "s3"}))
    h.passes(cp)
    h.start_all(cp, d)
    h.relabel_node(cp, "a", {constants.HOSTNAME_LABEL: "a", "board": "c3"})
    h.passes(cp)
    assert len(h.terminating(cp, d)) == 1
    assert h.confirm_deletions(cp)
    h.passes(cp, 2)
    assert h.owned(cp, d) == []


def test_pods_stay_on_unreachable_nodes(cp):
    h.add_node(cp, "a")
    d = h.create(cp, h.DS, h.daemonset())
    h.passes(cp)
    h.start_all(cp, d)
    node = cp.store.get("nodes", "", "a")
    node["status"]["conditions"] = [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]
    node["spec"] = {"taints": [{"key": constants.TAINT_UNREACHABLE, "effect": "NoExecute"},
                               {"key": constants.TAINT_UNREACHABLE, "effect": "NoSchedule"}]}
    cp.store.update("nodes", node)
    before = h.owned(cp, d)
    h.passes(cp, 400)
    after = h.owned(cp, d)
    assert [p["metadata"]["uid"] for p in after] == [p["metadata"]["uid"] for p in before]
    assert h.terminating(cp, d) == []


def test_pod_shape(cp):
    h.add_node(cp, "a")
    d = h.create(cp, h.DS, h.daemonset())
    h.passes(cp)
    (pod,) = h.owned(cp, d)
    assert pod["spec"]["nodeSelector"][constants.HOSTNAME_LABEL] == "a"
    assert pod["metadata"]["labels"][constants.CONTROLLER_REVISION_HASH_LABEL]
    assert all("tolerationSeconds" not in t for t in pod["spec"]["tolerations"])
    assert {t["key"] for t in pod["spec"]["tolerations"]} == {constants.TAINT_NOT_READY, constants.TAINT_UNREACHABLE}
    assert pod["metadata"]["ownerReferences"][0]["uid"] == d["metadata"]["uid"]


def _update_image(cp, name: str, image: str) -> dict:
    d = h.get(cp, h.DS, name)
    d["spec"]["template"]["spec"]["containers"][0]["image"] = image
    cp.admit(h.DS, d, None, "UPDATE")
    return cp.store.update(h.DS, d)


def test_rolling_update_goes_node_by_node_and_waits_for_terminating_pods(cp):
    for n in ("a", "b", "c"):
        h.add_node(cp, n)
    d = h.create(cp, h.DS, h.daemonset())
    h.passes(cp)
    h.start_all(cp, d)
    old_hash = h.owned(cp, d)[0]["metadata"]["labels"][constants.CONTROLLER_REVISION_HASH_LABEL]
    _update_image(cp, "d", "v2")
    h.passes(cp)
    assert len(h.terminating(cp, d)) == 1
    h.passes(cp, 5)
    assert len(h.terminating(cp, d)) == 1           # still one: the terminating pod has not left
    assert len(h.owned(cp, d)) == 3                 # and no replacement next to it
    replaced = []
    for _ in range(3):
        (victim,) = h.terminating(cp, d)
        replaced.append(h.node_of(victim))
        h.confirm_deletions(cp)
        h.passes(cp)
        new = [p for p in h.live(cp, d) if h.node_of(p) == replaced[-1]]
        assert len(new) == 1 and new[0]["metadata"]["labels"][constants.CONTROLLER_REVISION_HASH_LABEL] != old_hash
        h.passes(cp)
        assert len(h.terminating(cp, d)) == 0        # the new pod is not ready yet: nothing else goes
        h.start_all(cp, d)
        h.passes(cp)
    assert sorted(replaced) == ["a", "b", "c"]
    status = h.get(cp, h.DS, "d")["status"]
    assert status["updatedNumberScheduled"] == 3 and status["numberReady"] == 3


def test_on_delete_keeps_old_pods_until_the_user_deletes_one(cp):
    h.add_node(cp, "a")
    h.add_node(cp, "b")
    d = h.create(cp, h.DS, h.daemonset(strategy={"type": "OnDelete"}))
    h.passes(cp)
    h.start_all(cp, d)
    old = {p["metadata"]["name"] for p in h.owned(cp, d)}
    _update_image(cp, "d", "v2")
    h.passes(cp, 10)
    assert {p["metadata"]["name"] for p in h.owned(cp, d)} == old
    victim = h.by_node(cp, d)["a"][0]
    cp.store.delete("pods", "default", victim["metadata"]["name"])
    h.passes(cp)
    new = h.by_node(cp, d)["a"][0]
    assert new["spec"]["containers"][0]["image"] == "v2"
    assert h.by_node(cp, d)["b"][0]["spec"]["containers"][0]["image"] == "v1"


def test_owner_deletion_terminates_bound_pods_and_removes_pending_ones(cp):
    h.add_node(cp, "a")
    b = h.add_node(cp, "b")
    b["status"]["conditions"] = [{"type": "Ready", "status": "False"}]   # its pod stays unbound
    cp.store.update("nodes", b)
    d = h.create(cp, h.DS, h.daemonset())
    h.passes(cp)
    h.start(cp, h.by_node(cp, d)["a"][0])
    pods = h.owned(cp, d)
    assert [p["spec"].get("nodeName") for p in h.by_node(cp, d)["b"]] == [None]
    cp.store.delete(h.DS, "default", "d")
    h.passes(cp)
    left = [cp.store.try_get("pods", "default", p["metadata"]["name"]) for p in pods]
    left = [p for p in left if p is not None]
    assert len(left) == 1 and left[0]["metadata"].get("deletionTimestamp")


@pytest.mark.parametrize("policy", ["Never", "OnFailure"])
def test_admission_rejects_non_always_restart_policy(cp, policy):
    d = h.daemonset()
    d["spec"]["template"]["spec"]["restartPolicy"] = policy
    with pytest.raises(errors.Invalid) as info:
        cp.admit(h.DS, d, None, "CREATE")
    status = info.value.status()
    assert status["code"] == 422
    assert status["details"]["causes"] == [{
        "reason": "FieldValueNotSupported", "field": "spec.template.spec.restartPolicy",
        "message": f'Unsupported value: "{policy}": supported values: "Always"'}]
    assert status["message"] == (f'DaemonSet.apps "d" is invalid: spec.template.spec.restartPolicy: '
                                 f'Unsupported value: "{policy}": supported values: "Always"')


def test_admission_defaults_restart_policy_and_strategy(cp):
    d = h.daemonset()
    del d["spec"]["template"]["spec"]["restartPolicy"]
    cp.admit(h.DS, d, None, "CREATE")
    assert d["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    assert d["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}


@pytest.mark.parametrize("value,ok", [(1, True), (0, True), ("30%", True), (-1, False), ("abc", False),
                                      ("5", False), ("%", False)])
def test_admission_checks_max_unavailable(cp, value, ok):
    d = h.daemonset(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": value}})
    if ok:
        cp.admit(h.DS, d, None, "CREATE")
        return
    with pytest.raises(errors.Invalid) as info:
        cp.admit(h.DS, d, None, "CREATE")
    assert info.value.status()["details"]["causes"][0]["field"] == "spec.updateStrategy.rollingUpdate.maxUnavailable"


def test_a_broken_daemonset_does_not_stop_the_others(cp):
    h.add_node(cp, "a")
    bad = h.daemonset("bad", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "abc"}})
    cp.store.create(h.DS, bad)                       # written past admission
    good = h.create(cp, h.DS, h.daemonset("good"))
    h.passes(cp)
    assert len(h.owned(cp, good)) == 1
    assert any("bad" in e for e in cp.loops.errors)
