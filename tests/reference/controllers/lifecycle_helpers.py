"""Helpers for the node lifecycle unit tests: a manual-clock control plane, nodes, leases, pods.
They check the controllers' decisions, so they read the store's head (a data dir's writes become
visible to readers only once fsynced)."""

from __future__ import annotations

from kube32.reference.config import Config
from kube32.reference.controlplane import ControlPlane
from kube32.spec import constants, timefmt

START = 1_767_225_600.0          # 2026-01-01T00:00:00Z, a whole second
LEASES = "leases.coordination.k8s.io"


def control_plane(data_dir: str | None = None, start: float = START, **overrides) -> ControlPlane:
    cp = ControlPlane(Config(data_dir=data_dir, clock="manual", clock_start=start, overrides=overrides))
    cp.start()
    return cp


def add_node(cp: ControlPlane, name: str, lease_duration: float | None = 15) -> dict:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status",
                                       "lastHeartbeatTime": timefmt.rfc3339(cp.clock.now()),
                                       "lastTransitionTime": timefmt.rfc3339(cp.clock.now())}],
                       "allocatable": {"memory": "200Ki"}}}
    cp.store.create("nodes", node)
    spec = {"holderIdentity": name, "renewTime": timefmt.rfc3339_micro(cp.clock.now())}
    if lease_duration is not None:
        spec["leaseDurationSeconds"] = lease_duration
    cp.store.create(LEASES, {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                             "metadata": {"name": name, "namespace": constants.NODE_LEASE_NAMESPACE},
                             "spec": spec})
    return cp.store.head.get("nodes", "", name)


def renew(cp: ControlPlane, name: str) -> None:
    with cp.store.lock:
        lease = cp.store.head.get(LEASES, constants.NODE_LEASE_NAMESPACE, name)
        lease["spec"]["renewTime"] = timefmt.rfc3339_micro(cp.clock.now())
        cp.store.update(LEASES, lease)


def add_pod(cp: ControlPlane, name: str, node: str | None, *, tolerations: list | None = None,
            phase: str = "Running", owner_kind: str | None = None, admit: bool = True) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "blink"}]},
           "status": {"phase": phase, "podIP": "10.0.0.7",
                      "conditions": [{"type": "Ready", "status": "True"}]}}
    if node:
        pod["spec"]["nodeName"] = node
    if tolerations is not None:
        pod["spec"]["tolerations"] = tolerations
    if owner_kind:
        pod["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner_kind, "name": "own",
                                               "uid": "u-1", "controller": True}]
    if admit:
        cp.admit("pods", pod, None, "CREATE")
    return cp.store.create("pods", pod)


def node(cp: ControlPlane, name: str) -> dict:
    return cp.store.head.get("nodes", "", name)


def pod(cp: ControlPlane, name: str) -> dict | None:
    return cp.store.head.try_get("pods", "default", name)


def ready(cp: ControlPlane, name: str) -> dict:
    return next(c for c in node(cp, name)["status"]["conditions"] if c["type"] == "Ready")


def taints(cp: ControlPlane, name: str) -> list[str]:
    return [f"{t['key']}:{t['effect']}" for t in node(cp, name).get("spec", {}).get("taints") or []]


def events(cp: ControlPlane, reason: str, name: str) -> list[dict]:
    return [e for e in cp.store.head.list("events") if e["reason"] == reason and e["involvedObject"]["name"] == name]


NO_SCHEDULE = f"{constants.TAINT_UNREACHABLE}:NoSchedule"
NO_EXECUTE = f"{constants.TAINT_UNREACHABLE}:NoExecute"
