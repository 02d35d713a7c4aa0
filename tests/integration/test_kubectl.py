"""Real kubectl against a real ``kube32-conformance serve`` process.

The default ``kubectl`` (a dispatcher that execs ``kubectl.1.<server minor>``) runs the full command
set; ``kubectl.1.27`` (OpenAPI v2 protobuf, v2beta1 discovery) and ``kubectl.1.33`` run a
representative subset. Every test has its own namespace and its own discovery cache. The server runs
on the manual clock, so AGE columns are exact; a small HTTP stand-in plays the kubelet.

Printed columns are compared with what real Kubernetes prints for the same objects.
"""

from __future__ import annotations

import json
import re

import pytest
import requests
import yaml
from integration_helpers import (
    EXAMPLES,
    Kubectl,
    Kubelet,
    columns,
    kubectl_binary,
    start_two_board_cluster,
    write_kubeconfig,
)

pytestmark = pytest.mark.kubectl

POD_COLUMNS = ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
POD_WIDE = POD_COLUMNS + ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]


def require(name: str) -> str:
    path = kubectl_binary(name)
    if path is None:
        pytest.skip(f"{name} is not installed here (looked on PATH and in /usr/lib/google-cloud-sdk/bin); "
                    "these tests drive the real kubectl binary")
    return path


@pytest.fixture(scope="module")
def server():
    running = start_two_board_cluster("node-a", "node-b")
    yield running
    running.stop()


@pytest.fixture
def kubelet(server) -> Kubelet:
    return Kubelet(server.url)


@pytest.fixture
def namespace(server, request) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:50]
    resp = requests.post(server.url + "/api/v1/namespaces",
                         json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    assert resp.status_code == 201, resp.text
    return name


def make_kubectl(name: str, server, tmp_path) -> Kubectl:
    binary = require(name)
    return Kubectl(binary, write_kubeconfig(tmp_path / "kubeconfig", server.url), tmp_path / "cache")


@pytest.fixture
def kubectl(server, tmp_path) -> Kubectl:
    return make_kubectl("kubectl", server, tmp_path)


def manifest(name: str, tmp_path, **changes) -> str:
    """An example manifest, optionally changed (``image=...``), written to a temp file."""
    doc = yaml.safe_load((EXAMPLES / name).read_text())
    if "image" in changes:
        containers = (doc["spec"].get("template") or {"spec": doc["spec"]})["spec"]["containers"]
        containers[0]["image"] = changes["image"]
    path = tmp_path / f"{len(list(tmp_path.iterdir()))}-{name}"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def table(text: str) -> tuple[list[str], list[list[str]]]:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return columns(lines[0]), [columns(ln) for ln in lines[1:]]


# -- the default kubectl: the full command set ------------------------------------------------
def test_apply_create_unchanged_configured(kubectl, namespace, tmp_path, server):
    ns = ["-n", namespace]
    assert kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns).strip() == "pod/blink created"
    assert kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns).strip() == "pod/blink unchanged"
    changed = manifest("pod.yaml", tmp_path, image="registry.example/kube32/blink:2.0")
    assert kubectl.out("apply", "-f", changed, *ns).strip() == "pod/blink configured"
    pod = json.loads(kubectl.out("get", "pod", "blink", "-o", "json", *ns))
    assert pod["spec"]["containers"][0]["image"] == "registry.example/kube32/blink:2.0"
    last = json.loads(pod["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["spec"]["containers"][0]["image"] == "registry.example/kube32/blink:2.0"
    dup = kubectl.run("create", "-f", changed, *ns, check=False)
    assert dup.returncode != 0
    assert 'Error from server (AlreadyExists): error when creating' in dup.stderr
    assert 'pods "blink" already exists' in dup.stderr


def test_get_table_wide_json_yaml(kubectl, kubelet, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns)
    pod = kubelet.pod(namespace, "blink")
    node = pod["spec"].get("nodeName")
    assert node in ("node-a", "node-b"), f"the pod was not bound at create: {pod['spec']}"
    kubelet.start(namespace, "blink", ip="10.1.0.5")

    header, rows = table(kubectl.out("get", "pods", *ns))
    assert header == POD_COLUMNS
    assert rows == [["blink", "1/1", "Running", "0", "0s"]]

    header, rows = table(kubectl.out("get", "pods", "-o", "wide", *ns))
    assert header == POD_WIDE
    assert rows == [["blink", "1/1", "Running", "0", "0s", "10.1.0.5", node, "<none>", "<none>"]]

    header, rows = table(kubectl.out("get", "pods", "-A"))
    assert header == ["NAMESPACE"] + POD_COLUMNS
    assert [namespace, "blink", "1/1", "Running", "0", "0s"] in rows

    header, rows = table(kubectl.out("get", "pods", "--show-labels", *ns))
    assert header[-1] == "LABELS" and rows[0][-1] == "app=blink"

    as_json = json.loads(kubectl.out("get", "pods", "-o", "json", *ns))
    assert as_json["kind"] == "List" and as_json["items"][0]["metadata"]["name"] == "blink"
    as_yaml = yaml.safe_load(kubectl.out("get", "pod", "blink", "-o", "yaml", *ns))
    assert as_yaml["kind"] == "Pod" and as_yaml["status"]["podIP"] == "10.1.0.5"
    assert kubectl.out("get", "pods", "-o", "name", *ns).strip() == "pod/blink"

    missing = kubectl.run("get", "pod", "nope", *ns, check=False)
    assert missing.returncode == 1
    assert missing.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'


def test_get_nodes(kubectl):
    header, rows = table(kubectl.out("get", "nodes"))
    assert header == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    node_a = next(r for r in rows if r[0] == "node-a")
    assert node_a[:3] == ["node-a", "Ready", "<none>"] and re.fullmatch(r"\d+s", node_a[3])
    assert node_a[4] == "v1.33.0-kube32"
    header, rows = table(kubectl.out("get", "nodes", "-o", "wide"))
    assert header == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE",
                      "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    node_b = next(r for r in rows if r[0] == "node-b")
    assert node_b[:3] == ["node-b", "Ready", "<none>"]
    assert node_b[4:] == ["v1.33.0-kube32", "10.0.0.2", "<none>", "ESP-IDF v5.2", "<unknown>", "kube32://1.0"]


def test_cordon_and_taint_a_node(kubectl):
    try:
        assert kubectl.out("cordon", "node-b").strip() == "node/node-b cordoned"
        _, rows = table(kubectl.out("get", "node", "node-b"))
        assert rows[0][:2] == ["node-b", "Ready,SchedulingDisabled"]
        kubectl.out("taint", "nodes", "node-b", "a=1:NoSchedule", "b=2:NoExecute")
        kubectl.out("taint", "nodes", "node-b", "a-")          # taints are an atomic list: a goes
        taints = json.loads(kubectl.out("get", "node", "node-b", "-o", "jsonpath={.spec.taints}"))
        assert taints == [{"effect": "NoExecute", "key": "b", "value": "2"}]
    finally:
        kubectl.run("uncordon", "node-b", check=False)
        kubectl.run("taint", "nodes", "node-b", "b-", check=False)
    _, rows = table(kubectl.out("get", "node", "node-b"))
    assert rows[0][:2] == ["node-b", "Ready"]


def test_describe_pod_shows_its_events(kubectl, kubelet, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns)
    kubelet.start(namespace, "blink")
    out = kubectl.out("describe", "pod", "blink", *ns)
    assert re.search(r"^Name:\s+blink$", out, re.M)
    assert re.search(rf"^Namespace:\s+{namespace}$", out, re.M)
    assert re.search(r"^Status:\s+Running$", out, re.M)
    assert re.search(r"^Node:\s+node-[ab]/10\.0\.0\.1$", out, re.M)
    events = out[out.index("Events:"):]
    # describe computes Age on the client, from its own clock, not the server's manual one
    assert re.search(r"Normal\s+Started\s+\S+\s+kubelet\s+Started container blink", events), events


def test_get_events_with_a_field_selector(kubectl, kubelet, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns)
    kubelet.start(namespace, "blink")
    header, rows = table(kubectl.out("get", "events", "--field-selector", "involvedObject.name=blink", *ns))
    assert header == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert ["0s", "Normal", "Started", "pod/blink", "Started container blink"] in rows
    assert all(r[3] == "pod/blink" for r in rows)
    none = kubectl.run("get", "events", "--field-selector", "involvedObject.name=nothing", *ns)
    assert f"No resources found in {namespace} namespace." in none.stderr


def test_the_documents_oversized_pod_transcript(kubectl, namespace, server):
    """The kube32 document's example, command for command (a cluster of the two boards above)."""
    ns = ["-n", namespace]
    assert kubectl.out("apply", "-f", str(EXAMPLES / "oversized-pod.yaml"), *ns).strip() == \
        "pod/oversized-pod created"
    Kubelet(server.url).advance(4, nodes=("node-a", "node-b"))
    header, rows = table(kubectl.out("get", "pod", "oversized-pod", *ns))
    assert header == POD_COLUMNS
    assert rows == [["oversized-pod", "0/1", "Pending", "0", "4s"]]
    out = kubectl.out("get", "events", "--field-selector", "involvedObject.name=oversized-pod", *ns)
    header, rows = table(out)
    assert header == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    failed = [r for r in rows if r[2] == "FailedScheduling"]
    assert failed, out
    assert failed[-1][1:] == ["Warning", "FailedScheduling", "pod/oversized-pod",
                              "0/2 nodes are available: 1 Insufficient esp32.io/psram, 1 node(s) didn't match "
                              "Pod's node affinity/selector."]


def test_deployment_and_service_apply_get_scale(kubectl, namespace, tmp_path, server):
    ns = ["-n", namespace]
    assert kubectl.out("apply", "-f", manifest("deployment.yaml", tmp_path), *ns).strip() == \
        "deployment.apps/web created"
    assert kubectl.out("apply", "-f", manifest("service.yaml", tmp_path), *ns).strip() == "service/web created"
    again = kubectl.out("apply", "-f", manifest("deployment.yaml", tmp_path), "-f", manifest("service.yaml", tmp_path), *ns)
    assert again.split("\n")[:2] == ["deployment.apps/web unchanged", "service/web unchanged"]
    header, rows = table(kubectl.out("get", "deployments", *ns))
    assert header == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert rows[0][0] == "web" and rows[0][1].endswith("/2")
    header, _ = table(kubectl.out("get", "deploy", "-o", "wide", *ns))
    assert header == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    header, rows = table(kubectl.out("get", "svc", *ns))
    assert header == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    assert rows[0][:2] == ["web", "ClusterIP"] and rows[0][4] == "80/TCP"

    assert kubectl.out("scale", "deployment", "web", "--replicas=3", *ns).strip() == "deployment.apps/web scaled"
    spec = json.loads(kubectl.out("get", "deployment", "web", "-o", "json", *ns))
    assert spec["spec"]["replicas"] == 3 and spec["metadata"]["generation"] == 2
    header, rows = table(kubectl.out("get", "deployments", *ns))
    assert rows[0][1].endswith("/3")
    header, rows = table(kubectl.out("get", "all", *ns))
    assert any(r[0] == "service/web" for r in rows) and any(r[0] == "deployment.apps/web" for r in rows)


def test_rollout_status_and_wait_for_available(kubectl, kubelet, namespace, tmp_path):
    """The Deployment controller creates the pods on its next pass; once the kubelet runs them,
    ``rollout status`` and ``wait --for=condition=Available`` see the Deployment's status."""
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("deployment.yaml", tmp_path), *ns)
    kubelet.advance(1, nodes=("node-a", "node-b"))
    pods = kubelet.pods(namespace)
    assert len(pods) == 2, [p["metadata"]["name"] for p in pods]
    for i, p in enumerate(pods):
        kubelet.start(namespace, p["metadata"]["name"], ip=f"10.1.1.{i + 1}")
    kubelet.advance(1, nodes=("node-a", "node-b"))
    out = kubectl.out("rollout", "status", "deployment/web", "--timeout=30s", *ns)
    assert out.strip().splitlines()[-1] == 'deployment "web" successfully rolled out'
    assert kubectl.out("wait", "--for=condition=Available", "deployment/web", "--timeout=30s", *ns).strip() == \
        "deployment.apps/web condition met"
    _, rows = table(kubectl.out("get", "deploy", "web", *ns))
    assert rows[0][:4] == ["web", "2/2", "2", "2"]


def test_delete_and_wait_for_delete_of_a_bound_pod(kubectl, kubelet, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns)
    kubelet.start(namespace, "blink")
    assert kubectl.out("delete", "pod", "blink", "--wait=false", *ns).strip() == 'pod "blink" deleted'
    header, rows = table(kubectl.out("get", "pods", *ns))
    assert rows[0][:3] == ["blink", "1/1", "Terminating"]
    lingering = kubectl.run("wait", "--for=delete", "pod/blink", "--timeout=1s", *ns, check=False)
    assert lingering.returncode == 1 and "timed out waiting" in lingering.stderr
    waiter = kubectl.popen("wait", "--for=delete", "pod/blink", "--timeout=60s", *ns)
    kubelet.confirm_delete(namespace, "blink")                 # the kubelet confirms with grace 0
    assert waiter.proc.wait(30) == 0, waiter.proc.stdout.read()
    assert kubectl.run("get", "pod", "blink", *ns, check=False).returncode == 1


def test_delete_of_an_unbound_pod_is_immediate(kubectl, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", str(EXAMPLES / "oversized-pod.yaml"), *ns)
    assert kubectl.out("delete", "-f", str(EXAMPLES / "oversized-pod.yaml"), *ns).strip() == \
        'pod "oversized-pod" deleted'
    assert kubectl.run("get", "pod", "oversized-pod", *ns, check=False).returncode == 1


def test_wait_for_ready_returns_at_once(kubectl, kubelet, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns)
    kubelet.start(namespace, "blink")
    out = kubectl.run("wait", "--for=condition=Ready", "pod/blink", "--timeout=30s", *ns)
    assert out.stdout.strip() == "pod/blink condition met"


def test_get_watch_receives_a_change(kubectl, kubelet, namespace, tmp_path):
    ns = ["-n", namespace]
    kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns)
    watcher = kubectl.popen("get", "pods", "-w", *ns)
    try:
        assert columns(watcher.until(lambda ln: ln.startswith("NAME"))) == POD_COLUMNS
        first = columns(watcher.until(lambda ln: ln.startswith("blink")))
        assert first[:3] == ["blink", "0/1", "Pending"]
        kubelet.start(namespace, "blink")
        changed = columns(watcher.until(lambda ln: "Running" in ln))
        assert changed == ["blink", "1/1", "Running", "0", "0s"]
    finally:
        watcher.stop()


def test_server_side_apply_creates(kubectl, namespace, tmp_path):
    out = kubectl.out("apply", "--server-side", "-f", manifest("pod.yaml", tmp_path), "-n", namespace)
    assert out.strip() == "pod/blink serverside-applied"
    assert json.loads(kubectl.out("get", "pod", "blink", "-o", "json", "-n", namespace))["metadata"]["uid"]


def test_create_generators_send_protobuf_and_work(kubectl, namespace):
    """kubectl 1.32+ sends the objects of ``create namespace|deployment|service|job`` as protobuf."""
    ns = ["-n", namespace]
    assert kubectl.out("create", "namespace", f"{namespace}-x").strip() == f"namespace/{namespace}-x created"
    assert kubectl.out("create", "deployment", "gen", "--image=registry.example/kube32/web:1.0", "--replicas=2",
                       "--port=80", *ns).strip() == "deployment.apps/gen created"
    assert kubectl.out("create", "service", "nodeport", "gen", "--tcp=80:8080", "--node-port=30080", *ns).strip() \
        == "service/gen created"
    assert kubectl.out("create", "job", "once", "--image=registry.example/kube32/calibrate:1.0", *ns, "--",
                       "calibrate", "--fast").strip() == "job.batch/once created"
    deploy = json.loads(kubectl.out("get", "deploy", "gen", "-o", "json", *ns))
    assert deploy["spec"]["replicas"] == 2 and deploy["spec"]["selector"] == {"matchLabels": {"app": "gen"}}
    assert deploy["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    header, rows = table(kubectl.out("get", "svc", "gen", *ns))
    assert rows[0][:2] == ["gen", "NodePort"] and rows[0][4] == "80:30080/TCP"
    job = json.loads(kubectl.out("get", "job", "once", "-o", "json", *ns))
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["calibrate", "--fast"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


# -- the oldest and newest versioned binaries: a representative subset -----------------------
@pytest.mark.parametrize("version", ["kubectl.1.27", "kubectl.1.33"])
def test_versioned_kubectl(version, server, kubelet, namespace, tmp_path):
    kubectl = make_kubectl(version, server, tmp_path)
    ns = ["-n", namespace]
    client = kubectl.out("version", "--client", "-o", "json")
    assert json.loads(client)["clientVersion"]["minor"] == version.rsplit(".", 1)[1]
    assert kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns).strip() == "pod/blink created"
    assert kubectl.out("apply", "-f", manifest("pod.yaml", tmp_path), *ns).strip() == "pod/blink unchanged"
    changed = manifest("pod.yaml", tmp_path, image="registry.example/kube32/blink:3.0")
    assert kubectl.out("apply", "-f", changed, *ns).strip() == "pod/blink configured"
    kubelet.start(namespace, "blink")
    header, rows = table(kubectl.out("get", "po", *ns))
    assert header == POD_COLUMNS and rows == [["blink", "1/1", "Running", "0", "0s"]]
    header, _ = table(kubectl.out("get", "po", "-o", "wide", *ns))
    assert header == POD_WIDE
    assert json.loads(kubectl.out("get", "po", "blink", "-o", "json", *ns))["spec"]["containers"][0]["image"] \
        == "registry.example/kube32/blink:3.0"
    assert "Started container blink" in kubectl.out("describe", "pod", "blink", *ns)
    header, rows = table(kubectl.out("get", "ev", "--field-selector", "involvedObject.name=blink", *ns))
    assert header == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert kubectl.out("apply", "-f", manifest("deployment.yaml", tmp_path), *ns).strip() == \
        "deployment.apps/web created"
    assert kubectl.out("scale", "deploy", "web", "--replicas=4", *ns).strip() == "deployment.apps/web scaled"
    assert kubectl.out("wait", "--for=condition=Ready", "pod/blink", "--timeout=30s", *ns).strip() == \
        "pod/blink condition met"
    assert kubectl.out("delete", "pod", "blink", "--wait=false", *ns).strip() == 'pod "blink" deleted'
    kubelet.confirm_delete(namespace, "blink")
    assert kubectl.out("wait", "--for=delete", "pod/blink", "--timeout=30s", *ns).strip() in (
        "", "pod/blink condition met")
