"""Pydantic models of the objects kube32 serves, shaped like Kubernetes.

``KINDS`` maps each kind to its model; ``python -m spec.models.export`` writes one JSON Schema per kind
to ``spec/schemas/<kind-lower>.json``, which ``spec.validate`` loads.
"""

from __future__ import annotations

from .apps import DaemonSet, DaemonSetList, Deployment, DeploymentList
from .autoscaling import Scale
from .batch import Job, JobList
from .coordination import Lease, LeaseList
from .core import (
    Endpoints,
    EndpointsList,
    Event,
    EventList,
    Namespace,
    NamespaceList,
    Node,
    NodeList,
    Pod,
    PodList,
    Service,
    ServiceList,
)
from .discovery import EndpointSlice, EndpointSliceList
from .meta import K8sModel, ListMeta, ObjectMeta, Status

# kind -> (apiVersion, model)
KINDS: dict[str, tuple[str, type[K8sModel]]] = {
    "Status": ("v1", Status),
    "Namespace": ("v1", Namespace),
    "NamespaceList": ("v1", NamespaceList),
    "Node": ("v1", Node),
    "NodeList": ("v1", NodeList),
    "Pod": ("v1", Pod),
    "PodList": ("v1", PodList),
    "Service": ("v1", Service),
    "ServiceList": ("v1", ServiceList),
    "Event": ("v1", Event),
    "EventList": ("v1", EventList),
    "Endpoints": ("v1", Endpoints),
    "EndpointsList": ("v1", EndpointsList),
    "EndpointSlice": ("discovery.k8s.io/v1", EndpointSlice),
    "EndpointSliceList": ("discovery.k8s.io/v1", EndpointSliceList),
    "Lease": ("coordination.k8s.io/v1", Lease),
    "LeaseList": ("coordination.k8s.io/v1", LeaseList),
    "Deployment": ("apps/v1", Deployment),
    "DeploymentList": ("apps/v1", DeploymentList),
    "DaemonSet": ("apps/v1", DaemonSet),
    "DaemonSetList": ("apps/v1", DaemonSetList),
    "Job": ("batch/v1", Job),
    "JobList": ("batch/v1", JobList),
    "Scale": ("autoscaling/v1", Scale),
}


def schema_name(kind: str) -> str:
    """File stem of the JSON Schema for ``kind`` (``EndpointSlice`` -> ``endpointslice``)."""
    return kind.lower()


__all__ = [
    "KINDS",
    "DaemonSet",
    "Deployment",
    "EndpointSlice",
    "Endpoints",
    "Event",
    "Job",
    "K8sModel",
    "Lease",
    "ListMeta",
    "Namespace",
    "Node",
    "ObjectMeta",
    "Pod",
    "Scale",
    "Service",
    "Status",
    "schema_name",
]
