"""The compiled fast check and the full jsonschema walk must agree: the fast path may only skip
the walk for objects the walk would pass."""

from __future__ import annotations

import copy

import pytest

from kube32.spec import validate

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "p", "namespace": "d", "uid": "u", "resourceVersion": "3",
                    "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {"a": "b"}},
       "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"memory": "1Ki"}}}],
                "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]},
       "status": {"phase": "Running", "podIP": "10.0.0.1",
                  "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
         "metadata": {"name": "n", "namespace": "kube-node-lease"},
         "spec": {"holderIdentity": "n", "leaseDurationSeconds": 15, "renewTime": "2026-01-01T00:00:00.000000Z"}}


def mutate(obj: dict, path: list, value) -> dict:
    out = copy.deepcopy(obj)
    cur = out
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return out


CASES = [
    POD, LEASE,
    mutate(POD, ["status", "phase"], "Dancing"),
    mutate(POD, ["status", "conditions", 0, "status"], "Maybe"),
    mutate(POD, ["spec", "tolerations", 0, "effect"], "Sometimes"),
    mutate(POD, ["spec", "containers"], "none"),
    mutate(POD, ["metadata", "labels"], ["a"]),
    mutate(LEASE, ["spec", "renewTime"], "2026-01-01T00:00:00Z"),
    mutate(LEASE, ["spec", "leaseDurationSeconds"], "15"),
    mutate(POD, ["apiVersion"], "apps/v1"),
]


@pytest.mark.parametrize("obj", CASES, ids=range(len(CASES)))
def test_fast_check_agrees_with_the_full_walk(obj):
    kind = obj["kind"]
    full = list(validate._validator(kind).iter_errors(obj))
    assert validate._is_valid(kind, obj) == (not full)
    assert bool(validate.validate(obj)) == bool(full)


def test_every_committed_schema_is_a_valid_2020_12_schema():
    from jsonschema import Draft202012Validator

    for schema in validate._schemas().values():
        Draft202012Validator.check_schema(schema)  # raises SchemaError naming the bad keyword


def test_validation_never_changes_the_object():
    """A compiled check that fills in schema defaults would hand steps `None` where a target sent
    nothing (it once turned an absent status.active into null)."""
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"containers": [{"name": "c"}], "restartPolicy": "Never"}}},
           "status": {"succeeded": 2}}
    before = copy.deepcopy(job)
    assert validate.validate(job) == []
    assert job == before
    assert validate.validate({"kind": "JobList", "apiVersion": "batch/v1", "items": [job]}) == []
    assert job == before


def pod_list(*items, **envelope) -> dict:
    return {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "7"}, "items": list(items),
            **envelope}


LISTS = [
    pod_list(POD, POD), pod_list(),
    pod_list(POD, CASES[2]),                                  # one bad item
    pod_list(POD, metadata={"resourceVersion": 7}),           # a bad envelope
    pod_list(items="none"),
    {"apiVersion": "coordination.k8s.io/v1", "kind": "LeaseList", "metadata": {}, "items": [LEASE, CASES[8]]},
]


@pytest.mark.parametrize("obj", LISTS, ids=range(len(LISTS)))
def test_a_list_checked_as_envelope_and_items_agrees_with_the_full_walk(obj):
    kind = obj["kind"]
    assert validate._item_kind(kind) == kind.removesuffix("List")     # the split applies to these
    full = list(validate._validator(kind).iter_errors(obj))
    assert validate._is_valid(kind, obj) == (not full)
    assert bool(validate.validate(obj)) == bool(full)
