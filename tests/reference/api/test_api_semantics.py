"""API semantics users rely on: metadata, generation, status and scale subresources, the patch kinds
kubectl sends, server-side apply creating, dry runs, graceful pod deletion, selectors."""

from __future__ import annotations

import json

from api_helpers import START, deployment, pod

from kube32.spec import timefmt

PODS = "/api/v1/namespaces/default/pods"
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def test_default_namespaces_exist_at_start(api):
    names = [n["metadata"]["name"] for n in api.get("/api/v1/namespaces").json["items"]]
    assert names == ["default", "kube-node-lease"]


def test_create_assigns_metadata_from_the_clock(api):
    created = api.create_pod("web")
    meta = created["metadata"]
    assert meta["namespace"] == "default"
    assert len(meta["uid"]) == 36
    assert meta["creationTimestamp"] == timefmt.rfc3339(START)
    assert int(meta["resourceVersion"]) == api.rv
    assert created["kind"] == "Pod" and created["apiVersion"] == "v1"


def test_resource_versions_are_store_wide_and_increasing(api):
    a = api.create_pod("a")
    svc = api.post("/api/v1/namespaces/default/services",
                   {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                    "spec": {"selector": {"app": "a"}, "ports": [{"port": 80}]}}).json
    b = api.create_pod("b")
    rvs = [int(o["metadata"]["resourceVersion"]) for o in (a, svc, b)]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3


def test_new_pod_status_is_pending_whatever_the_body_says(api):
    body = pod("web")
    body["status"] = {"phase": "Running", "podIP": "10.0.0.1"}
    created = api.post(PODS, body).json
    assert created["status"]["phase"] == "Pending"
    assert "podIP" not in created["status"]
    assert created["status"]["qosClass"] == "BestEffort"


def test_qos_class_follows_requests_and_limits(api):
    burst = api.create_pod("burst", containers=[{"name": "a", "resources": {"requests": {"memory": "16Ki"}}}])
    guaranteed = api.create_pod("g", containers=[{"name": "a", "resources": {
        "limits": {"memory": "16Ki", "cpu": "100m"}}}])
    assert burst["status"]["qosClass"] == "Burstable"
    assert guaranteed["status"]["qosClass"] == "Guaranteed"


def test_generation_moves_on_spec_changes_only(api):
    d = api.post(DEPLOYS, deployment("web")).json
    assert d["metadata"]["generation"] == 1
    labelled = api.patch(f"{DEPLOYS}/web", {"metadata": {"labels": {"team": "x"}}}).json
    assert labelled["metadata"]["generation"] == 1
    status = api.status_write(f"{DEPLOYS}/web", {"replicas": 2, "observedGeneration": 1})
    assert status["metadata"]["generation"] == 1
    scaled = api.patch(f"{DEPLOYS}/web", {"spec": {"replicas": 3}}).json
    assert scaled["metadata"]["generation"] == 2


def test_unchanged_update_keeps_the_resource_version(api):
    created = api.create_pod("web")
    same = api.put(f"{PODS}/web", created).json
    assert same["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    without_rv = json.loads(json.dumps(created))
    del without_rv["metadata"]["resourceVersion"]
    again = api.put(f"{PODS}/web", without_rv).json
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_main_writes_keep_status_and_status_writes_keep_spec(api):
    api.create_pod("web")
    api.status_write(f"{PODS}/web", {"phase": "Running", "podIP": "10.0.0.7"})
    current = api.get(f"{PODS}/web").json
    current["status"] = {"phase": "Failed"}
    current["metadata"]["labels"] = {"a": "b"}
    after = api.put(f"{PODS}/web", current).json
    assert after["status"]["phase"] == "Running" and after["metadata"]["labels"] == {"a": "b"}
    after["spec"]["containers"][0]["image"] = "changed"
    after["status"]["phase"] = "Succeeded"
    after2 = api.put(f"{PODS}/web/status", after).json
    assert after2["status"]["phase"] == "Succeeded"
    assert after2["spec"]["containers"][0]["image"] == "nginx:1.25"


def test_strategic_merge_patch_as_kubectl_apply_sends_it(api):
    """(On a Deployment's template: a pod's container list is immutable, as upstream.)"""
    body = deployment("web")
    body["spec"]["template"]["spec"]["containers"] = [
        {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}, {"name": "side", "image": "busybox"}]
    body["metadata"]["annotations"] = {LAST_APPLIED: '{"old":true}\n'}
    api.post(DEPLOYS, body)
    new_last_applied = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}\n'
    smp = {"metadata": {"annotations": {LAST_APPLIED: new_last_applied}},
           "spec": {"template": {"spec": {
               "$setElementOrder/containers": [{"name": "nginx"}, {"name": "side"}],
               "containers": [{"image": "nginx:1.26", "name": "nginx"}, {"name": "side", "$patch": "delete"}]}}}}
    resp = api.patch(f"{DEPLOYS}/web", smp, content_type="application/strategic-merge-patch+json")
    assert resp.status_code == 200, resp.json
    containers = resp.json["spec"]["template"]["spec"]["containers"]
    assert containers == [{"name": "nginx", "image": "nginx:1.26", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]
    assert resp.json["metadata"]["annotations"][LAST_APPLIED] == new_last_applied
    assert api.get(f"{DEPLOYS}/web").json["metadata"]["annotations"][LAST_APPLIED] == new_last_applied


def test_merge_patch_replaces_lists_and_null_deletes(api):
    body = deployment("web")
    body["metadata"]["labels"] = {"a": "1", "b": "2"}
    body["spec"]["template"]["spec"]["containers"] = [{"name": "one", "image": "x"}, {"name": "two", "image": "y"}]
    api.post(DEPLOYS, body)
    out = api.patch(f"{DEPLOYS}/web", {"metadata": {"labels": {"a": None}}, "spec": {"template": {"spec": {
        "containers": [{"name": "only", "image": "z"}]}}}}).json
    assert out["metadata"]["labels"] == {"b": "2"}
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["only"]


def test_json_patch(api):
    api.create_pod("web", labels={"a": "1"})
    ops = [{"op": "add", "path": "/metadata/labels/b", "value": "2"},
           {"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:2"},
           {"op": "test", "path": "/metadata/labels/a", "value": "1"}]
    out = api.patch(f"{PODS}/web", ops, content_type="application/json-patch+json").json
    assert out["metadata"]["labels"] == {"a": "1", "b": "2"}
    assert out["spec"]["containers"][0]["image"] == "nginx:2"


def test_server_side_apply_creates_a_missing_object_then_merges(api):
    body = json.dumps(pod("ssa"))
    resp = api.request("PATCH", f"{PODS}/ssa?fieldManager=kubectl&fieldValidation=Strict&force=false",
                       raw=body, content_type="application/apply-patch+yaml")
    assert resp.status_code == 201, resp.json
    assert resp.json["status"]["phase"] == "Pending"
    yaml_body = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ssa\n  labels: {app: web}\n"
    resp = api.request("PATCH", f"{PODS}/ssa?fieldManager=kubectl", raw=yaml_body,
                       content_type="application/apply-patch+yaml")
    assert resp.status_code == 200, resp.json
    assert resp.json["metadata"]["labels"] == {"app": "web"}
    assert resp.json["spec"]["containers"][0]["image"] == "nginx:1.25"


def test_dry_run_stores_nothing(api):
    api.create_pod("web")
    before = api.rv
    created = api.post(f"{PODS}?dryRun=All", pod("dry"))
    assert created.status_code == 201 and created.json["metadata"]["name"] == "dry"
    patched = api.patch(f"{PODS}/web?dryRun=All", {"metadata": {"labels": {"x": "y"}}})
    assert patched.json["metadata"]["labels"] == {"x": "y"}
    assert api.delete(f"{PODS}/web?dryRun=All").status_code == 200
    assert api.rv == before
    assert api.get(f"{PODS}/dry").status_code == 404
    assert "labels" not in api.get(f"{PODS}/web").json["metadata"]


def test_scale_subresource(api):
    api.post(DEPLOYS, deployment("web", replicas=2))
    scale = api.get(f"{DEPLOYS}/web/scale").json
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 2}
    assert scale["status"] == {"replicas": 0, "selector": "app=web"}
    scaled = api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": 5}})
    assert scaled.status_code == 200 and scaled.json["spec"]["replicas"] == 5
    d = api.get(f"{DEPLOYS}/web").json
    assert d["spec"]["replicas"] == 5 and d["metadata"]["generation"] == 2
    assert api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": -1}}).status_code == 422


def test_unbound_pod_is_deleted_at_once(api):
    api.create_pod("web")
    resp = api.delete(f"{PODS}/web", {"propagationPolicy": "Background"})
    assert resp.status_code == 200 and resp.json["metadata"]["name"] == "web"
    assert api.get(f"{PODS}/web").status_code == 404


def test_bound_pod_is_deleted_gracefully_until_grace_zero(api):
    api.create_pod("web", nodeName="node-a")
    first = api.delete(f"{PODS}/web").json
    assert first["metadata"]["deletionTimestamp"] == timefmt.rfc3339(START + 30)
    assert first["metadata"]["deletionGracePeriodSeconds"] == 30
    still = api.get(f"{PODS}/web")
    assert still.status_code == 200 and still.json["metadata"]["deletionTimestamp"]
    # a later main-resource write cannot clear the mark
    cur = still.json
    del cur["metadata"]["deletionTimestamp"]
    assert api.put(f"{PODS}/web", cur).json["metadata"]["deletionTimestamp"]
    gone = api.delete(f"{PODS}/web?gracePeriodSeconds=0")
    assert gone.status_code == 200
    assert api.get(f"{PODS}/web").status_code == 404


def test_grace_zero_in_the_body_deletes_a_bound_pod(api):
    api.create_pod("web", nodeName="node-a")
    assert api.delete(f"{PODS}/web", {"gracePeriodSeconds": 0}).status_code == 200
    assert api.get(f"{PODS}/web").status_code == 404


def test_finished_bound_pod_is_deleted_at_once(api):
    api.create_pod("done", nodeName="node-a")
    api.status_write(f"{PODS}/done", {"phase": "Succeeded"})
    api.delete(f"{PODS}/done")
    assert api.get(f"{PODS}/done").status_code == 404


def test_delete_collection_with_a_label_selector(api):
    api.create_pod("a", labels={"app": "x"})
    api.create_pod("b", labels={"app": "x"})
    api.create_pod("c", labels={"app": "y"})
    resp = api.delete(f"{PODS}?labelSelector=app%3Dx")
    assert resp.status_code == 200
    assert sorted(p["metadata"]["name"] for p in resp.json["items"]) == ["a", "b"]
    assert [p["metadata"]["name"] for p in api.get(PODS).json["items"]] == ["c"]


def test_namespace_delete_takes_its_objects(api):
    api.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tmp"}})
    api.create_pod("p", ns="tmp")
    api.create_pod("keep")
    assert api.delete("/api/v1/namespaces/tmp").status_code == 200
    assert api.get("/api/v1/namespaces/tmp").status_code == 404
    assert [p["metadata"]["name"] for p in api.get("/api/v1/pods").json["items"]] == ["keep"]


def test_label_selectors(api):
    api.create_pod("a", labels={"app": "web", "tier": "fe"})
    api.create_pod("b", labels={"app": "web", "tier": "be"})
    api.create_pod("c", labels={"app": "db"})

    def names(selector):
        return [p["metadata"]["name"] for p in api.get(f"{PODS}?labelSelector={selector}").json["items"]]

    assert names("app%3Dweb") == ["a", "b"]
    assert names("app%3D%3Dweb,tier!%3Dfe") == ["b"]
    assert names("tier") == ["a", "b"]
    assert names("!tier") == ["c"]
    assert names("app%20in%20(db,x)") == ["c"]
    assert names("app%20notin%20(web)") == ["c"]


def test_pod_field_selectors(api):
    api.create_pod("a", nodeName="node-a")
    api.create_pod("b", nodeName="node-b")
    api.create_pod("c")
    api.status_write(f"{PODS}/b", {"phase": "Running"})

    def names(selector):
        return [p["metadata"]["name"] for p in api.get(f"/api/v1/pods?fieldSelector={selector}").json["items"]]

    assert names("spec.nodeName%3Dnode-a") == ["a"]
    assert names("spec.nodeName%3D") == ["c"]
    assert names("status.phase%3DRunning") == ["b"]
    assert names("status.phase!%3DRunning,metadata.name!%3Da") == ["c"]
    assert names("metadata.name%3Db") == ["b"]


def test_event_field_selectors(api):
    target = api.create_pod("web")
    other = api.create_pod("other")
    api.cp.events.record(target, "Warning", "FailedScheduling", "no nodes", "default-scheduler")
    api.cp.events.record(other, "Normal", "Scheduled", "ok", "default-scheduler")
    uid = target["metadata"]["uid"]

    def reasons(selector):
        items = api.get(f"/api/v1/namespaces/default/events?fieldSelector={selector}").json["items"]
        return [e["reason"] for e in items]

    assert reasons("involvedObject.name%3Dweb") == ["FailedScheduling"]
    assert reasons(f"involvedObject.name%3Dweb,involvedObject.namespace%3Ddefault,involvedObject.uid%3D{uid}") \
        == ["FailedScheduling"]
    assert reasons("involvedObject.uid%3Dsomething-else") == []
    assert reasons("involvedObject.kind%3DPod,type%3DNormal") == ["Scheduled"]
    assert reasons("reason%3DFailedScheduling") == ["FailedScheduling"]
    assert sorted(reasons("source%3Ddefault-scheduler")) == ["FailedScheduling", "Scheduled"]


def test_list_carries_the_store_resource_version(api):
    api.create_pod("a")
    body = api.get(PODS).json
    assert body["kind"] == "PodList" and body["apiVersion"] == "v1"
    assert body["metadata"]["resourceVersion"] == str(api.rv)


def test_cluster_wide_list_spans_namespaces(api):
    api.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}})
    api.create_pod("p1")
    api.create_pod("p2", ns="b")
    items = api.get("/api/v1/pods").json["items"]
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in items] == [("b", "p2"), ("default", "p1")]


def test_generate_name(api):
    body = pod("x")
    body["metadata"] = {"generateName": "web-"}
    created = api.post(PODS, body).json
    assert created["metadata"]["name"].startswith("web-") and len(created["metadata"]["name"]) == 9


def test_upstream_defaults_for_ports_and_service_type(api):
    created = api.create_pod("web", containers=[{"name": "a", "ports": [{"containerPort": 80},
                                                                      {"containerPort": 53, "protocol": "UDP"}]}])
    assert created["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"},
                                                         {"containerPort": 53, "protocol": "UDP"}]
    svc = api.post("/api/v1/namespaces/default/services",
                   {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                    "spec": {"selector": {"app": "a"}, "ports": [{"port": 80}]}}).json
    assert svc["spec"]["type"] == "ClusterIP" and svc["spec"]["ports"] == [{"port": 80, "protocol": "TCP"}]
    d = deployment("d")
    d["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 8080}]
    created = api.post(DEPLOYS, d).json
    assert created["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
    patched = api.patch(f"{DEPLOYS}/d", {"spec": {"template": {"spec": {"containers": [
        {"name": "app", "ports": [{"containerPort": 81}]}]}}}})
    assert patched.json["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 81, "protocol": "TCP"}]


def test_yaml_timestamps_stay_strings(api):
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\n  annotations:\n    built: 2024-05-01T12:00:00Z\n"
            "spec:\n  containers:\n  - name: a\n    image: x\n")
    created = api.post(PODS, raw=text, content_type="application/yaml").json
    assert created["metadata"]["annotations"] == {"built": "2024-05-01T12:00:00Z"}
