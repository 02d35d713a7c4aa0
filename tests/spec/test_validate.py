"""spec.validate: good objects pass, bad ones name the field path."""

from __future__ import annotations

import copy

import pytest

from kube32.spec.validate import SchemaError, SchemaViolation, assert_valid, known_kinds, validate

T = "2024-05-01T12:00:00Z"
MT = "2024-05-01T12:00:00.000000Z"
META = {"name": "x", "namespace": "default", "uid": "u-1", "resourceVersion": "12", "generation": 1,
        "creationTimestamp": T, "labels": {"app.kubernetes.io/name": "web"}}

POD = {
    "apiVersion": "v1", "kind": "Pod", "metadata": META,
    "spec": {
        "nodeName": "esp-a", "nodeSelector": {"board": "s3"}, "restartPolicy": "Always",
        "containers": [{"name": "c", "image": "blink", "resources": {"requests": {"memory": "16Ki"},
                        "limits": {"esp32.io/gpio": "2"}},
                        "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}]}],
        "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                         "tolerationSeconds": 300}],
        "affinity": {"nodeAffinity": {}}, "topologySpreadConstraints": [{"maxSkew": 1}],
    },
    "status": {
        "phase": "Running", "podIP": "10.0.0.2", "podIPs": [{"ip": "10.0.0.2"}], "hostIP": "192.168.1.5",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": T}],
        "containerStatuses": [{"name": "c", "ready": True, "restartCount": 0, "state": {"running": {"startedAt": T}},
                               "lastState": {}}],
    },
}
NODE = {
    "apiVersion": "v1", "kind": "Node", "metadata": {"name": "esp-a"},
    "spec": {"unschedulable": False, "taints": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                                                 "timeAdded": T}]},
    "status": {"capacity": {"memory": "320Ki", "esp32.io/gpio": "20"}, "allocatable": {"memory": "200Ki"},
               "conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
                               "lastHeartbeatTime": T, "lastTransitionTime": T}],
               "nodeInfo": {"architecture": "xtensa", "kubeletVersion": "v0.1"}},
}
LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
         "metadata": {"name": "esp-a", "namespace": "kube-node-lease"},
         "spec": {"holderIdentity": "esp-a", "leaseDurationSeconds": 15, "renewTime": MT, "acquireTime": MT,
                  "leaseTransitions": 0}}
EVENT = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "p.1", "namespace": "default"},
         "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p", "uid": "u", "apiVersion": "v1"},
         "reason": "FailedScheduling", "message": "0/2 nodes are available: ...", "type": "Warning", "count": 1,
         "firstTimestamp": T, "lastTimestamp": T, "eventTime": None, "source": {"component": "default-scheduler"},
         "reportingComponent": "default-scheduler"}
STATUS = {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "message": "nope",
          "reason": "Invalid", "code": 422,
          "details": {"name": "p", "kind": "pods", "causes": [{"reason": "FieldValueInvalid", "message": "m",
                                                               "field": "spec.restartPolicy"}]}}
DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": META,
          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}, "creationTimestamp": None},
                                "spec": {"containers": [{"name": "c"}]}},
                   "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}}},
          "status": {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2,
                     "availableReplicas": 2,
                     "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                                     "lastUpdateTime": T, "lastTransitionTime": T}]}}
DS = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": META,
      "spec": {"selector": {"matchLabels": {"app": "agent"}},
               "template": {"spec": {"containers": [{"name": "c"}], "restartPolicy": "Always"}},
               "updateStrategy": {"type": "OnDelete"}},
      "status": {"desiredNumberScheduled": 2, "currentNumberScheduled": 2, "numberReady": 1,
                 "updatedNumberScheduled": 2, "numberAvailable": 1, "numberMisscheduled": 0, "observedGeneration": 1}}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": META,
       "spec": {"completions": 3, "parallelism": 1, "backoffLimit": 6,
                "template": {"spec": {"containers": [{"name": "c"}], "restartPolicy": "Never"}}},
       "status": {"active": 1, "succeeded": 1, "failed": 0, "ready": 1, "startTime": T,
                  "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}}
SCALE = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": META, "spec": {"replicas": 3},
         "status": {"replicas": 2, "selector": "app=web"}}
ENDPOINTS = {"apiVersion": "v1", "kind": "Endpoints", "metadata": META,
             "subsets": [{"addresses": [{"ip": "10.0.0.2", "nodeName": "esp-a",
                                         "targetRef": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u"}}],
                          "notReadyAddresses": [{"ip": "10.0.0.3"}],
                          "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}]}
SLICE = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": META, "addressType": "IPv4",
         "endpoints": [{"addresses": ["10.0.0.2"], "conditions": {"ready": True, "serving": True, "terminating": False},
                        "nodeName": "esp-a", "targetRef": {"kind": "Pod", "name": "p"}}],
         "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}
SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": META,
           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http", "protocol": "TCP"}]}}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}, "status": {"phase": "Active"}}

GOOD = [POD, NODE, LEASE, EVENT, STATUS, DEPLOY, DS, JOB, SCALE, ENDPOINTS, SLICE, SERVICE, NAMESPACE]


@pytest.mark.parametrize("obj", GOOD, ids=lambda o: o["kind"])
def test_good_objects_have_no_violations(obj):
    assert validate(obj) == []
    assert_valid(obj)


def test_extra_fields_are_allowed_everywhere():
    pod = copy.deepcopy(POD)
    pod["x"] = 1
    pod["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    pod["spec"]["containers"][0]["securityContext"] = {}
    pod["status"]["qosClass"] = "BestEffort"
    assert validate(pod) == []


def _with(obj, path, value):
    obj = copy.deepcopy(obj)
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obj


@pytest.mark.parametrize("obj,path,value,expected", [
    (POD, ("status", "conditions", 0, "status"), "Maybe",
     "status.conditions[0].status: 'Maybe' is not one of ['True', 'False', 'Unknown']"),
    (POD, ("status", "phase"), "Bound",
     "status.phase: 'Bound' is not one of ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']"),
    (POD, ("metadata", "resourceVersion"), 12, "metadata.resourceVersion: 12 is not of type 'string' or 'null'"),
    (POD, ("spec", "containers"), [{"image": "x"}], "spec.containers[0]: 'name' is a required property"),
    (POD, ("spec", "restartPolicy"), "Sometimes", "spec.restartPolicy: 'Sometimes' is not one of"),
    (POD, ("status", "containerStatuses", 0, "restartCount"), "0", "status.containerStatuses[0].restartCount"),
    (NODE, ("spec", "taints", 0, "effect"), "NoRun", "spec.taints[0].effect: 'NoRun' is not one of"),
    (NODE, ("spec", "taints", 0, "timeAdded"), "yesterday", "spec.taints[0].timeAdded: 'yesterday' does not match"),
    (NODE, ("status", "capacity", "memory"), 320, "status.capacity.memory: 320 is not of type 'string'"),
    (LEASE, ("spec", "renewTime"), "2024-05-01T12:00:00Z", "spec.renewTime: '2024-05-01T12:00:00Z' does not match"),
    (LEASE, ("spec", "renewTime"), "2024-05-01T12:00:00.000Z", "spec.renewTime"),
    (LEASE, ("spec", "renewTime"), "2024-05-01T12:00:00.000000+00:00", "spec.renewTime"),
    (EVENT, ("type",), "Error", "type: 'Error' is not one of ['Normal', 'Warning']"),
    (STATUS, ("status",), "Failed", "status: 'Failed' is not one of ['Success', 'Failure']"),
    (DEPLOY, ("spec", "strategy", "rollingUpdate", "maxUnavailable"), "25",
     "spec.strategy.rollingUpdate.maxUnavailable: '25' does not match"),
    (DS, ("spec", "updateStrategy", "type"), "Recreate", "spec.updateStrategy.type: 'Recreate' is not one of"),
    (JOB, ("spec",), {"completions": 1}, "spec: 'template' is a required property"),
    (SLICE, ("addressType",), "IPv5", "addressType: 'IPv5' is not one of"),
    (SCALE, ("status",), {"selector": "app=web"}, "status: 'replicas' is a required property"),
    (ENDPOINTS, ("subsets", 0, "ports", 0, "port"), "http", "subsets[0].ports[0].port: 'http' is not of type"),
    (POD, ("kind",), "Pod", None),
])
def test_bad_objects_name_the_field(obj, path, value, expected):
    violations = validate(_with(obj, path, value))
    if expected is None:
        assert violations == []
        return
    assert violations, "expected a violation"
    assert any(str(v).startswith(expected) for v in violations), [str(v) for v in violations]


def test_label_keys_with_dots_are_quoted_in_paths():
    pod = _with(POD, ("metadata", "labels", "app.kubernetes.io/name"), 3)
    assert [str(v) for v in validate(pod)] == ['metadata.labels["app.kubernetes.io/name"]: 3 is not of type \'string\'']


def test_wrong_kind_inside_a_typed_list_and_item_paths():
    lst = {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "5"},
           "items": [POD, _with(POD, ("status", "phase"), "Done")]}
    assert [str(v) for v in validate(lst)] == [
        "items[1].status.phase: 'Done' is not one of ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']"]
    # upstream list items usually omit kind/apiVersion
    bare = {k: v for k, v in POD.items() if k not in ("kind", "apiVersion")}
    assert validate({"kind": "PodList", "items": [bare]}) == []
    assert validate({"kind": "PodList"}) == [SchemaViolation("", "'items' is a required property")]


def test_generic_list_validates_each_item_by_its_own_kind():
    lst = {"kind": "List", "items": [NODE, _with(LEASE, ("spec", "leaseDurationSeconds"), "15"), {"kind": "Widget"}]}
    assert [str(v) for v in validate(lst)] == [
        "items[1].spec.leaseDurationSeconds: '15' is not of type 'integer' or 'null'"]


def test_unknown_kinds_and_missing_kind_give_no_violations():
    assert validate({"kind": "Widget", "spec": 3}) == []
    assert validate({"kind": "WidgetList", "items": [{"x": 1}]}) == []
    assert validate({"metadata": 1}) == []
    assert validate([]) == [SchemaViolation("", "[] is not of type 'object'")]


def test_api_version_must_match_the_kind():
    bad = _with(DEPLOY, ("apiVersion",), "extensions/v1beta1")
    assert [str(v) for v in validate(bad)] == ["apiVersion: 'extensions/v1beta1' is not 'apps/v1'"]


def test_assert_valid_lists_all_violations():
    bad = _with(_with(POD, ("status", "phase"), "Bound"), ("spec", "containers"), [{}])
    with pytest.raises(SchemaError) as info:
        assert_valid(bad)
    err = info.value
    assert err.kind == "Pod"
    assert len(err.violations) == 2
    text = str(err)
    assert "spec.containers[0]: 'name' is a required property" in text
    assert "status.phase: 'Bound'" in text
    assert isinstance(err, AssertionError)


def test_every_exported_kind_is_known():
    from kube32.spec.models import KINDS
    assert known_kinds() == frozenset(KINDS)


def test_time_formats():
    assert validate(_with(NODE, ("status", "conditions", 0, "lastHeartbeatTime"), "2024-05-01T12:00:00.5+02:00")) == []
    assert validate(_with(NODE, ("status", "conditions", 0, "lastHeartbeatTime"), "2024-05-01")) != []
    assert validate(_with(EVENT, ("eventTime",), MT)) == []
    assert validate(_with(EVENT, ("eventTime",), T)) != []


def test_foreign_item_kind_in_typed_list():
    assert [str(v) for v in validate({"kind": "PodList", "items": [{"kind": "Node"}]})] == [
        "items[0].kind: 'Node' is not 'Pod'"]
