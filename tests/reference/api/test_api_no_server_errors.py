"""Malformed shapes never reach the server's insides: replacing any field of a valid object with a
value of another type gives a 4xx Status on create, update and patch, and tables still render."""

from __future__ import annotations

import copy

import pytest

from kube32.reference.resources import RESOURCES

WEIRD = [None, 7, "x", [], {}, [1], {"a": 1}, True]
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
BASES = {
    "Pod": {"spec": {"containers": [{"name": "a", "image": "x", "ports": [{"containerPort": 80}],
                                     "resources": {"requests": {"memory": "1Ki"}}}], "nodeSelector": {"a": "b"}}},
    "Deployment": {"spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
                            "template": {"metadata": {"labels": {"a": "b"}},
                                         "spec": {"containers": [{"name": "a"}]}}}},
    "Service": {"spec": {"selector": {"a": "b"}, "ports": [{"port": 80, "targetPort": "http"}]}},
    "Node": {"spec": {"unschedulable": False},
             "status": {"allocatable": {"memory": "1Ki"}, "conditions": [{"type": "Ready", "status": "True"}]}},
    "Lease": {"spec": {"holderIdentity": "n", "leaseDurationSeconds": 15}},
}


def paths(obj, prefix=()):
    if prefix:
        yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def replaced(obj, path, value):
    out = copy.deepcopy(obj)
    cur = out
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return out


@pytest.mark.parametrize("kind", sorted(BASES))
def test_wrong_shapes_get_client_errors(api, kind):
    r = next(r for r in RESOURCES if r.kind == kind)
    base = {"apiVersion": r.api_version, "kind": kind, "metadata": {"name": "f", "labels": {"l": "v"}},
            **BASES[kind]}
    collection, item = r.base_path("default"), r.base_path("default") + "/f"
    assert api.post(collection, base).status_code == 201
    seen = set()
    for path in paths(base):
        if path[:1] in (("apiVersion",), ("kind",)) or path == ("metadata", "name"):
            continue
        for value in WEIRD:
            body = replaced(base, path, value)
            for method, url, content_type in (("PUT", item, "application/json"),
                                              ("PATCH", item, "application/merge-patch+json")):
                resp = api.request(method, url, body, content_type=content_type)
                assert resp.status_code < 500, (method, path, value, resp.json)
                seen.add(resp.status_code)
            table = api.get(collection, headers={"Accept": TABLE})
            assert table.status_code == 200, (path, value, table.json)
    assert {400, 422} & seen          # the mutations were really refused, not all accepted
