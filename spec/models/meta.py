"""meta/v1 shapes shared by every kind: ObjectMeta, ListMeta, Status, selectors, references, times.

Every model allows extra fields (real servers add fields we do not model) and marks as required only
what Kubernetes itself requires. JSON names are camelCase through aliases.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

# metav1.Time: RFC 3339. Upstream emits whole seconds in UTC ("2024-05-01T12:00:00Z"); we accept any
# RFC 3339 date-time (fraction, offset) because upstream parsers accept them too.
TIME_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
# metav1.MicroTime: always UTC with exactly six fractional digits ("2024-05-01T12:00:00.000000Z").
MICROTIME_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$"

Time = Annotated[str, StringConstraints(pattern=TIME_PATTERN)]
MicroTime = Annotated[str, StringConstraints(pattern=MICROTIME_PATTERN)]
# resource.Quantity as served: a string. The grammar is NOT enforced here: kube32 accepts quantities
# with unrecognized suffixes (they count as 0), so the shape check stays at "string".
Quantity = str
ResourceList = dict[str, Quantity]
ConditionStatus = Literal["True", "False", "Unknown"]
# intstr.IntOrString for rolling-update budgets: an integer or a percentage string.
Percent = Annotated[str, StringConstraints(pattern=r"^[0-9]+%$")]
IntOrPercent = int | Percent
# A port by number or by name (Service targetPort).
IntOrName = int | str


class K8sModel(BaseModel):
    """Base of every model: camelCase aliases, unknown fields kept."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        alias_generator=to_camel,
    )


class OwnerReference(K8sModel):
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ObjectMeta(K8sModel):
    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    owner_references: list[OwnerReference] | None = None
    finalizers: list[str] | None = None


class ListMeta(K8sModel):
    resource_version: str | None = None
    continue_: str | None = Field(default=None, alias="continue")
    remaining_item_count: int | None = None


class ObjectReference(K8sModel):
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    api_version: str | None = None
    resource_version: str | None = None
    field_path: str | None = None


class LabelSelectorRequirement(K8sModel):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: list[str] | None = None


class LabelSelector(K8sModel):
    match_labels: dict[str, str] | None = None
    match_expressions: list[LabelSelectorRequirement] | None = None


class StatusCause(K8sModel):
    reason: str | None = None
    message: str | None = None
    field: str | None = None


class StatusDetails(K8sModel):
    name: str | None = None
    group: str | None = None
    kind: str | None = None
    uid: str | None = None
    causes: list[StatusCause] | None = None
    retry_after_seconds: int | None = None


class Status(K8sModel):
    """meta/v1 Status: the body of every API error."""

    api_version: Literal["v1"] | None = None
    kind: Literal["Status"] | None = None
    metadata: ListMeta | None = None
    status: Literal["Success", "Failure"] | None = None
    message: str | None = None
    reason: str | None = None
    details: StatusDetails | None = None
    code: int | None = None

