"""Server-side Tables: the columns and cells real Kubernetes prints for each kind."""

from __future__ import annotations

import pytest
from api_helpers import START, deployment

from kube32.reference.api import printers, tables
from kube32.reference.resources import RESOURCES
from kube32.spec import timefmt

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
NOW = START + 125          # 2m5s after creation: rules out an AGE computed from another clock


def ts(offset: float) -> str:
    return timefmt.rfc3339(START + offset)


def meta(name: str, **extra) -> dict:
    return {"name": name, "creationTimestamp": ts(0), **extra}


def names(columns) -> list[str]:
    return [c["name"] for c in columns]


def wide(columns) -> list[str]:
    return [c["name"] for c in columns if c["priority"] == 1]


# -- pods ------------------------------------------------------------------------------------
def running_pod(**status_extra) -> dict:
    return {"metadata": meta("web"), "spec": {"nodeName": "node-a", "containers": [{"name": "a"}]},
            "status": {"phase": "Running", "podIP": "10.1.0.5",
                       "conditions": [{"type": "Ready", "status": "True"}],
                       "containerStatuses": [{"name": "a", "ready": True, "restartCount": 0,
                                              "state": {"running": {"startedAt": ts(1)}}}],
                       **status_extra}}


def test_pod_columns_match_kubectl():
    assert names(printers.POD_COLUMNS) == ["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                           "Nominated Node", "Readiness Gates"]
    assert wide(printers.POD_COLUMNS) == ["IP", "Node", "Nominated Node", "Readiness Gates"]


def test_running_pod_row():
    assert printers.print_pod(running_pod(), NOW) == ["web", "1/1", "Running", "0", "2m5s", "10.1.0.5",
                                                     "node-a", "<none>", "<none>"]


def test_pending_unbound_pod_row():
    p = {"metadata": meta("oversized-pod"), "spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending"}}
    assert printers.print_pod(p, START + 4) == ["oversized-pod", "0/1", "Pending", "0", "4s", "<none>", "<none>",
                                                "<none>", "<none>"]


def test_evicted_pod_shows_the_reason():
    p = {"metadata": meta("e"), "spec": {"containers": [{"name": "a"}]},
         "status": {"phase": "Pending", "reason": "Evicted"}}
    assert printers.print_pod(p, NOW)[2] == "Evicted"


def test_terminating_pod():
    p = running_pod()
    p["metadata"]["deletionTimestamp"] = ts(200)
    assert printers.print_pod(p, NOW)[2] == "Terminating"
    p["status"]["phase"] = "Succeeded"
    p["status"]["containerStatuses"][0]["state"] = {"terminated": {"exitCode": 0, "reason": "Completed"}}
    assert printers.print_pod(p, NOW)[2] == "Completed"


def test_waiting_container_reason_and_restarts_with_last_restart_age():
    p = running_pod()
    p["status"]["containerStatuses"][0].update(
        ready=False, restartCount=3, state={"waiting": {"reason": "CrashLoopBackOff"}},
        lastState={"terminated": {"exitCode": 1, "finishedAt": ts(65)}})
    row = printers.print_pod(p, NOW)
    assert row[1:4] == ["0/1", "CrashLoopBackOff", "3 (60s ago)"]


def test_terminated_without_reason_prints_exit_code():
    p = running_pod()
    p["status"]["containerStatuses"][0].update(ready=False, state={"terminated": {"exitCode": 137}})
    assert printers.print_pod(p, NOW)[2] == "ExitCode:137"


def test_readiness_gates_and_nominated_node():
    p = running_pod(nominatedNodeName="node-b")
    p["spec"]["readinessGates"] = [{"conditionType": "x"}, {"conditionType": "y"}]
    p["status"]["conditions"].append({"type": "x", "status": "True"})
    assert printers.print_pod(p, NOW)[7:] == ["node-b", "1/2"]


# -- nodes -----------------------------------------------------------------------------------
def node(ready: str | None, unschedulable: bool = False, labels: dict | None = None) -> dict:
    status = {"nodeInfo": {"kubeletVersion": "v1.33.0-kube32", "osImage": "ESP-IDF",
                           "kernelVersion": "", "containerRuntimeVersion": "kube32://1.0"},
              "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}
    if ready is not None:
        status["conditions"] = [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": ready}]
    return {"metadata": meta("node-a", labels=labels or {}), "spec": {"unschedulable": unschedulable},
            "status": status}


@pytest.mark.parametrize("ready, cordoned, expected", [
    ("True", False, "Ready"),
    ("False", False, "NotReady"),
    ("Unknown", False, "NotReady"),
    (None, False, "Unknown"),
    ("True", True, "Ready,SchedulingDisabled"),
    ("Unknown", True, "NotReady,SchedulingDisabled"),
])
def test_node_status_column(ready, cordoned, expected):
    assert printers.print_node(node(ready, cordoned), NOW)[1] == expected


def test_node_row_and_roles():
    assert names(printers.NODE_COLUMNS)[:5] == ["Name", "Status", "Roles", "Age", "Version"]
    assert printers.print_node(node("True"), NOW) == ["node-a", "Ready", "<none>", "2m5s", "v1.33.0-kube32",
                                                      "10.0.0.1", "<none>", "ESP-IDF", "<unknown>", "kube32://1.0"]
    labelled = node("True", labels={"node-role.kubernetes.io/edge": "", "node-role.kubernetes.io/control-plane": "",
                                    "kubernetes.io/role": "board"})
    assert printers.print_node(labelled, NOW)[2] == "board,control-plane,edge"


# -- workloads -------------------------------------------------------------------------------
def test_deployment_row():
    d = deployment("web", replicas=3)
    d["metadata"] = meta("web")
    d["status"] = {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}
    assert names(printers.DEPLOYMENT_COLUMNS) == ["Name", "Ready", "Up-to-date", "Available", "Age", "Containers",
                                                  "Images", "Selector"]
    assert printers.print_deployment(d, NOW) == ["web", "2/3", 3, 2, "2m5s", "app", "nginx:1.25", "app=web"]


def test_daemonset_row():
    ds = {"metadata": meta("agent"),
          "spec": {"selector": {"matchLabels": {"app": "agent"}},
                   "template": {"spec": {"nodeSelector": {"board": "s3"},
                                         "containers": [{"name": "a", "image": "i1"}, {"name": "b", "image": "i2"}]}}},
          "status": {"desiredNumberScheduled": 2, "currentNumberScheduled": 2, "numberReady": 1,
                     "updatedNumberScheduled": 2, "numberAvailable": 1}}
    assert printers.print_daemonset(ds, NOW) == ["agent", 2, 2, 1, 2, 1, "board=s3", "2m5s", "a,b", "i1,i2",
                                                 "app=agent"]


@pytest.mark.parametrize("spec, status, expected", [
    ({"completions": 3}, {"succeeded": 1, "startTime": ts(5)}, ["Running", "1/3", "2m"]),
    ({}, {"succeeded": 1, "startTime": ts(5), "completionTime": ts(17),
          "conditions": [{"type": "Complete", "status": "True"}]}, ["Complete", "1/1", "12s"]),
    ({"parallelism": 2}, {"conditions": [{"type": "Failed", "status": "True"}]}, ["Failed", "0/1 of 2", ""]),
])
def test_job_row(spec, status, expected):
    job = {"metadata": meta("j"), "spec": {**spec, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
           "status": status}
    assert printers.print_job(job, NOW)[1:4] == expected


def test_service_row():
    svc = {"metadata": meta("web"), "spec": {"type": "NodePort", "clusterIP": "10.96.0.10",
                                             "selector": {"tier": "fe", "app": "web"},
                                             "ports": [{"port": 80, "nodePort": 30080}, {"port": 53, "protocol": "UDP"}]}}
    assert printers.print_service(svc, NOW) == ["web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP",
                                                "2m5s", "app=web,tier=fe"]
    bare = {"metadata": meta("b"), "spec": {}}
    assert printers.print_service(bare, NOW)[1:5] == ["ClusterIP", "<none>", "<none>", "<none>"]


def test_endpoints_column_shows_three_then_more():
    ep = {"metadata": meta("web"), "subsets": [{"addresses": [{"ip": f"10.0.0.{i}"} for i in range(1, 6)],
                                                "ports": [{"port": 80}]}]}
    assert printers.print_endpoints(ep, NOW)[1] == "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more..."
    assert printers.print_endpoints({"metadata": meta("e")}, NOW)[1] == "<none>"


def test_endpointslice_row():
    eps = {"metadata": meta("web-abc"), "addressType": "IPv4", "ports": [{"port": 80}, {"name": "x"}],
           "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2"]}]}
    assert printers.print_endpointslice(eps, NOW) == ["web-abc", "IPv4", "80,x", "10.0.0.1,10.0.0.2", "2m5s"]
    assert printers.print_endpointslice({"metadata": meta("e"), "addressType": "IPv4"}, NOW)[2:4] == ["<unset>",
                                                                                                        "<unset>"]


def test_lease_and_namespace_rows():
    lease = {"metadata": meta("node-a"), "spec": {"holderIdentity": "node-a"}}
    assert printers.print_lease(lease, NOW) == ["node-a", "node-a", "2m5s"]
    ns = {"metadata": meta("default"), "status": {"phase": "Active"}}
    assert printers.print_namespace(ns, NOW) == ["default", "Active", "2m5s"]


# -- events ----------------------------------------------------------------------------------
def test_event_columns_and_row_as_the_document_shows():
    assert names(printers.EVENT_COLUMNS) == ["Last Seen", "Type", "Reason", "Object", "Subobject", "Source",
                                             "Message", "First Seen", "Count", "Name"]
    assert [c["name"] for c in printers.EVENT_COLUMNS if c["priority"] == 0] == [
        "Last Seen", "Type", "Reason", "Object", "Message"]
    ev = {"metadata": meta("oversized-pod.1"), "type": "Warning", "reason": "FailedScheduling",
          "involvedObject": {"kind": "Pod", "name": "oversized-pod"},
          "message": "0/2 nodes are available: 1 Insufficient esp32.io/psram. ",
          "source": {"component": "default-scheduler"}, "count": 3,
          "firstTimestamp": ts(0), "lastTimestamp": ts(125)}
    assert printers.print_event(ev, NOW) == ["0s", "Warning", "FailedScheduling", "pod/oversized-pod", "",
                                             "default-scheduler",
                                             "0/2 nodes are available: 1 Insufficient esp32.io/psram.", "2m5s", 3,
                                             "oversized-pod.1"]


def test_event_without_last_timestamp_uses_first_and_count_defaults_to_one():
    ev = {"metadata": meta("e"), "involvedObject": {"kind": "Node"}, "firstTimestamp": ts(5),
          "source": {"component": "kubelet", "host": "node-a"}}
    row = printers.print_event(ev, NOW)
    assert row[0] == "2m" and row[3] == "node" and row[5] == "kubelet, node-a" and row[8] == 1


# -- over HTTP -------------------------------------------------------------------------------
def test_list_table_over_http(api):
    api.create_pod("web", labels={"app": "web"})
    resp = api.get("/api/v1/namespaces/default/pods", headers={"Accept": TABLE})
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/json;as=Table;v=v1;g=meta.k8s.io"
    body = resp.json
    assert body["kind"] == "Table" and body["apiVersion"] == "meta.k8s.io/v1"
    assert body["metadata"]["resourceVersion"] == str(api.rv)
    assert names(body["columnDefinitions"])[:5] == ["Name", "Ready", "Status", "Restarts", "Age"]
    (row,) = body["rows"]
    assert row["cells"][:5] == ["web", "0/1", "Pending", "0", "0s"]
    assert row["object"]["kind"] == "PartialObjectMetadata"
    assert row["object"]["metadata"]["labels"] == {"app": "web"}
    assert "spec" not in row["object"]


def test_single_object_table_and_include_object(api):
    api.create_pod("web")
    one = api.get("/api/v1/namespaces/default/pods/web", headers={"Accept": TABLE}).json
    assert one["kind"] == "Table" and len(one["rows"]) == 1
    full = api.get("/api/v1/namespaces/default/pods?includeObject=Object", headers={"Accept": TABLE}).json
    assert full["rows"][0]["object"]["kind"] == "Pod"
    none = api.get("/api/v1/namespaces/default/pods?includeObject=None", headers={"Accept": TABLE}).json
    assert "object" not in none["rows"][0]


def test_age_follows_the_manual_clock(api):
    api.create_pod("web")
    api.cp.clock.advance(3 * 3600 + 60)
    row = api.get("/api/v1/namespaces/default/pods", headers={"Accept": TABLE}).json["rows"][0]
    assert row["cells"][4] == "3h1m"


def test_plain_json_without_table_accept(api):
    api.create_pod("web")
    body = api.get("/api/v1/namespaces/default/pods", headers={"Accept": "application/json"}).json
    assert body["kind"] == "PodList"


def test_every_registered_kind_has_a_printer(app):
    assert {r.kind for r in RESOURCES} <= set(tables.PRINTERS)
