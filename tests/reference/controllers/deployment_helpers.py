"""Builders for the Deployment unit tests: Deployments and pods as plain dicts, a manual-clock
control plane, and a stand-in kubelet that writes pod status straight into the store."""

from __future__ import annotations

from kube32.reference.config import Config
from kube32.reference.controllers import deployment_plan as dp
from kube32.reference.controlplane import ControlPlane
from kube32.spec import constants, timefmt

START = 1_767_225_600.0          # 2026-01-01T00:00:00Z
DEPLOY = "deployments.apps"


def deployment(name: str = "web", *, replicas: int | None = 3, image: str = "v1", uid: str = "uid-web",
               strategy: dict | None = None, **spec_fields) -> dict:
    spec: dict = {"selector": {"matchLabels": {"app": name}},
                  "template": {"metadata": {"labels": {"app": name}},
                               "spec": {"containers": [{"name": "c", "image": image}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    if strategy is not None:
        spec["strategy"] = strategy
    spec.update(spec_fields)
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default", "uid": uid, "generation": 1},
            "spec": spec}


def rolling(max_unavailable=None, max_surge=None) -> dict:
    ru = {}
    if max_unavailable is not None:
        ru["maxUnavailable"] = max_unavailable
    if max_surge is not None:
        ru["maxSurge"] = max_surge
    return {"type": "RollingUpdate", "rollingUpdate": ru}


def pod(name: str, owner: dict, *, hash_: str | None = None, ready: bool = True, node: str | None = "n1",
        created: float = START, terminating: bool = False, phase: str | None = None) -> dict:
    """A pod owned by ``owner``; ``hash_`` defaults to the owner's current template hash."""
    h = hash_ if hash_ is not None else dp.template_hash(owner["spec"]["template"])
    meta = {"name": name, "namespace": "default", "creationTimestamp": timefmt.rfc3339(created),
            "labels": {"app": owner["metadata"]["name"], constants.POD_TEMPLATE_HASH_LABEL: h},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": owner["metadata"]["name"],
                                 "uid": owner["metadata"]["uid"], "controller": True}]}
    if terminating:
        meta["deletionTimestamp"] = timefmt.rfc3339(created + 30)
    spec = {"containers": [{"name": "c", "image": "v1"}]}
    if node:
        spec["nodeName"] = node
    status = {"phase": phase or ("Running" if ready else "Pending"),
              "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                              "lastTransitionTime": timefmt.rfc3339(created)}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def kinds(actions: list) -> list[tuple[str, str]]:
    """Actions as (verb, pod name or reason) pairs, easy to compare."""
    out = []
    for a in actions:
        if isinstance(a, dp.DeletePod):
            out.append(("delete", a.name))
        else:
            out.append(("create", a.reason))
    return out


# -- a manual-clock control plane ---------------------------------------------------------------
def control_plane(**overrides) -> ControlPlane:
    cp = ControlPlane(Config(clock="manual", clock_start=START, overrides=overrides))
    cp.start()
    return cp


def passes(cp: ControlPlane, n: int = 1) -> None:
    """Let ``n`` Deployment intervals go by."""
    for _ in range(n):
        cp.clock.advance(cp.profile.deployment_interval)


def add_node(cp: ControlPlane, name: str = "n1") -> dict:
    return cp.store.create("nodes", {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {constants.HOSTNAME_LABEL: name}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}],
                   "allocatable": {"memory": "20000Ki", "esp32.io/gpio": "8"},
                   "capacity": {"memory": "20000Ki", "esp32.io/gpio": "8"}}})


def pods_of(cp: ControlPlane, name: str = "web", *, include_terminating: bool = False) -> list[dict]:
    d = cp.store.get(DEPLOY, "default", name)
    owned = dp.owned_pods(d, cp.store.list("pods", "default"))
    return [p for p in owned if include_terminating or not dp.is_terminating(p)]


def images(pods: list[dict]) -> list[str]:
    return sorted(p["spec"]["containers"][0]["image"] for p in pods)


def start(cp: ControlPlane, pod_: dict, ready: bool = True) -> dict:
    """The kubelet reports the pod Running and Ready (or Running but not Ready)."""
    p = cp.store.get("pods", "default", pod_["metadata"]["name"])
    p["status"] = {"phase": "Running", "podIP": "10.0.0.9",
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                   "lastTransitionTime": timefmt.rfc3339(cp.clock.now())}]}
    return cp.store.update("pods", p)


def start_all(cp: ControlPlane, name: str = "web") -> None:
    for p in pods_of(cp, name):
        if not dp.is_ready(p):
            start(cp, p)


def confirm_deletions(cp: ControlPlane) -> None:
    """The kubelet confirms every graceful deletion."""
    for p in list(cp.store.list("pods", "default")):
        if p["metadata"].get("deletionTimestamp"):
            cp.store.delete("pods", "default", p["metadata"]["name"])


def update_template(cp: ControlPlane, image: str, name: str = "web") -> dict:
    d = cp.store.get(DEPLOY, "default", name)
    d["spec"]["template"]["spec"]["containers"][0]["image"] = image
    return cp.store.update(DEPLOY, d)


def scale(cp: ControlPlane, replicas: int, name: str = "web") -> dict:
    d = cp.store.get(DEPLOY, "default", name)
    d["spec"]["replicas"] = replicas
    return cp.store.update(DEPLOY, d)


def create_deployment(cp: ControlPlane, obj: dict) -> dict:
    obj = {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k not in ("uid", "generation")}}
    return cp.store.create(DEPLOY, obj)


class FirstNodeScheduler:
    """Binds every pod to the alphabetically first node (keeps these tests off the real scheduler)."""

    def __init__(self, cp: ControlPlane) -> None:
        self.cp = cp

    def schedule(self, pod_: dict) -> None:
        nodes = self.cp.store.list("nodes")
        if not nodes:
            return
        p = self.cp.store.get("pods", pod_["metadata"]["namespace"], pod_["metadata"]["name"])
        p["spec"]["nodeName"] = nodes[0]["metadata"]["name"]
        self.cp.store.update("pods", p)
