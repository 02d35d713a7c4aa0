"""coordination.k8s.io/v1 Lease (node heartbeats in kube-node-lease)."""

from __future__ import annotations

from typing import Literal

from .meta import K8sModel, ListMeta, MicroTime, ObjectMeta


class LeaseSpec(K8sModel):
    holder_identity: str | None = None
    lease_duration_seconds: int | None = None
    acquire_time: MicroTime | None = None
    renew_time: MicroTime | None = None
    lease_transitions: int | None = None


class Lease(K8sModel):
    api_version: Literal["coordination.k8s.io/v1"] | None = None
    kind: Literal["Lease"] | None = None
    metadata: ObjectMeta | None = None
    spec: LeaseSpec | None = None


class LeaseList(K8sModel):
    api_version: Literal["coordination.k8s.io/v1"] | None = None
    kind: Literal["LeaseList"] | None = None
    metadata: ListMeta | None = None
    items: list[Lease]
