"""Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``) decoded to JSON form.

kubectl 1.32 and later send the objects of its ``create`` generators (``create namespace``,
``create deployment``, ``create service …``, ``create job``) as protobuf, and client-go does not fall
back to JSON on a 415. This module reads that envelope — ``k8s\\x00`` followed by a
``runtime.Unknown`` whose ``raw`` is the object's message — for the kinds kube32 serves, with the
field numbers of the ``generated.proto`` files of k8s.io/api and apimachinery.

Go's JSON omits empty non-pointer fields while gogo-protobuf always writes them, so a zero scalar or
an empty message is dropped unless the Go field is a pointer (marked ``!`` in the schema; protobuf
writes those only when set). Any field this schema does not know is refused with a clear 415 rather
than silently lost. Status messages are skipped (the API server resets status on create).
"""

from __future__ import annotations

from kube32.reference import errors
from kube32.spec import timefmt

MAGIC = b"k8s\x00"
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
SKIP = "skip"

# message -> field number -> (json name, type). Types: s string, i integer, b bool, t Time,
# q Quantity, ios IntOrString, ms map<string,string>, mq map<string,Quantity>, m:<Message>,
# bytes; a trailing "*" means repeated, a trailing "!" keeps zero values (a Go pointer).
SCHEMA: dict[str, dict[int, tuple[str, str]]] = {
    "Unknown": {1: ("typeMeta", "m:TypeMeta"), 2: ("raw", "bytes"), 3: ("contentEncoding", "s"),
                4: ("contentType", "s")},
    "TypeMeta": {1: ("apiVersion", "s"), 2: ("kind", "s")},
    "ObjectMeta": {1: ("name", "s"), 2: ("generateName", "s"), 3: ("namespace", "s"), 4: ("selfLink", "s"),
                   5: ("uid", "s"), 6: ("resourceVersion", "s"), 7: ("generation", "i"),
                   8: ("creationTimestamp", "t"), 9: ("deletionTimestamp", "t"),
                   10: ("deletionGracePeriodSeconds", "i!"), 11: ("labels", "ms"), 12: ("annotations", "ms"),
                   13: ("ownerReferences", "m:OwnerReference*"), 14: ("finalizers", "s*")},
    "OwnerReference": {1: ("kind", "s"), 3: ("name", "s"), 4: ("uid", "s"), 5: ("apiVersion", "s"),
                       6: ("controller", "b!"), 7: ("blockOwnerDeletion", "b!")},
    "LabelSelector": {1: ("matchLabels", "ms"), 2: ("matchExpressions", "m:LabelSelectorRequirement*")},
    "LabelSelectorRequirement": {1: ("key", "s"), 2: ("operator", "s"), 3: ("values", "s*")},
    "Namespace": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:NamespaceSpec"), 3: ("status", SKIP)},
    "NamespaceSpec": {1: ("finalizers", "s*")},
    "PodTemplateSpec": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:PodSpec")},
    "Pod": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:PodSpec"), 3: ("status", SKIP)},
    "PodSpec": {2: ("containers", "m:Container*"), 3: ("restartPolicy", "s"),
                4: ("terminationGracePeriodSeconds", "i!"), 5: ("activeDeadlineSeconds", "i!"),
                6: ("dnsPolicy", "s"), 7: ("nodeSelector", "ms"), 8: ("serviceAccountName", "s"),
                9: ("serviceAccount", "s"), 10: ("nodeName", "s"), 11: ("hostNetwork", "b"), 12: ("hostPID", "b"),
                13: ("hostIPC", "b"), 15: ("imagePullSecrets", "m:LocalObjectReference*"), 16: ("hostname", "s"),
                17: ("subdomain", "s"), 19: ("schedulerName", "s"), 20: ("initContainers", "m:Container*"),
                21: ("automountServiceAccountToken", "b!"), 22: ("tolerations", "m:Toleration*"),
                24: ("priorityClassName", "s"), 25: ("priority", "i!"), 28: ("readinessGates", "m:PodReadinessGate*"),
                29: ("runtimeClassName", "s!"), 30: ("enableServiceLinks", "b!"), 31: ("preemptionPolicy", "s!"),
                35: ("setHostnameAsFQDN", "b!"), 37: ("hostUsers", "b!")},
    "LocalObjectReference": {1: ("name", "s")},
    "Toleration": {1: ("key", "s"), 2: ("operator", "s"), 3: ("value", "s"), 4: ("effect", "s"),
                   5: ("tolerationSeconds", "i!")},
    "PodReadinessGate": {1: ("conditionType", "s")},
    "Container": {1: ("name", "s"), 2: ("image", "s"), 3: ("command", "s*"), 4: ("args", "s*"),
                  5: ("workingDir", "s"), 6: ("ports", "m:ContainerPort*"), 7: ("env", "m:EnvVar*"),
                  8: ("resources", "m:ResourceRequirements"), 9: ("volumeMounts", "m:VolumeMount*"),
                  13: ("terminationMessagePath", "s"), 14: ("imagePullPolicy", "s"), 16: ("stdin", "b"),
                  17: ("stdinOnce", "b"), 18: ("tty", "b"), 20: ("terminationMessagePolicy", "s"),
                  24: ("restartPolicy", "s!")},
    "ContainerPort": {1: ("name", "s"), 2: ("hostPort", "i"), 3: ("containerPort", "i"), 4: ("protocol", "s"),
                      5: ("hostIP", "s")},
    "EnvVar": {1: ("name", "s"), 2: ("value", "s")},
    "ResourceRequirements": {1: ("limits", "mq"), 2: ("requests", "mq")},
    "VolumeMount": {1: ("name", "s"), 2: ("readOnly", "b"), 3: ("mountPath", "s"), 4: ("subPath", "s"),
                    5: ("mountPropagation", "s!"), 6: ("subPathExpr", "s")},
    "Deployment": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:DeploymentSpec"), 3: ("status", SKIP)},
    "DeploymentSpec": {1: ("replicas", "i!"), 2: ("selector", "m:LabelSelector"), 3: ("template", "m:PodTemplateSpec"),
                       4: ("strategy", "m:DeploymentStrategy"), 5: ("minReadySeconds", "i"),
                       6: ("revisionHistoryLimit", "i!"), 7: ("paused", "b"), 9: ("progressDeadlineSeconds", "i!")},
    "DeploymentStrategy": {1: ("type", "s"), 2: ("rollingUpdate", "m:RollingUpdate")},
    "RollingUpdate": {1: ("maxUnavailable", "ios!"), 2: ("maxSurge", "ios!")},
    "DaemonSet": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:DaemonSetSpec"), 3: ("status", SKIP)},
    "DaemonSetSpec": {1: ("selector", "m:LabelSelector"), 2: ("template", "m:PodTemplateSpec"),
                      3: ("updateStrategy", "m:DeploymentStrategy"), 4: ("minReadySeconds", "i"),
                      6: ("revisionHistoryLimit", "i!")},
    "Job": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:JobSpec"), 3: ("status", SKIP)},
    "JobSpec": {1: ("parallelism", "i!"), 2: ("completions", "i!"), 3: ("activeDeadlineSeconds", "i!"),
                4: ("selector", "m:LabelSelector"), 5: ("manualSelector", "b!"), 6: ("template", "m:PodTemplateSpec"),
                7: ("backoffLimit", "i!"), 8: ("ttlSecondsAfterFinished", "i!"), 9: ("completionMode", "s!"),
                10: ("suspend", "b!"), 12: ("backoffLimitPerIndex", "i!"), 13: ("maxFailedIndexes", "i!"),
                14: ("podReplacementPolicy", "s!"), 15: ("managedBy", "s!")},
    "Service": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:ServiceSpec"), 3: ("status", SKIP)},
    "ServiceSpec": {1: ("ports", "m:ServicePort*"), 2: ("selector", "ms"), 3: ("clusterIP", "s"), 4: ("type", "s"),
                    5: ("externalIPs", "s*"), 7: ("sessionAffinity", "s"), 8: ("loadBalancerIP", "s"),
                    9: ("loadBalancerSourceRanges", "s*"), 10: ("externalName", "s"),
                    11: ("externalTrafficPolicy", "s"), 12: ("healthCheckNodePort", "i"),
                    13: ("publishNotReadyAddresses", "b"), 17: ("ipFamilyPolicy", "s!"), 18: ("clusterIPs", "s*"),
                    19: ("ipFamilies", "s*"), 20: ("allocateLoadBalancerNodePorts", "b!"),
                    21: ("loadBalancerClass", "s!"), 22: ("internalTrafficPolicy", "s!")},
    "ServicePort": {1: ("name", "s"), 2: ("protocol", "s"), 3: ("port", "i"), 4: ("targetPort", "ios"),
                    5: ("nodePort", "i"), 6: ("appProtocol", "s!")},
    "Lease": {1: ("metadata", "m:ObjectMeta"), 2: ("spec", "m:LeaseSpec")},
    "LeaseSpec": {1: ("holderIdentity", "s!"), 2: ("leaseDurationSeconds", "i!"), 3: ("acquireTime", "mt!"),
                  4: ("renewTime", "mt!"), 5: ("leaseTransitions", "i!")},
}
KINDS = ("Namespace", "Pod", "Deployment", "DaemonSet", "Job", "Service", "Lease")


def _unsupported(why: str) -> errors.ApiError:
    return errors.UnsupportedMediaType(
        f"the protobuf body could not be read ({why}); send the object as application/json")


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(data):
            raise _unsupported("truncated varint")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i
        if shift > 70:
            raise _unsupported("varint too long")


def fields(data: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of one message: ints for varints, bytes otherwise."""
    out, i = [], 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            length, i = _varint(data, i)
            if i + length > len(data):
                raise _unsupported("truncated field")
            value, i = data[i:i + length], i + length
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise _unsupported(f"wire type {wire}")
        out.append((number, wire, value))
    return out


def _int(value: object) -> int:
    if not isinstance(value, int):
        raise _unsupported("expected an integer")
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value: object) -> str:
    if not isinstance(value, bytes):
        raise _unsupported("expected a length-delimited field")
    return value.decode("utf-8")


def _time(value: bytes, micro: bool = False) -> str | None:
    parts = {n: _int(v) for n, _, v in fields(value)}
    seconds, nanos = parts.get(1, 0), parts.get(2, 0)
    if not seconds and not nanos:
        return None
    return timefmt.rfc3339_micro(seconds + nanos / 1e9) if micro else timefmt.rfc3339(seconds)


def _map(value: bytes, quantity: bool) -> tuple[str, str]:
    entry = {n: v for n, _, v in fields(value)}
    key = _text(entry.get(1, b""))
    raw = entry.get(2, b"")
    if quantity:
        raw = {n: v for n, _, v in fields(raw)}.get(1, b"")
    return key, _text(raw)


def _int_or_string(value: bytes) -> int | str:
    parts = {n: v for n, _, v in fields(value)}
    if _int(parts.get(1, 0)) == 1:
        return _text(parts.get(3, b""))
    return _int(parts.get(2, 0))


def _scalar(kind: str, value: object) -> object:
    if kind == "s":
        return _text(value)
    if kind == "i":
        return _int(value)
    if kind == "b":
        return bool(_int(value))
    if kind == "t":
        return _time(value)
    if kind == "mt":
        return _time(value, micro=True)
    if kind == "ios":
        return _int_or_string(value)
    if kind == "bytes":
        return value
    raise _unsupported(f"unknown field type {kind}")


def _empty(value: object) -> bool:
    return value is None or value == "" or value == 0 or value is False or value == {} or value == []


def decode_message(message: str, data: bytes) -> dict:
    """One message in JSON form, following ``SCHEMA[message]``."""
    schema = SCHEMA[message]
    out: dict = {}
    for number, _wire, value in fields(data):
        if number not in schema:
            raise _unsupported(f"{message} field {number} is not supported by this server")
        name, kind = schema[number]
        if kind == SKIP:
            continue
        repeated, keep_zero = kind.endswith("*"), kind.endswith("!")
        base = kind.rstrip("*!")
        if base in ("ms", "mq"):
            key, text = _map(value, base == "mq")
            out.setdefault(name, {})[key] = text
            continue
        item = decode_message(base[2:], value) if base.startswith("m:") else _scalar(base, value)
        if repeated:
            out.setdefault(name, []).append(item)
        elif keep_zero or not _empty(item):
            out[name] = item
    return out


def decode_object(data: bytes) -> dict:
    """The JSON form of a protobuf-encoded object (``k8s\\0`` + runtime.Unknown)."""
    if not data.startswith(MAGIC):
        raise _unsupported("the body does not start with the Kubernetes protobuf prefix")
    envelope = decode_message("Unknown", data[len(MAGIC):])
    type_meta = envelope.get("typeMeta") or {}
    kind = type_meta.get("kind", "")
    if kind not in KINDS:
        raise _unsupported(f"kind {kind!r} is not readable as protobuf here")
    if envelope.get("contentEncoding"):
        raise _unsupported(f"content encoding {envelope['contentEncoding']!r}")
    obj = {"apiVersion": type_meta.get("apiVersion", ""), "kind": kind}
    obj.update(decode_message(kind, envelope.get("raw") or b""))
    return obj
