"""Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``) decoded to JSON form.

kubectl 1.32 and later send the objects of its ``create`` generators (``create namespace``,
``create deployment``, ``create service …``, ``create job``) as protobuf, and client-go does not fall
back to JSON on a 415. This module reads that envelope — ``k8s\\x00`` followed by a
``runtime.Unknown`` whose ``raw`` is the object's message — with the message descriptors protoc
compiled from the ``generated.proto`` files of k8s.io/api and k8s.io/apimachinery
(``k8s_descriptors.binpb``, made by ``tools/gen_k8s_descriptors.py``; loaded into a private pool,
so a program's own Kubernetes protos never clash with them).

Go's JSON omits empty non-pointer fields while gogo-protobuf always writes them, so a zero scalar or
an empty message is dropped unless the Go field is a pointer (``POINTERS``: the one fact the .proto
files do not carry). A field the descriptors do not know (from a newer Kubernetes) is refused with
a clear 415 rather than silently lost. Status messages are skipped (the API server resets status on
create).
"""

from __future__ import annotations

import base64
import json
from functools import cache
from importlib import resources

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.unknown_fields import UnknownFieldSet

from kube32.reference import errors
from kube32.spec import timefmt

MAGIC = b"k8s\x00"
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
DESCRIPTORS = "k8s_descriptors.binpb"

META = "k8s.io.apimachinery.pkg.apis.meta.v1."
KINDS = {  # (apiVersion, kind) -> message; the kinds kube32 serves
    ("v1", "Namespace"): "k8s.io.api.core.v1.Namespace",
    ("v1", "Pod"): "k8s.io.api.core.v1.Pod",
    ("v1", "Service"): "k8s.io.api.core.v1.Service",
    ("apps/v1", "Deployment"): "k8s.io.api.apps.v1.Deployment",
    ("apps/v1", "DaemonSet"): "k8s.io.api.apps.v1.DaemonSet",
    ("batch/v1", "Job"): "k8s.io.api.batch.v1.Job",
    ("coordination.k8s.io/v1", "Lease"): "k8s.io.api.coordination.v1.Lease",
}

# Fields that are Go pointers (``*int32``, ``*bool`` …) in k8s.io/api, by message and field: their
# zero value is a value ("replicas: 0"), not an omitted field.
POINTERS = {
    "ObjectMeta": {"deletionGracePeriodSeconds"},
    "OwnerReference": {"controller", "blockOwnerDeletion"},
    "PodSpec": {"terminationGracePeriodSeconds", "activeDeadlineSeconds", "automountServiceAccountToken",
                "priority", "runtimeClassName", "enableServiceLinks", "preemptionPolicy", "setHostnameAsFQDN",
                "hostUsers", "shareProcessNamespace"},
    "Toleration": {"tolerationSeconds"},
    "Container": {"restartPolicy"},
    "VolumeMount": {"mountPropagation", "recursiveReadOnly"},
    "DeploymentSpec": {"replicas", "revisionHistoryLimit", "progressDeadlineSeconds"},
    "RollingUpdateDeployment": {"maxUnavailable", "maxSurge"},
    "RollingUpdateDaemonSet": {"maxUnavailable", "maxSurge"},
    "DaemonSetSpec": {"revisionHistoryLimit"},
    "JobSpec": {"parallelism", "completions", "activeDeadlineSeconds", "manualSelector", "backoffLimit",
                "ttlSecondsAfterFinished", "completionMode", "suspend", "backoffLimitPerIndex", "maxFailedIndexes",
                "podReplacementPolicy", "managedBy"},
    "ServicePort": {"appProtocol"},
    "ServiceSpec": {"ipFamilyPolicy", "allocateLoadBalancerNodePorts", "loadBalancerClass",
                    "internalTrafficPolicy", "trafficDistribution"},
    "LeaseSpec": {"holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime", "leaseTransitions",
                  "strategy", "preferredHolder"},
}


def _unsupported(why: str) -> errors.ApiError:
    return errors.UnsupportedMediaType(
        f"the protobuf body could not be read ({why}); send the object as application/json")


@cache
def _pool() -> descriptor_pool.DescriptorPool:
    files = descriptor_pb2.FileDescriptorSet.FromString(
        (resources.files(__package__) / DESCRIPTORS).read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:   # protoc --include_imports writes dependencies first
        pool.Add(file)
    return pool


def message_class(full_name: str) -> type[Message]:
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(full_name))


def _parse(full_name: str, data: bytes) -> Message:
    msg = message_class(full_name)()
    try:
        msg.ParseFromString(data)
    except DecodeError as exc:
        raise _unsupported(f"not a {full_name.rsplit('.', 1)[-1]} message: {exc}") from None
    return msg


# Types whose JSON form is not their message's fields (apimachinery's custom marshallers).
def _time(msg: Message, micro: bool) -> str | None:
    if not msg.seconds and not msg.nanos:
        return None
    return timefmt.rfc3339_micro(msg.seconds + msg.nanos / 1e9) if micro else timefmt.rfc3339(msg.seconds)


SPECIAL = {
    META + "Time": lambda m: _time(m, micro=False),
    META + "MicroTime": lambda m: _time(m, micro=True),
    "k8s.io.apimachinery.pkg.api.resource.Quantity": lambda m: m.string,
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": lambda m: m.strVal if m.type == 1 else m.intVal,
    "k8s.io.apimachinery.pkg.runtime.RawExtension": lambda m: json.loads(m.raw) if m.raw else None,
}


def _empty(value: object) -> bool:
    return value is None or value == "" or value == 0 or value is False or value == {} or value == []


def _value(field: FieldDescriptor, value: object) -> object:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return to_json(value)  # type: ignore[arg-type]
    if field.type == FieldDescriptor.TYPE_BYTES:
        return base64.b64encode(value).decode("ascii")  # type: ignore[arg-type]
    return value


def _repeated(field: FieldDescriptor) -> bool:
    if hasattr(field, "is_repeated"):   # protobuf >= 6; ``label`` is gone in 7
        return field.is_repeated
    return field.label == FieldDescriptor.LABEL_REPEATED


def _refuse_unknown(msg: Message) -> None:
    unknown = UnknownFieldSet(msg)
    if len(unknown):
        numbers = ", ".join(str(f.field_number) for f in unknown)
        raise _unsupported(f"{msg.DESCRIPTOR.name} field {numbers} is not supported by this server")


def to_json(msg: Message) -> object:
    """One message in Kubernetes' JSON form."""
    desc: Descriptor = msg.DESCRIPTOR
    _refuse_unknown(msg)
    if desc.full_name in SPECIAL:
        return SPECIAL[desc.full_name](msg)
    pointers = POINTERS.get(desc.name, ())
    out: dict = {}
    for field, value in msg.ListFields():
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            out[field.name] = {k: _value(value_field, v) for k, v in value.items()}
        elif _repeated(field):
            out[field.name] = [_value(field, v) for v in value]
        else:
            item = _value(field, value)
            if field.name in pointers or not _empty(item):
                out[field.name] = item
    return out


def decode_object(data: bytes) -> dict:
    """The JSON form of a protobuf-encoded object (``k8s\\0`` + runtime.Unknown)."""
    if not data.startswith(MAGIC):
        raise _unsupported("the body does not start with the Kubernetes protobuf prefix")
    envelope = _parse("k8s.io.apimachinery.pkg.runtime.Unknown", data[len(MAGIC):])
    _refuse_unknown(envelope)
    api_version, kind = envelope.typeMeta.apiVersion, envelope.typeMeta.kind
    if (api_version, kind) not in KINDS:
        raise _unsupported(f"kind {kind!r} of {api_version!r} is not readable as protobuf here")
    if envelope.contentEncoding:
        raise _unsupported(f"content encoding {envelope.contentEncoding!r}")
    obj = _parse(KINDS[(api_version, kind)], envelope.raw)
    if "status" in obj.DESCRIPTOR.fields_by_name:
        obj.ClearField("status")   # the API server resets status on create
    return {"apiVersion": api_version, "kind": kind, **to_json(obj)}  # type: ignore[dict-item]
