"""Every error class comes back as a Kubernetes Status with the right code, reason and message, and a
rejected request changes nothing (the store's resourceVersion does not move)."""

from __future__ import annotations

import json

import pytest
from api_helpers import assert_status, deployment, pod

from kube32.spec import constants

PODS = "/api/v1/namespaces/default/pods"


def test_get_missing_pod_is_not_found_with_upstream_message(api):
    body = assert_status(api.get(f"{PODS}/nope"), 404, "NotFound", 'pods "nope" not found')
    assert body["details"] == {"name": "nope", "kind": "pods"}


def test_missing_group_resource_names_the_group(api):
    body = assert_status(api.get("/apis/apps/v1/namespaces/default/deployments/x"), 404, "NotFound",
                         'deployments.apps "x" not found')
    assert body["details"]["group"] == "apps"


def test_unknown_resource_and_unknown_path_are_not_found(api):
    assert_status(api.get("/api/v1/namespaces/default/widgets"), 404, "NotFound",
                  "the server could not find the requested resource")
    assert_status(api.get("/apis/example.com/v1/things"), 404, "NotFound")
    assert_status(api.get("/api/v1/namespaces/default/pods/p/exec"), 400, "BadRequest")   # kube32 has no exec


def test_create_in_missing_namespace_is_not_found(api):
    before = api.rv
    assert_status(api.post("/api/v1/namespaces/ghost/pods", pod("p")), 404, "NotFound",
                  'namespaces "ghost" not found')
    assert api.rv == before


def test_duplicate_create_is_already_exists(api):
    api.create_pod("web")
    before = api.rv
    body = assert_status(api.post(PODS, pod("web")), 409, "AlreadyExists", 'pods "web" already exists')
    assert body["details"] == {"name": "web", "kind": "pods"}
    assert api.rv == before


def test_stale_update_is_conflict(api):
    created = api.create_pod("web")
    fresh = api.patch(f"{PODS}/web", {"metadata": {"labels": {"a": "1"}}}).json
    assert fresh["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]
    before = api.rv
    stale = dict(created, metadata=dict(created["metadata"], labels={"b": "2"}))
    assert_status(api.put(f"{PODS}/web", stale), 409, "Conflict",
                  'Operation cannot be fulfilled on pods "web": the object has been modified; please apply '
                  "your changes to the latest version and try again")
    assert api.rv == before
    assert api.get(f"{PODS}/web").json["metadata"]["labels"] == {"a": "1"}


def test_stale_patch_and_stale_scale_are_conflicts(api):
    created = api.post("/apis/apps/v1/namespaces/default/deployments", deployment("web")).json
    api.patch("/apis/apps/v1/namespaces/default/deployments/web", {"metadata": {"labels": {"x": "y"}}})
    stale_rv = created["metadata"]["resourceVersion"]
    before = api.rv
    assert_status(api.patch("/apis/apps/v1/namespaces/default/deployments/web",
                            {"metadata": {"resourceVersion": stale_rv}, "spec": {"replicas": 5}}),
                  409, "Conflict")
    assert_status(api.put("/apis/apps/v1/namespaces/default/deployments/web/scale",
                          {"apiVersion": "autoscaling/v1", "kind": "Scale",
                           "metadata": {"name": "web", "resourceVersion": stale_rv}, "spec": {"replicas": 5}}),
                  409, "Conflict")
    assert api.rv == before


def test_invalid_pod_lists_field_causes(api):
    before = api.rv
    bad = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad"}, "spec": {"containers": []}}
    body = assert_status(api.post(PODS, bad), 422, "Invalid", 'Pod "bad" is invalid: spec.containers: Required value')
    assert body["details"]["kind"] == "Pod" and body["details"]["name"] == "bad"
    assert body["details"]["causes"] == [
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers"}]
    assert api.rv == before


def test_invalid_quantity_and_name_are_invalid(api):
    before = api.rv
    body = assert_status(api.post(PODS, pod("q", containers=[
        {"name": "a", "resources": {"requests": {"memory": "lots"}}}])), 422, "Invalid")
    assert body["details"]["causes"][0]["field"] == "spec.containers[0].resources.requests[memory]"
    body = assert_status(api.post(PODS, pod("Bad_Name")), 422, "Invalid")
    assert body["details"]["causes"][0]["field"] == "metadata.name"
    assert api.rv == before


def test_invalid_group_kind_message_names_the_group(api):
    bad = deployment("d")
    bad["spec"]["template"]["spec"]["containers"] = []
    assert_status(api.post("/apis/apps/v1/namespaces/default/deployments", bad), 422, "Invalid",
                  'Deployment.apps "d" is invalid: spec.template.spec.containers: Required value')


@pytest.mark.parametrize("raw, content_type, words", [
    ('{"apiVersion": "v1", "kind": "Pod", ', "application/json", "not valid JSON"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: [unclosed\n", "application/yaml", "not valid YAML"),
    ("[1, 2]", "application/json", "must be an object"),
    ("", "application/json", "no body"),
    ("a: 1\n---\nb: 2\n", "application/yaml", "exactly one YAML document"),
    (b"\xff\xfe{}", "application/json", "not UTF-8"),
])
def test_malformed_bodies_are_bad_requests_that_change_nothing(api, raw, content_type, words):
    before = api.rv
    body = assert_status(api.post(PODS, raw=raw, content_type=content_type), 400, "BadRequest")
    assert words in body["message"]
    assert api.rv == before


def test_unknown_kind_in_body_is_bad_request(api):
    before = api.rv
    body = assert_status(api.post(PODS, {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "w"}}),
                         400, "BadRequest")
    assert "must be of type Pod" in body["message"]
    assert_status(api.post(PODS, dict(pod("p"), apiVersion="v2")), 400, "BadRequest")
    assert api.rv == before


def test_name_and_namespace_mismatches_are_bad_requests(api):
    api.create_pod("web")
    before = api.rv
    assert_status(api.put(f"{PODS}/web", pod("other")), 400, "BadRequest")
    body = dict(pod("p"), metadata={"name": "p", "namespace": "kube-node-lease"})
    assert_status(api.post(PODS, body), 400, "BadRequest")
    assert api.rv == before


def test_yaml_create_is_accepted(api):
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\nspec:\n  containers:\n  - name: a\n    image: x\n"
    resp = api.post(PODS, raw=text, content_type="application/yaml")
    assert resp.status_code == 201, resp.json
    assert resp.json["metadata"]["name"] == "y"


def test_wrong_method_is_method_not_allowed(api):
    api.create_pod("web")
    before = api.rv
    assert_status(api.put(PODS, pod("web")), 405, "MethodNotAllowed")
    assert_status(api.post(f"{PODS}/web", pod("web")), 405, "MethodNotAllowed")
    assert_status(api.delete(f"{PODS}/web/status"), 405, "MethodNotAllowed")
    assert api.rv == before


def test_read_only_views_refuse_writes(api):
    before = api.rv
    ep = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"}}
    assert_status(api.post("/api/v1/namespaces/default/endpoints", ep), 405, "MethodNotAllowed")
    assert_status(api.delete("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/x"), 405,
                  "MethodNotAllowed")
    assert api.rv == before


def test_unsupported_media_types(api):
    api.create_pod("web")
    before = api.rv
    body = assert_status(api.post(PODS, raw="name=web", content_type="application/x-www-form-urlencoded"),
                         415, "UnsupportedMediaType")
    assert "application/x-www-form-urlencoded" in body["message"]
    body = assert_status(api.patch(f"{PODS}/web", {"metadata": {}}, content_type="application/json"),
                         415, "UnsupportedMediaType")
    assert "application/strategic-merge-patch+json" in body["message"]
    assert api.rv == before


def test_body_over_the_limit_is_request_entity_too_large(api):
    before = api.rv
    big = pod("big")
    big["metadata"]["annotations"] = {"filler": "x" * constants.MAX_REQUEST_BODY_BYTES}
    body = assert_status(api.post(PODS, big), 413, "RequestEntityTooLarge")
    assert str(constants.MAX_REQUEST_BODY_BYTES) in body["message"]
    assert api.rv == before
    assert api.get(f"{PODS}/big").status_code == 404


def test_body_just_under_the_limit_is_accepted(api):
    """The limit is on the body, not lower: a pod a little under 3 MiB is stored (rules out a limit
    applied to something smaller, such as 1 MiB)."""
    small = pod("under")            # (annotations stop at 256 KiB: the filler is a container argument)
    small["spec"]["containers"][0]["args"] = [""]
    overhead = len(json.dumps(small))
    small["spec"]["containers"][0]["args"] = ["x" * (constants.MAX_REQUEST_BODY_BYTES - overhead - 10)]
    assert api.post(PODS, small).status_code == 201


def test_patch_errors(api):
    api.create_pod("web")
    before = api.rv
    assert_status(api.patch(f"{PODS}/nope", {"metadata": {}}), 404, "NotFound", 'pods "nope" not found')
    assert_status(api.patch(f"{PODS}/web", [{"op": "frobnicate", "path": "/x"}],
                            content_type="application/json-patch+json"), 400, "BadRequest")
    assert_status(api.patch(f"{PODS}/web", {"op": "add"}, content_type="application/json-patch+json"),
                  400, "BadRequest")
    assert_status(api.patch(f"{PODS}/web", [{"op": "test", "path": "/metadata/name", "value": "other"}],
                            content_type="application/json-patch+json"), 422, "Invalid")
    assert_status(api.patch(f"{PODS}/web", [{"op": "remove", "path": "/metadata/nothing"}],
                            content_type="application/json-patch+json"), 422, "Invalid")
    assert_status(api.patch(f"{PODS}/web", {"spec": {"containers": []}}), 422, "Invalid")
    assert_status(api.patch(f"{PODS}/web", raw="{nope", content_type="application/merge-patch+json"),
                  400, "BadRequest")
    assert api.rv == before


def test_protected_namespace_delete_is_forbidden(api):
    before = api.rv
    assert_status(api.delete("/api/v1/namespaces/default"), 403, "Forbidden",
                  'namespaces "default" is forbidden: this namespace may not be deleted')
    assert api.rv == before


def test_bad_selectors_and_dry_run_values_are_bad_requests(api):
    before = api.rv
    assert_status(api.get(f"{PODS}?labelSelector=a%20in%20(b"), 400, "BadRequest")
    assert_status(api.get(f"{PODS}?fieldSelector=%3D%3Dx"), 400, "BadRequest")
    assert_status(api.post(f"{PODS}?dryRun=Some", pod("p")), 400, "BadRequest")
    assert api.rv == before


def test_stale_delete_precondition_is_conflict(api):
    api.create_pod("web")
    before = api.rv
    body = assert_status(api.delete(f"{PODS}/web", {"preconditions": {"uid": "not-the-uid"}}), 409, "Conflict")
    assert "Precondition failed: UID in precondition: not-the-uid" in body["message"]
    assert api.rv == before


def test_invalid_names_labels_and_containers_use_upstream_wording(api):
    before = api.rv
    body = assert_status(api.post(PODS, pod("Bad_Name")), 422, "Invalid")
    assert body["message"].startswith('Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase '
                                      "RFC 1123 subdomain must consist of lower case alphanumeric characters")
    labelled = pod("ok", labels={"app": "has space"})
    body = assert_status(api.post(PODS, labelled), 422, "Invalid")
    assert body["details"]["causes"][0]["field"] == "metadata.labels"
    assert 'Invalid value: "has space": a valid label must be an empty string' in body["message"]
    dup = pod("dup", containers=[{"name": "a"}, {"name": "a"}])
    body = assert_status(api.post(PODS, dup), 422, "Invalid")
    assert body["details"]["causes"] == [{"reason": "FieldValueDuplicate", "message": 'Duplicate value: "a"',
                                          "field": "spec.containers[1].name"}]
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "9web"}, "spec": {"ports": [{"port": 80}]}}
    body = assert_status(api.post("/api/v1/namespaces/default/services", svc), 422, "Invalid")
    assert "a DNS-1035 label must consist of lower case alphanumeric characters" in body["message"]
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}}
    body = assert_status(api.post("/api/v1/namespaces", ns), 422, "Invalid")
    assert "a lowercase RFC 1123 label must consist" in body["message"]
    assert api.rv == before
    assert api.post(PODS, pod("web.v1", labels={"example.com/tier": "fe_1"})).status_code == 201


def test_routing_errors_are_statuses_too(api):
    assert_status(api.get("/no/such/path"), 404, "NotFound", "the server could not find the requested resource")
    assert_status(api.delete("/version"), 405, "MethodNotAllowed")
    assert_status(api.request("PATCH", "/api"), 405, "MethodNotAllowed")


def test_non_json_numbers_are_bad_requests(api):
    before = api.rv
    body = assert_status(api.post(PODS, raw='{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "n"}, '
                                            '"spec": {"terminationGracePeriodSeconds": NaN}}'), 400, "BadRequest")
    assert "NaN" in body["message"]
    assert api.rv == before


def test_bad_watch_timeout_is_bad_request(api):
    assert_status(api.get(f"{PODS}?watch=true&timeoutSeconds=soon"), 400, "BadRequest")
    assert_status(api.get(f"{PODS}?watch=true&timeoutSeconds=-1"), 400, "BadRequest")


def test_values_of_the_wrong_type_are_bad_requests_naming_the_field(api):
    before = api.rv
    bad = pod("typed")
    bad["spec"]["containers"] = {"name": "a"}
    body = assert_status(api.post(PODS, bad), 400, "BadRequest")
    assert body["message"].startswith('Pod "typed" could not be decoded: spec.containers:')
    assert body["details"]["causes"][0]["field"] == "spec.containers"
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": "Ready"}
    body = assert_status(api.post("/api/v1/nodes", node), 400, "BadRequest")
    assert body["details"]["causes"][0]["field"] == "status"
    assert api.rv == before


def test_schema_violations_other_than_types_are_invalid(api):
    api.create_pod("web")
    before = api.rv
    body = assert_status(api.patch(f"{PODS}/web/status", {"status": {"conditions": [{"type": "Ready",
                                                                                      "status": "Maybe"}]}}),
                         422, "Invalid")
    assert body["details"]["causes"][0]["field"] == "status.conditions[0].status"
    assert api.rv == before
