"""What one PATCH body costs to apply, for each patch type the API serves.

Run: ``.venv/bin/python benchmarks/patch_bench.py``. A script, not a test: it prints, per patch
type, the cost of applying a kubectl-sized patch to a Deployment next to the cost of one
``copy.deepcopy`` of that Deployment measured in the same run (every patch function returns a new
object, so a deep copy is its floor), and the ratio; then one whole JSON-patch PATCH request through
the reference API (Flask test client, in-memory store), for the patch function's share of a request.
Compare ratios across commits, not seconds.

Issue 19 (JSON patch by the jsonpatch package instead of hand-written code), same machine, before
-> after: json-patch 1.2-1.5x -> 2.7-3.6x the deep copy, a PATCH request grows by under 1 ms.
"""

from __future__ import annotations

import copy
import sys
import timeit

from kube32.reference.machinery import patch

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "42", "generation": 3,
                 "labels": {"app": "web", "tier": "front"}, "annotations": {"note": "x" * 40, "owner": "team"}},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
             "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [
                              {"name": f"c{i}", "image": f"blink:{i}",
                               "env": [{"name": f"E{j}", "value": str(j)} for j in range(4)],
                               "resources": {"requests": {"memory": "16Ki", "esp32.io/gpio": "1"}}}
                              for i in range(3)],
                              "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute"}]}}},
    "status": {"replicas": 3, "readyReplicas": 3, "conditions": [
        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]},
}

PATCHES = {
    "json-patch (RFC 6902)": (patch.json_patch, [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
        {"op": "replace", "path": "/spec/template/spec/containers/1/image", "value": "blink:9"},
        {"op": "add", "path": "/metadata/labels/release", "value": "canary"},
        {"op": "remove", "path": "/metadata/annotations/owner"},
        {"op": "add", "path": "/spec/template/spec/containers/0/env/-", "value": {"name": "NEW", "value": "1"}},
        {"op": "copy", "from": "/metadata/labels/app", "path": "/metadata/labels/copied"},
        {"op": "move", "from": "/metadata/labels/tier", "path": "/metadata/labels/layer"},
    ]),
    "merge-patch (RFC 7386)": (patch.merge_patch, {
        "metadata": {"labels": {"release": "canary"}, "annotations": {"owner": None}},
        "spec": {"replicas": 5}}),
    "strategic-merge-patch": (patch.strategic_merge_patch, {
        "metadata": {"labels": {"release": "canary"}},
        "spec": {"template": {"spec": {"containers": [{"name": "c1", "image": "blink:9"}]}}}}),
}


def per_call(fn, number: int) -> float:
    """Best-of-7 seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


def request_cost(number: int) -> float:
    """Seconds per JSON-patch PATCH request of a Deployment through the reference API."""
    import json

    from kube32.reference import controlplane
    from kube32.reference.app import create_app
    from kube32.reference.config import Config

    controlplane.EXTENSIONS = ()   # the API machinery alone, no control loops
    app = create_app(Config(clock="manual", run_loops=False))
    client = app.test_client()
    body = {k: v for k, v in DEPLOYMENT.items() if k != "status"}
    body["metadata"] = {k: v for k, v in body["metadata"].items() if k in ("name", "labels", "annotations")}
    url = "/apis/apps/v1/namespaces/default/deployments"
    assert client.post(url, json=body).status_code == 201
    ops = json.dumps([{"op": "replace", "path": "/spec/template/spec/containers/1/image", "value": "blink:9"},
                      {"op": "add", "path": "/metadata/labels/release", "value": "canary"}])

    def one() -> None:
        resp = client.patch(f"{url}/web", data=ops, content_type="application/json-patch+json")
        assert resp.status_code == 200, resp.get_json()

    try:
        return per_call(one, number)
    finally:
        app.extensions["kube32"].stop()


def main() -> int:
    number = 2000
    floor = per_call(lambda: copy.deepcopy(DEPLOYMENT), number)
    print(f"baseline copy.deepcopy(Deployment): {floor * 1e6:8.1f} us")
    for name, (fn, body) in PATCHES.items():
        fn(DEPLOYMENT, body)   # warm, and proves the patch applies
        cost = per_call(lambda fn=fn, body=body: fn(DEPLOYMENT, body), number)
        print(f"{name:26} {cost * 1e6:8.1f} us  = {cost / floor:5.2f} x baseline")
    print(f"one JSON-patch PATCH request: {request_cost(200) * 1e6:8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
