"""Builders for Services and pods in wire format, shared by the endpoints view tests."""

from __future__ import annotations

import itertools

_uids = itertools.count(1)


def service(name: str = "web", selector: dict | None = None, ports: list[dict] | None = None,
            namespace: str = "default", **spec) -> dict:
    body = {"selector": selector, "ports": ports if ports is not None else [{"port": 80, "targetPort": 8080}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "uid": f"svc-uid-{name}",
                         "resourceVersion": "5", "creationTimestamp": "2026-01-01T00:00:00Z",
                         "labels": {"team": "a"}},
            "spec": {k: v for k, v in body.items() if v is not None}}


def pod(name: str, ip: str | None = "10.0.0.1", *, labels: dict | None = None, phase: str = "Running",
        ready: bool = True, node: str = "node-a", ports: list[dict] | None = None,
        namespace: str = "default", terminating: bool = False, rv: int = 3) -> dict:
    meta = {"name": name, "namespace": namespace, "uid": f"uid-{name}-{next(_uids)}",
            "resourceVersion": str(rv), "labels": labels if labels is not None else {"app": "web"}}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    status: dict = {"phase": phase,
                    "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    if ip:
        status["podIP"] = ip
    container = {"name": "c", "image": "app"}
    if ports:
        container["ports"] = ports
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node, "containers": [container]}, "status": status}


def named(name: str, number: int, protocol: str | None = None) -> dict:
    out = {"name": name, "containerPort": number}
    if protocol:
        out["protocol"] = protocol
    return out
