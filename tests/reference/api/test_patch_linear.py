"""The patch functions cost time linear in the object and the patch, give what the plain
definitions give (a randomized comparison with the straightforward quadratic versions below, which
copy at every level and scan a list per patch item), never change their inputs, and JSON patches are
bounded as upstream bounds them."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kube32.reference import errors
from kube32.reference.machinery import limits, patch
from kube32.reference.store import frozen


# -- the plain definitions (the oracle) ----------------------------------------------------------
def plain_merge(target, p):
    if not isinstance(p, dict):
        return copy.deepcopy(p)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in p.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = plain_merge(result.get(key), value)
    return result


def plain_strip(value):
    if isinstance(value, dict):
        return {k: plain_strip(v) for k, v in value.items() if not k.startswith("$")}
    return copy.deepcopy(value)


def plain_strategic(target, p):
    if not isinstance(p, dict):
        return copy.deepcopy(p)
    if p.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in p.items() if k != "$patch"}
    if p.get("$patch") == "delete":
        return None
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in p.items():
        if key.startswith(("$setElementOrder/", "$retainKeys", "$deleteFromPrimitiveList/")) or key == "$patch":
            continue
        current = result.get(key)
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and isinstance(current, list) and patch.merge_key(key, value, current):
            mkey = patch.merge_key(key, value, current)
            out = copy.deepcopy(current)
            for item in value:
                if not isinstance(item, dict) or mkey not in item:
                    out.append(plain_strip(item))
                    continue
                idx = next((i for i, c in enumerate(out) if isinstance(c, dict) and c.get(mkey) == item[mkey]), None)
                if item.get("$patch") == "delete":
                    if idx is not None:
                        out.pop(idx)
                elif idx is None:
                    out.append(plain_strip(item))
                else:
                    out[idx] = plain_strategic(out[idx], item)
            result[key] = out
        elif isinstance(value, list) and key in patch.MERGED_SCALAR_LISTS and isinstance(current, list):
            result[key] = current + [v for v in value if v not in current]
        elif isinstance(value, list):
            result[key] = [plain_strip(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")]
        else:
            result[key] = plain_strategic(current, value)
    return result


# -- random objects and patches that exercise keyed lists ----------------------------------------
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "c", ""]))
names = st.sampled_from(["a", "b", "c", "d"])
fields = st.sampled_from(["x", "y", "name", "image", "port", "containerPort", "$patch", "$retainKeys"])


def trees(depth: int):
    if depth == 0:
        return scalars
    sub = trees(depth - 1)
    keyed = st.lists(st.fixed_dictionaries({"name": names}, optional={"image": sub, "x": sub,
                                            "$patch": st.sampled_from(["delete", "replace", "merge"])}),
                     max_size=5)
    ports = st.lists(st.fixed_dictionaries({}, optional={"port": st.integers(1, 3), "containerPort": st.integers(1, 3),
                                                         "x": sub}), max_size=4)
    return st.one_of(
        scalars,
        st.lists(sub, max_size=3),
        st.dictionaries(fields, sub, max_size=3),
        st.fixed_dictionaries({}, optional={"containers": keyed, "ports": ports, "env": keyed,
                                            "finalizers": st.lists(st.sampled_from(["f", "g", 1]), max_size=4),
                                            "spec": sub, "metadata": st.dictionaries(fields, sub, max_size=2)}),
    )


def pod_like():
    """Maps whose keyed lists meet: containers and ports by key, deletes and replaces among them."""
    value = trees(1)
    keyed = st.lists(st.fixed_dictionaries({"name": names}, optional={
        "image": value, "x": value, "$patch": st.sampled_from(["delete", "replace", "merge"])}), max_size=6)
    ports = st.lists(st.fixed_dictionaries({}, optional={"port": st.integers(1, 3), "containerPort": st.integers(1, 3),
                                                         "x": value}), max_size=4)
    return st.fixed_dictionaries({"spec": st.fixed_dictionaries({}, optional={
        "containers": keyed, "ports": ports, "finalizers": st.lists(st.sampled_from(["f", "g", 1]), max_size=4),
        "x": value})})


objects = st.one_of(trees(3), pod_like(), pod_like(), pod_like())


@settings(max_examples=400, deadline=None)
@given(objects, objects)
def test_strategic_merge_patch_gives_what_the_plain_definition_gives(target, p):
    target_text, patch_text = json.dumps(target), json.dumps(p)
    assert patch.strategic_merge_patch(target, p) == plain_strategic(target, p)
    assert (json.dumps(target), json.dumps(p)) == (target_text, patch_text)       # inputs untouched


@settings(max_examples=300, deadline=None)
@given(objects, objects)
def test_merge_patch_gives_what_the_plain_definition_gives(target, p):
    target_text, patch_text = json.dumps(target), json.dumps(p)
    assert patch.merge_patch(target, p) == plain_merge(target, p)
    assert (json.dumps(target), json.dumps(p)) == (target_text, patch_text)


def test_patches_read_a_frozen_stored_object_without_changing_it():
    stored = frozen.freeze({"spec": {"containers": [{"name": "a", "image": "x"}], "finalizers": ["f"]}})
    p = {"spec": {"containers": [{"name": "a", "image": "y"}, {"name": "b"}], "finalizers": ["g"]}}
    merged = patch.strategic_merge_patch(stored, p)
    merged["spec"]["containers"][0]["image"] = "mine"           # the result is the caller's own
    assert stored["spec"]["containers"][0]["image"] == "x"
    assert patch.merge_patch(stored, {"spec": {"x": 1}})["spec"]["x"] == 1
    assert patch.json_patch(stored, [{"op": "add", "path": "/spec/x", "value": 1}])["spec"]["x"] == 1


class Key(str):
    """A merge-key value that counts how often it is compared."""

    comparisons = 0

    def __eq__(self, other):
        Key.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_keyed_list_merges_in_a_number_of_comparisons_linear_in_its_size():
    """12,000 keyed entries (the size that froze the server for 20 s): the plain definition compares
    keys ~n²/2 times (72 million); the merge compares each at most a few times."""
    n = 12000
    target = {"spec": {"containers": [{"name": Key(f"c{i}"), "image": "x"} for i in range(n)]}}
    p = {"spec": {"containers": [{"name": Key(f"c{i}"), "image": "y"} for i in range(n - 1, -1, -1)]
                  + [{"name": Key(f"new{i}")} for i in range(100)]}}
    Key.comparisons = 0
    merged = patch.strategic_merge_patch(target, p)
    assert len(merged["spec"]["containers"]) == n + 100
    assert all(c.get("image") == "y" for c in merged["spec"]["containers"][:n])
    assert Key.comparisons <= 4 * (n + 100)


def test_json_patch_operations_are_bounded_as_upstream():
    ops = [{"op": "test", "path": "/a", "value": 1}] * (limits.MAX_JSON_PATCH_OPERATIONS + 1)
    with pytest.raises(errors.RequestEntityTooLarge, match="maximum operations in a JSON patch is 10000, got 10001"):
        patch.json_patch({"a": 1}, ops)


def test_json_patch_copies_cannot_double_an_object_without_bound():
    """Each copy of the whole spec into itself doubles it: 40 of them would make 2^40 times the object."""
    doc = {"spec": {"blob": "x" * 1000}}
    ops = [{"op": "copy", "from": "/spec", "path": f"/spec/c{i}"} for i in range(40)]
    with pytest.raises(errors.RequestEntityTooLarge, match="copies more than"):
        patch.json_patch(doc, ops)
    assert patch.json_patch(doc, ops[:3])["spec"]["c2"]["c1"]["c0"]["blob"] == "x" * 1000


# -- the API computes a patch before it takes the store lock -------------------------------------
PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def lock_watch(api, monkeypatch):
    """Whether the store lock was held while each patch function ran."""
    held: list[bool] = []
    lock = api.cp.store.lock
    for media, fn in list(patch.CONTENT_TYPES.items()):
        def spy(target, body, _fn=fn):
            held.append(lock._is_owned())
            return _fn(target, body)
        monkeypatch.setitem(patch.CONTENT_TYPES, media, spy)
    return held


@pytest.mark.parametrize("media, body", [
    ("application/strategic-merge-patch+json", {"spec": {"containers": [{"name": "app", "image": "b"}]}}),
    ("application/merge-patch+json", {"metadata": {"labels": {"a": "b"}}}),
    ("application/json-patch+json", [{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]),
])
def test_a_patch_is_computed_outside_the_store_lock(api, lock_watch, media, body):
    api.create_pod("web")
    resp = api.patch(f"{PODS}/web", body, content_type=media)
    assert resp.status_code == 200, resp.get_json()
    assert lock_watch == [False]


def test_a_write_between_snapshot_and_store_makes_the_patch_start_again(api, monkeypatch):
    """Compare-and-swap: a label written by someone else while the patch was computed is kept."""
    api.create_pod("web")
    fn = patch.CONTENT_TYPES["application/merge-patch+json"]
    calls: list[int] = []

    def racing(target, body):
        calls.append(1)
        if len(calls) == 1:                   # another client writes meanwhile
            other = api.cp.store.get("pods", "default", "web")
            other["metadata"].setdefault("labels", {})["other"] = "kept"
            api.cp.store.update("pods", other)
        return fn(target, body)

    monkeypatch.setitem(patch.CONTENT_TYPES, "application/merge-patch+json", racing)
    resp = api.patch(f"{PODS}/web", {"metadata": {"labels": {"mine": "yes"}}})
    assert resp.status_code == 200 and len(calls) == 2
    assert resp.get_json()["metadata"]["labels"] == {"other": "kept", "mine": "yes"}


def test_an_object_written_between_every_attempt_is_patched_under_the_lock_at_last(api, monkeypatch):
    """Five lost races: the last attempt holds the store lock, so the patch is stored, not refused."""
    from kube32.reference.api import writes

    api.create_pod("web")
    fn = patch.CONTENT_TYPES["application/merge-patch+json"]
    held: list[bool] = []

    def always_raced(target, body):
        held.append(api.cp.store.lock._is_owned())
        if not held[-1]:                      # another client wins every race it can
            other = api.cp.store.get("pods", "default", "web")
            other["metadata"].setdefault("labels", {})[f"other{len(held)}"] = "x"
            api.cp.store.update("pods", other)
        return fn(target, body)

    monkeypatch.setitem(patch.CONTENT_TYPES, "application/merge-patch+json", always_raced)
    resp = api.patch(f"{PODS}/web", {"metadata": {"labels": {"mine": "yes"}}})
    assert resp.status_code == 200
    assert held == [False] * (writes.UPDATE_ATTEMPTS - 1) + [True]
    assert resp.get_json()["metadata"]["labels"]["mine"] == "yes"
    assert len(resp.get_json()["metadata"]["labels"]) == writes.UPDATE_ATTEMPTS
