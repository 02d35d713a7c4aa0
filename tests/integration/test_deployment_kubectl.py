"""Real kubectl drives a Deployment on a real ``kube32-conformance serve`` process.

``kubectl apply`` of a Deployment, ``kubectl scale deployment --replicas=N`` (the scale subresource) and
``kubectl rollout status`` against the reference's Deployment controller: the pod count follows
the scale, pods are deleted gracefully and confirmed by a stand-in kubelet, and rollout status
reads the controller's status fields. The server runs on the manual clock; each controller pass
is one ``POST /debug/clock``. A fresh KUBECACHEDIR per test keeps discovery honest.
"""

from __future__ import annotations

import json

import pytest
import requests
from integration_helpers import Kubectl, Kubelet, Serve, kubectl_binary, write_kubeconfig

pytestmark = pytest.mark.kubectl

NS = "deploy-kubectl"


@pytest.fixture
def server():
    running = Serve("--clock", "manual").start()
    Kubelet(running.url).register("node-a", allocatable={"memory": "2000Ki", "esp32.io/gpio": "8"})
    resp = requests.post(running.url + "/api/v1/namespaces",
                         json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    assert resp.status_code == 201, resp.text
    yield running
    running.stop()


@pytest.fixture
def kubectl(server, tmp_path) -> Kubectl:
    binary = kubectl_binary("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed here; this test drives the real kubectl binary")
    return Kubectl(binary, write_kubeconfig(tmp_path / "kubeconfig", server.url), tmp_path / "kubecache")


MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: app
          image: kube32/app:1
"""


def create(kubectl: Kubectl, tmp_path) -> None:
    # (kubectl create deployment would send a protobuf body, which kube32 does not accept)
    path = tmp_path / "web.yaml"
    path.write_text(MANIFEST)
    assert kubectl.out("apply", "-f", str(path), "-n", NS).strip() == "deployment.apps/web created"


def one_pass(server) -> None:
    """Move the manual clock by one deployment interval (1 s on the simulator profile)."""
    resp = requests.post(server.url + "/debug/clock", json={"advance": 1})
    assert resp.status_code == 200, resp.text


def pods(server) -> list[dict]:
    items = requests.get(f"{server.url}/api/v1/namespaces/{NS}/pods", params={"labelSelector": "app=web"}).json()
    return items["items"]


def live(server) -> list[dict]:
    return [p for p in pods(server) if not p["metadata"].get("deletionTimestamp")]


def confirm_deletions(server, kubelet: Kubelet) -> None:
    for p in pods(server):
        if p["metadata"].get("deletionTimestamp"):
            kubelet.confirm_delete(NS, p["metadata"]["name"])


def test_kubectl_scale_changes_the_pod_count(server, kubectl, tmp_path):
    kubelet = Kubelet(server.url)
    ns = ("-n", NS)
    create(kubectl, tmp_path)
    one_pass(server)
    assert len(live(server)) == 2

    assert kubectl.out("scale", "deployment", "web", "--replicas=4", *ns).strip() == "deployment.apps/web scaled"
    one_pass(server)
    assert len(live(server)) == 4, [p["metadata"]["name"] for p in pods(server)]
    assert all(p["spec"].get("nodeName") == "node-a" for p in live(server)), "new pods are bound"

    assert kubectl.out("scale", "deploy", "web", "--replicas=1", *ns).strip() == "deployment.apps/web scaled"
    one_pass(server)
    assert len(live(server)) == 1
    terminating = [p for p in pods(server) if p["metadata"].get("deletionTimestamp")]
    assert len(terminating) == 3, "bound pods are deleted gracefully, awaiting their kubelet"
    confirm_deletions(server, kubelet)
    assert len(pods(server)) == 1

    scale = json.loads(kubectl.out("get", "--raw", f"/apis/apps/v1/namespaces/{NS}/deployments/web/scale"))
    assert (scale["kind"], scale["spec"]["replicas"], scale["status"]["selector"]) == ("Scale", 1, "app=web")


def test_kubectl_rollout_status_follows_the_controller(server, kubectl, tmp_path):
    kubelet = Kubelet(server.url)
    ns = ("-n", NS)
    create(kubectl, tmp_path)
    one_pass(server)
    not_done = kubectl.run("rollout", "status", "deployment/web", "--watch=false", *ns)
    assert "0 of 2 updated replicas are available" in not_done.stdout, not_done.stdout
    for p in live(server):
        kubelet.start(NS, p["metadata"]["name"])
    one_pass(server)
    done = kubectl.out("rollout", "status", "deployment/web", "--watch=false", *ns)
    assert done.strip() == 'deployment "web" successfully rolled out'

    got = json.loads(kubectl.out("get", "deployment", "web", "-o", "json", *ns))
    conditions = {c["type"]: (c["status"], c["reason"]) for c in got["status"]["conditions"]}
    assert conditions == {"Available": ("True", "MinimumReplicasAvailable"),
                          "Progressing": ("True", "NewReplicaSetAvailable")}
