"""discovery.k8s.io/v1 EndpointSlice."""

from __future__ import annotations

from typing import Literal

from .core import Protocol
from .meta import K8sModel, ListMeta, ObjectMeta, ObjectReference


class EndpointConditions(K8sModel):
    ready: bool | None = None
    serving: bool | None = None
    terminating: bool | None = None


class Endpoint(K8sModel):
    addresses: list[str]
    conditions: EndpointConditions | None = None
    hostname: str | None = None
    node_name: str | None = None
    zone: str | None = None
    target_ref: ObjectReference | None = None


class EndpointSlicePort(K8sModel):
    name: str | None = None
    port: int | None = None
    protocol: Protocol | None = None
    app_protocol: str | None = None


class EndpointSlice(K8sModel):
    api_version: Literal["discovery.k8s.io/v1"] | None = None
    kind: Literal["EndpointSlice"] | None = None
    metadata: ObjectMeta | None = None
    address_type: Literal["IPv4", "IPv6", "FQDN"]
    # Upstream requires the key; a placeholder slice carries an empty list.
    endpoints: list[Endpoint]
    ports: list[EndpointSlicePort] | None = None


class EndpointSliceList(K8sModel):
    api_version: Literal["discovery.k8s.io/v1"] | None = None
    kind: Literal["EndpointSliceList"] | None = None
    metadata: ListMeta | None = None
    items: list[EndpointSlice]
