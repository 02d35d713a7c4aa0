"""apps/v1 kinds: Deployment and DaemonSet (kube32 creates no ReplicaSets)."""

from __future__ import annotations

from typing import Literal

from .core import PodTemplateSpec
from .meta import ConditionStatus, IntOrPercent, K8sModel, LabelSelector, ListMeta, ObjectMeta, Time


class RollingUpdateDeployment(K8sModel):
    max_unavailable: IntOrPercent | None = None
    max_surge: IntOrPercent | None = None


class DeploymentStrategy(K8sModel):
    type: Literal["RollingUpdate", "Recreate"] | None = None
    rolling_update: RollingUpdateDeployment | None = None


class DeploymentSpec(K8sModel):
    replicas: int | None = None
    selector: LabelSelector
    template: PodTemplateSpec
    strategy: DeploymentStrategy | None = None
    min_ready_seconds: int | None = None
    revision_history_limit: int | None = None
    progress_deadline_seconds: int | None = None
    paused: bool | None = None


class DeploymentCondition(K8sModel):
    type: str
    status: ConditionStatus
    reason: str | None = None
    message: str | None = None
    last_update_time: Time | None = None
    last_transition_time: Time | None = None


class DeploymentStatus(K8sModel):
    observed_generation: int | None = None
    replicas: int | None = None
    updated_replicas: int | None = None
    ready_replicas: int | None = None
    available_replicas: int | None = None
    unavailable_replicas: int | None = None
    conditions: list[DeploymentCondition] | None = None


class Deployment(K8sModel):
    api_version: Literal["apps/v1"] | None = None
    kind: Literal["Deployment"] | None = None
    metadata: ObjectMeta | None = None
    spec: DeploymentSpec | None = None
    status: DeploymentStatus | None = None


class RollingUpdateDaemonSet(K8sModel):
    max_unavailable: IntOrPercent | None = None
    max_surge: IntOrPercent | None = None


class DaemonSetUpdateStrategy(K8sModel):
    type: Literal["RollingUpdate", "OnDelete"] | None = None
    rolling_update: RollingUpdateDaemonSet | None = None


class DaemonSetSpec(K8sModel):
    selector: LabelSelector
    template: PodTemplateSpec
    update_strategy: DaemonSetUpdateStrategy | None = None
    min_ready_seconds: int | None = None
    revision_history_limit: int | None = None


class DaemonSetCondition(K8sModel):
    type: str
    status: ConditionStatus
    reason: str | None = None
    message: str | None = None
    last_transition_time: Time | None = None


class DaemonSetStatus(K8sModel):
    # Upstream requires the four counters; a server may still omit zeros, so they are optional here.
    desired_number_scheduled: int | None = None
    current_number_scheduled: int | None = None
    number_ready: int | None = None
    updated_number_scheduled: int | None = None
    number_available: int | None = None
    number_unavailable: int | None = None
    number_misscheduled: int | None = None
    observed_generation: int | None = None
    conditions: list[DaemonSetCondition] | None = None


class DaemonSet(K8sModel):
    api_version: Literal["apps/v1"] | None = None
    kind: Literal["DaemonSet"] | None = None
    metadata: ObjectMeta | None = None
    spec: DaemonSetSpec | None = None
    status: DaemonSetStatus | None = None


class DeploymentList(K8sModel):
    api_version: Literal["apps/v1"] | None = None
    kind: Literal["DeploymentList"] | None = None
    metadata: ListMeta | None = None
    items: list[Deployment]


class DaemonSetList(K8sModel):
    api_version: Literal["apps/v1"] | None = None
    kind: Literal["DaemonSetList"] | None = None
    metadata: ListMeta | None = None
    items: list[DaemonSet]
