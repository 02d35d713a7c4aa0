"""The pure helpers behind PATCH and list filtering: strategic merge patch as upstream's struct tags
define it, JSON merge patch, JSON patch, label and field selectors."""

from __future__ import annotations

import pytest

from kube32.reference import errors
from kube32.reference.machinery import patch, selectors


def smp(target, p):
    return patch.strategic_merge_patch(target, p)


def test_containers_merge_by_name_and_keep_unmentioned_fields():
    pod = {"spec": {"containers": [{"name": "a", "image": "1", "ports": [{"containerPort": 80}]},
                                   {"name": "b", "image": "2"}]}}
    out = smp(pod, {"spec": {"containers": [{"name": "a", "image": "9"}]}})
    assert out["spec"]["containers"] == [{"name": "a", "image": "9", "ports": [{"containerPort": 80}]},
                                         {"name": "b", "image": "2"}]


def test_patch_delete_directive_and_null_field():
    pod = {"spec": {"containers": [{"name": "a", "image": "1", "args": ["x"]}, {"name": "b"}]}}
    out = smp(pod, {"spec": {"containers": [{"name": "b", "$patch": "delete"}, {"name": "a", "args": None}]}})
    assert out["spec"]["containers"] == [{"name": "a", "image": "1"}]


def test_set_element_order_and_retain_keys_are_ignored():
    pod = {"spec": {"containers": [{"name": "a"}]}}
    out = smp(pod, {"spec": {"$setElementOrder/containers": [{"name": "a"}], "$retainKeys": ["containers"],
                             "containers": [{"name": "a", "image": "2"}]}})
    assert out == {"spec": {"containers": [{"name": "a", "image": "2"}]}}


def test_container_ports_merge_on_container_port_and_service_ports_on_port():
    pod = {"ports": [{"containerPort": 80, "name": "http"}]}
    assert smp(pod, {"ports": [{"containerPort": 80, "protocol": "TCP"}]}) == {
        "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}]}
    svc = {"spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 443}]}}
    out = smp(svc, {"spec": {"ports": [{"port": 80, "targetPort": "http"}]}})
    assert out["spec"]["ports"] == [{"port": 80, "targetPort": "http"}, {"port": 443}]
    out = smp(svc, {"spec": {"ports": [{"port": 443, "$patch": "delete"}]}})
    assert out["spec"]["ports"] == [{"port": 80, "targetPort": 8080}]


def test_atomic_lists_are_replaced_whole():
    """Taints and tolerations have no merge key upstream: the patch's list replaces the stored one
    (so `kubectl taint ... key-` can remove a taint)."""
    node = {"spec": {"taints": [{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "NoSchedule"}]}}
    assert smp(node, {"spec": {"taints": [{"key": "b", "effect": "NoSchedule"}]}}) == {
        "spec": {"taints": [{"key": "b", "effect": "NoSchedule"}]}}
    pod = {"spec": {"tolerations": [{"key": "x"}]}}
    assert smp(pod, {"spec": {"tolerations": [{"key": "y"}]}}) == {"spec": {"tolerations": [{"key": "y"}]}}


def test_conditions_merge_by_type_and_finalizers_as_a_set():
    status = {"conditions": [{"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True"}]}
    out = smp(status, {"conditions": [{"type": "Ready", "status": "True"}]})
    assert out["conditions"] == [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}]
    meta = {"finalizers": ["a"]}
    assert smp(meta, {"finalizers": ["a", "b"]}) == {"finalizers": ["a", "b"]}


def test_patch_replace_directive():
    assert smp({"spec": {"a": 1, "b": 2}}, {"spec": {"$patch": "replace", "c": 3}}) == {"spec": {"c": 3}}


def test_smp_does_not_mutate_its_inputs():
    target = {"spec": {"containers": [{"name": "a", "image": "1"}]}}
    p = {"spec": {"containers": [{"name": "a", "image": "2"}]}}
    smp(target, p)
    assert target == {"spec": {"containers": [{"name": "a", "image": "1"}]}}


def test_merge_patch_replaces_lists_and_deletes_nulls():
    assert patch.merge_patch({"a": {"b": 1, "c": 2}, "l": [1, 2]}, {"a": {"b": None}, "l": [3]}) == {
        "a": {"c": 2}, "l": [3]}


def test_json_patch_operations():
    doc = {"metadata": {"labels": {"a": "1"}}, "items": [1, 2]}
    ops = [{"op": "add", "path": "/items/-", "value": 3}, {"op": "remove", "path": "/items/0"},
           {"op": "copy", "from": "/metadata/labels/a", "path": "/metadata/labels/b"},
           {"op": "move", "from": "/metadata/labels/a", "path": "/metadata/labels/c"},
           {"op": "replace", "path": "/metadata/labels/b", "value": "x"},
           {"op": "add", "path": "/metadata/labels/d~1e", "value": "slash"}]
    assert patch.json_patch(doc, ops) == {"metadata": {"labels": {"b": "x", "c": "1", "d/e": "slash"}}, "items": [2, 3]}
    assert doc == {"metadata": {"labels": {"a": "1"}}, "items": [1, 2]}   # the input is left alone
    assert patch.json_patch(doc, [{"op": "replace", "path": "", "value": {"x": 1}}]) == {"x": 1}


@pytest.mark.parametrize("ops, error", [
    # does not apply to this object: 422 Invalid, as the kube-apiserver answers
    ([{"op": "test", "path": "/items/0", "value": 99}], errors.Invalid),
    ([{"op": "remove", "path": "/nothing"}], errors.Invalid),
    ([{"op": "replace", "path": "/metadata/nothing", "value": 1}], errors.Invalid),
    ([{"op": "add", "path": "/items/5", "value": 1}], errors.Invalid),
    ([{"op": "add", "path": "/a/b/c", "value": 1}], errors.Invalid),
    # not a well-formed patch: 400 BadRequest
    ({"op": "add", "path": "/x", "value": 1}, errors.BadRequest),
    (["add"], errors.BadRequest),
    ([{"op": "frobnicate", "path": "/x"}], errors.BadRequest),
    ([{"path": "/x", "value": 1}], errors.BadRequest),
    ([{"op": "add", "value": 1}], errors.BadRequest),
    ([{"op": "add", "path": "x", "value": 1}], errors.BadRequest),
    ([{"op": "add", "path": "/x"}], errors.BadRequest),
    ([{"op": "move", "path": "/x"}], errors.BadRequest),
])
def test_json_patch_errors(ops, error):
    doc = {"metadata": {"labels": {"a": "1"}}, "items": [1, 2]}
    with pytest.raises(error):
        patch.json_patch(doc, ops)
    assert doc == {"metadata": {"labels": {"a": "1"}}, "items": [1, 2]}


@pytest.mark.parametrize("text, labels, expected", [
    ("app=web", {"app": "web"}, True),
    ("app==web", {"app": "db"}, False),
    ("app!=web", {}, True),
    ("app,tier", {"app": "x"}, False),
    ("!tier", {"app": "x"}, True),
    ("env in (a, b)", {"env": "b"}, True),
    ("env notin (a,b)", {"env": "b"}, False),
    ("app=web,env in (prod)", {"app": "web", "env": "prod"}, True),
    ("", {}, True),
])
def test_label_selector_strings(text, labels, expected):
    assert selectors.parse_label_selector(text)(labels) is expected


def test_label_selector_objects():
    sel = {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe"]},
                                                               {"key": "legacy", "operator": "DoesNotExist"}]}
    assert selectors.match_label_selector(sel, {"app": "web", "tier": "fe"})
    assert not selectors.match_label_selector(sel, {"app": "web", "tier": "fe", "legacy": "1"})
    assert selectors.selector_string(sel) == "app=web,tier in (fe),!legacy"


def test_field_selectors():
    ev = {"metadata": {"name": "e1", "namespace": "default"}, "reason": "Evicted", "type": "Warning",
          "involvedObject": {"kind": "Pod", "name": "web", "uid": "u1"}, "source": {"component": "kubelet"}}
    assert selectors.parse_field_selector("involvedObject.name=web,involvedObject.uid==u1")(ev)
    assert not selectors.parse_field_selector("involvedObject.kind!=Pod")(ev)
    assert selectors.parse_field_selector("source=kubelet,type=Warning,reason=Evicted")(ev)
    pod = {"spec": {"nodeName": "n1", "hostNetwork": False}}
    assert selectors.parse_field_selector("spec.host=n1")(pod)
    assert selectors.parse_field_selector("spec.hostNetwork=false")(pod)
    with pytest.raises(errors.BadRequest):
        selectors.parse_field_selector("no operator here")
