"""core/v1 kinds kube32 serves: Namespace, Node, Pod, Service, Event, Endpoints (and their lists)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .meta import (
    ConditionStatus,
    IntOrName,
    K8sModel,
    ListMeta,
    MicroTime,
    ObjectMeta,
    ObjectReference,
    ResourceList,
    Time,
)

Protocol = Literal["TCP", "UDP", "SCTP"]
TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
PodPhase = Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"]
RestartPolicy = Literal["Always", "OnFailure", "Never"]


# --------------------------------------------------------------------------- Namespace
class NamespaceSpec(K8sModel):
    finalizers: list[str] | None = None


class NamespaceStatus(K8sModel):
    phase: Literal["Active", "Terminating"] | None = None


class Namespace(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["Namespace"] | None = None
    metadata: ObjectMeta | None = None
    spec: NamespaceSpec | None = None
    status: NamespaceStatus | None = None


# --------------------------------------------------------------------------- Node
class Taint(K8sModel):
    key: str
    value: str | None = None
    effect: TaintEffect
    time_added: Time | None = None


class NodeSpec(K8sModel):
    unschedulable: bool | None = None
    taints: list[Taint] | None = None
    pod_cidr: str | None = Field(default=None, alias="podCIDR")
    provider_id: str | None = Field(default=None, alias="providerID")


class NodeCondition(K8sModel):
    type: str
    status: ConditionStatus
    reason: str | None = None
    message: str | None = None
    last_heartbeat_time: Time | None = None
    last_transition_time: Time | None = None


class NodeAddress(K8sModel):
    type: str
    address: str


class NodeSystemInfo(K8sModel):
    machine_id: str | None = Field(default=None, alias="machineID")
    system_uuid: str | None = Field(default=None, alias="systemUUID")
    boot_id: str | None = Field(default=None, alias="bootID")
    kernel_version: str | None = None
    os_image: str | None = None
    container_runtime_version: str | None = None
    kubelet_version: str | None = None
    kube_proxy_version: str | None = None
    operating_system: str | None = None
    architecture: str | None = None


class NodeStatus(K8sModel):
    capacity: ResourceList | None = None
    allocatable: ResourceList | None = None
    conditions: list[NodeCondition] | None = None
    addresses: list[NodeAddress] | None = None
    node_info: NodeSystemInfo | None = None


class Node(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["Node"] | None = None
    metadata: ObjectMeta | None = None
    spec: NodeSpec | None = None
    status: NodeStatus | None = None


# --------------------------------------------------------------------------- Pod
class ContainerPort(K8sModel):
    name: str | None = None
    container_port: int
    protocol: Protocol | None = None
    host_port: int | None = None


class ResourceRequirements(K8sModel):
    requests: ResourceList | None = None
    limits: ResourceList | None = None


class Container(K8sModel):
    name: str
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    resources: ResourceRequirements | None = None
    ports: list[ContainerPort] | None = None


class Toleration(K8sModel):
    key: str | None = None
    # "" means Equal, as upstream.
    operator: Literal["Exists", "Equal", ""] | None = None
    value: str | None = None
    # "" matches every effect, as upstream.
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute", ""] | None = None
    toleration_seconds: int | None = None


class PodSpec(K8sModel):
    node_name: str | None = None
    node_selector: dict[str, str] | None = None
    containers: list[Container]
    init_containers: list[Container] | None = None
    tolerations: list[Toleration] | None = None
    restart_policy: RestartPolicy | None = None
    # Free-form: the scheduler ignores affinity and topology; we only check they are objects/lists.
    affinity: dict[str, Any] | None = None
    topology_spread_constraints: list[dict[str, Any]] | None = None
    scheduler_name: str | None = None
    termination_grace_period_seconds: int | None = None
    hostname: str | None = None
    subdomain: str | None = None


class PodCondition(K8sModel):
    type: str
    status: ConditionStatus
    reason: str | None = None
    message: str | None = None
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None


class PodIP(K8sModel):
    ip: str | None = None


class ContainerStateWaiting(K8sModel):
    reason: str | None = None
    message: str | None = None


class ContainerStateRunning(K8sModel):
    started_at: Time | None = None


class ContainerStateTerminated(K8sModel):
    exit_code: int
    signal: int | None = None
    reason: str | None = None
    message: str | None = None
    started_at: Time | None = None
    finished_at: Time | None = None
    container_id: str | None = Field(default=None, alias="containerID")


class ContainerState(K8sModel):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class ContainerStatus(K8sModel):
    # Upstream also requires image and imageID; kube32 boards have no image registry, so we do not.
    name: str
    ready: bool
    restart_count: int
    state: ContainerState | None = None
    last_state: ContainerState | None = None
    image: str | None = None
    image_id: str | None = Field(default=None, alias="imageID")
    container_id: str | None = Field(default=None, alias="containerID")
    started: bool | None = None


class PodStatus(K8sModel):
    phase: PodPhase | None = None
    reason: str | None = None
    message: str | None = None
    conditions: list[PodCondition] | None = None
    pod_ip: str | None = Field(default=None, alias="podIP")
    pod_ips: list[PodIP] | None = Field(default=None, alias="podIPs")
    host_ip: str | None = Field(default=None, alias="hostIP")
    start_time: Time | None = None
    container_statuses: list[ContainerStatus] | None = None
    nominated_node_name: str | None = None


class Pod(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["Pod"] | None = None
    metadata: ObjectMeta | None = None
    spec: PodSpec | None = None
    status: PodStatus | None = None


class PodTemplateSpec(K8sModel):
    metadata: ObjectMeta | None = None
    spec: PodSpec | None = None


# --------------------------------------------------------------------------- Service
class ServicePort(K8sModel):
    name: str | None = None
    protocol: Protocol | None = None
    port: int
    target_port: IntOrName | None = None
    node_port: int | None = None
    app_protocol: str | None = None


class ServiceSpec(K8sModel):
    selector: dict[str, str] | None = None
    ports: list[ServicePort] | None = None
    cluster_ip: str | None = Field(default=None, alias="clusterIP")
    cluster_ips: list[str] | None = Field(default=None, alias="clusterIPs")
    type: Literal["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"] | None = None
    publish_not_ready_addresses: bool | None = None


class ServiceStatus(K8sModel):
    load_balancer: dict[str, Any] | None = None


class Service(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["Service"] | None = None
    metadata: ObjectMeta | None = None
    spec: ServiceSpec | None = None
    status: ServiceStatus | None = None


# --------------------------------------------------------------------------- Event
class EventSource(K8sModel):
    component: str | None = None
    host: str | None = None


class Event(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["Event"] | None = None
    metadata: ObjectMeta
    involved_object: ObjectReference
    reason: str | None = None
    message: str | None = None
    type: Literal["Normal", "Warning"] | None = None
    count: int | None = None
    first_timestamp: Time | None = None
    last_timestamp: Time | None = None
    event_time: MicroTime | None = None
    source: EventSource | None = None
    reporting_component: str | None = None
    reporting_instance: str | None = None
    action: str | None = None


# --------------------------------------------------------------------------- Endpoints
class EndpointAddress(K8sModel):
    ip: str
    hostname: str | None = None
    node_name: str | None = None
    target_ref: ObjectReference | None = None


class EndpointPort(K8sModel):
    name: str | None = None
    port: int
    protocol: Protocol | None = None
    app_protocol: str | None = None


class EndpointSubset(K8sModel):
    addresses: list[EndpointAddress] | None = None
    not_ready_addresses: list[EndpointAddress] | None = None
    ports: list[EndpointPort] | None = None


class Endpoints(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["Endpoints"] | None = None
    metadata: ObjectMeta | None = None
    subsets: list[EndpointSubset] | None = None


# --------------------------------------------------------------------------- lists
class NamespaceList(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["NamespaceList"] | None = None
    metadata: ListMeta | None = None
    items: list[Namespace]


class NodeList(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["NodeList"] | None = None
    metadata: ListMeta | None = None
    items: list[Node]


class PodList(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["PodList"] | None = None
    metadata: ListMeta | None = None
    items: list[Pod]


class ServiceList(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["ServiceList"] | None = None
    metadata: ListMeta | None = None
    items: list[Service]


class EventList(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["EventList"] | None = None
    metadata: ListMeta | None = None
    items: list[Event]


class EndpointsList(K8sModel):
    api_version: Literal["v1"] | None = None
    kind: Literal["EndpointsList"] | None = None
    metadata: ListMeta | None = None
    items: list[Endpoints]
