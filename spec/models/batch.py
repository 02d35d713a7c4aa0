"""batch/v1 Job."""

from __future__ import annotations

from typing import Literal

from .core import PodTemplateSpec
from .meta import ConditionStatus, K8sModel, LabelSelector, ListMeta, ObjectMeta, Time


class JobSpec(K8sModel):
    completions: int | None = None
    parallelism: int | None = None
    backoff_limit: int | None = None
    active_deadline_seconds: int | None = None
    selector: LabelSelector | None = None
    manual_selector: bool | None = None
    suspend: bool | None = None
    template: PodTemplateSpec


class JobCondition(K8sModel):
    type: str
    status: ConditionStatus
    reason: str | None = None
    message: str | None = None
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None


class JobStatus(K8sModel):
    active: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    ready: int | None = None
    terminating: int | None = None
    start_time: Time | None = None
    completion_time: Time | None = None
    conditions: list[JobCondition] | None = None


class Job(K8sModel):
    api_version: Literal["batch/v1"] | None = None
    kind: Literal["Job"] | None = None
    metadata: ObjectMeta | None = None
    spec: JobSpec | None = None
    status: JobStatus | None = None


class JobList(K8sModel):
    api_version: Literal["batch/v1"] | None = None
    kind: Literal["JobList"] | None = None
    metadata: ListMeta | None = None
    items: list[Job]
