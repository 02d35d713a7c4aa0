"""autoscaling/v1 Scale (the Deployment scale subresource)."""

from __future__ import annotations

from typing import Literal

from .meta import K8sModel, ObjectMeta


class ScaleSpec(K8sModel):
    replicas: int | None = None


class ScaleStatus(K8sModel):
    replicas: int
    # A label-selector string such as "app=web".
    selector: str | None = None


class Scale(K8sModel):
    api_version: Literal["autoscaling/v1"] | None = None
    kind: Literal["Scale"] | None = None
    metadata: ObjectMeta | None = None
    spec: ScaleSpec | None = None
    status: ScaleStatus | None = None
