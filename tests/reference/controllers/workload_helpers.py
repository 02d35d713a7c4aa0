"""Helpers for the DaemonSet and Job unit tests: a manual-clock control plane, nodes, owners, and a
tiny stand-in kubelet (bind, start, finish, confirm deletions) that writes straight to the store."""

from __future__ import annotations

from kube32.reference.config import Config
from kube32.reference.controlplane import ControlPlane
from kube32.spec import constants

START = 1_767_225_600.0          # 2026-01-01T00:00:00Z
DS = "daemonsets.apps"
JOBS = "jobs.batch"


def control_plane(**overrides) -> ControlPlane:
    cp = ControlPlane(Config(clock="manual", clock_start=START, overrides=overrides))
    cp.start()
    return cp


def passes(cp: ControlPlane, n: int = 1) -> None:
    """Let ``n`` workload intervals go by."""
    cp.clock.advance(n * cp.profile.workload_interval)


def add_node(cp: ControlPlane, name: str, **labels: str) -> dict:
    labels = {constants.HOSTNAME_LABEL: name, **{k.replace("__", "."): v for k, v in labels.items()}}
    return cp.store.create("nodes", {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "status": {"conditions": [{"type": "Ready", "status": "True"}],
                   "allocatable": {"memory": "2000Ki", "esp32.io/gpio": "8"}}})


def relabel_node(cp: ControlPlane, name: str, labels: dict) -> None:
    node = cp.store.get("nodes", "", name)
    node["metadata"]["labels"] = labels
    cp.store.update("nodes", node)


def template(image: str = "v1", policy: str | None = "Always", node_selector: dict | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": image}]}
    if policy is not None:
        spec["restartPolicy"] = policy
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"metadata": {"labels": {"app": "x"}}, "spec": spec}


def daemonset(name: str = "d", *, image: str = "v1", node_selector: dict | None = None,
              strategy: dict | None = None) -> dict:
    spec = {"selector": {"matchLabels": {"app": "x"}},
            "template": template(image, "Always", node_selector)}
    if strategy is not None:
        spec["updateStrategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


def job(name: str = "j", *, policy: str = "Never", **spec_fields) -> dict:
    spec = {"template": template("v1", policy), **spec_fields}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


def create(cp: ControlPlane, res: str, obj: dict) -> dict:
    """Create as the API would: admission first."""
    cp.admit(res, obj, None, "CREATE")
    return cp.store.create(res, obj)


def owned(cp: ControlPlane, owner: dict) -> list[dict]:
    uid = owner["metadata"]["uid"]
    return [p for p in cp.store.list("pods", "default")
            if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]


def node_of(pod: dict) -> str | None:
    return (pod["spec"].get("nodeSelector") or {}).get(constants.HOSTNAME_LABEL) or pod["spec"].get("nodeName")


def by_node(cp: ControlPlane, owner: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for pod in owned(cp, owner):
        out.setdefault(node_of(pod), []).append(pod)
    return out


def get(cp: ControlPlane, res: str, name: str) -> dict:
    return cp.store.get(res, "default", name)


# -- the stand-in kubelet --------------------------------------------------------------------
def write_pod(cp: ControlPlane, pod: dict, **changes) -> dict:
    current = cp.store.get("pods", "default", pod["metadata"]["name"])
    for key, value in changes.items():
        section, _, field = key.partition("__")
        current.setdefault(section, {})[field] = value
    return cp.store.update("pods", current, check_rv=False)


def start(cp: ControlPlane, pod: dict, node: str | None = None, ready: bool = True) -> dict:
    node = node or node_of(pod) or "n1"
    return write_pod(cp, pod, spec__nodeName=node, status__phase="Running", status__conditions=[
        {"type": "Ready", "status": "True" if ready else "False"}])


def start_all(cp: ControlPlane, owner: dict, node: str | None = None) -> None:
    for pod in owned(cp, owner):
        if not pod["metadata"].get("deletionTimestamp") and (pod.get("status") or {}).get("phase") in (None, "Pending"):
            start(cp, pod, node)


def finish(cp: ControlPlane, pod: dict, phase: str) -> dict:
    return write_pod(cp, pod, status__phase=phase, status__conditions=[{"type": "Ready", "status": "False"}])


def restart_container(cp: ControlPlane, pod: dict) -> dict:
    current = cp.store.get("pods", "default", pod["metadata"]["name"])
    statuses = current["status"].get("containerStatuses") or [{"name": "c", "restartCount": 0}]
    statuses[0]["restartCount"] = statuses[0].get("restartCount", 0) + 1
    statuses[0]["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}
    current["status"]["containerStatuses"] = statuses
    return cp.store.update("pods", current, check_rv=False)


def confirm_deletions(cp: ControlPlane) -> list[str]:
    """The kubelets confirm every terminating pod (delete it for good)."""
    gone = []
    for pod in list(cp.store.list("pods")):
        if pod["metadata"].get("deletionTimestamp"):
            cp.store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
            gone.append(pod["metadata"]["name"])
    return gone


def terminating(cp: ControlPlane, owner: dict) -> list[dict]:
    return [p for p in owned(cp, owner) if p["metadata"].get("deletionTimestamp")]


def live(cp: ControlPlane, owner: dict) -> list[dict]:
    return [p for p in owned(cp, owner) if not p["metadata"].get("deletionTimestamp")]
