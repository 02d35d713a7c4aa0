"""Builders for the scheduler's unit tests: nodes and pods as plain dicts."""

from __future__ import annotations

START = 1_800_000_000.0


def node(name: str, *, memory: str | None = "200Ki", gpio: str | None = "8", ready: str | None = "True",
         labels: dict | None = None, unschedulable: bool = False, extra: dict | None = None,
         capacity: dict | None = None, status: bool = True) -> dict:
    figures = {k: v for k, v in (("memory", memory), ("esp32.io/gpio", gpio)) if v is not None}
    figures.update(extra or {})
    obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
           "spec": {"unschedulable": True} if unschedulable else {}}
    if status:
        obj["status"] = {"allocatable": figures, "capacity": dict(capacity if capacity is not None else figures),
                         "conditions": [] if ready is None else [{"type": "Ready", "status": ready}]}
    return obj


def pod(name: str, *, requests: dict | None = None, limits: dict | None = None, node_name: str | None = None,
        selector: dict | None = None, namespace: str = "default", containers: list | None = None,
        phase: str | None = None) -> dict:
    resources = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    spec: dict = {"containers": containers or [{"name": "main", "image": "x", "resources": resources}]}
    if node_name:
        spec["nodeName"] = node_name
    if selector:
        spec["nodeSelector"] = selector
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}
    if phase:
        obj["status"] = {"phase": phase}
    return obj
