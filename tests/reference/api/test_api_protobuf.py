"""Protobuf request bodies: what kubectl 1.33's ``create`` generators send (recorded in
protobuf_bodies/: N.pb the body, N.json the same object from ``--dry-run=client -o json``) decodes to
that JSON, and the API stores it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_helpers import assert_status

from kube32.reference import errors
from kube32.reference.api import openapi
from kube32.reference.machinery import protobuf
from kube32.reference.resources import BY_KIND

BODIES = Path(__file__).resolve().parent / "protobuf_bodies"
CASES = sorted(int(p.stem) for p in BODIES.glob("*.pb"))
PROTOBUF = "application/vnd.kubernetes.protobuf"


def command(n: int) -> str:
    for line in (BODIES / "commands.txt").read_text().splitlines():
        if line.split(" ", 1)[0] == str(n):
            return line.split(" ", 1)[1]
    return "?"


def prune(x):
    """Drop what Go's JSON shows but a protobuf body cannot tell apart from absent (null, {}, [])."""
    if isinstance(x, dict):
        out = {k: prune(v) for k, v in x.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(x, list):
        return [prune(v) for v in x]
    return x


@pytest.mark.parametrize("n", CASES, ids=lambda n: command(n))
def test_decodes_to_what_kubectl_would_send_as_json(n):
    decoded = protobuf.decode_object((BODIES / f"{n}.pb").read_bytes())
    expected = prune(json.loads((BODIES / f"{n}.json").read_text()))
    expected.pop("status", None)
    assert prune(decoded) == expected


def test_zero_replicas_is_kept_because_the_go_field_is_a_pointer():
    decoded = protobuf.decode_object((BODIES / "3.pb").read_bytes())
    assert decoded["spec"]["replicas"] == 0
    assert "minReadySeconds" not in decoded["spec"]            # a non-pointer zero: omitted as in JSON


@pytest.mark.parametrize("n", CASES, ids=lambda n: command(n))
def test_the_api_creates_it(api, n):
    body = (BODIES / f"{n}.pb").read_bytes()
    obj = protobuf.decode_object(body)
    r = BY_KIND[(obj["apiVersion"], obj["kind"])]
    resp = api.post(r.base_path("default"), raw=body, content_type=PROTOBUF)
    assert resp.status_code == 201, resp.json
    assert resp.mimetype == "application/json"
    assert resp.json["metadata"]["name"] == obj["metadata"]["name"]


def test_unknown_fields_and_garbage_are_refused_and_change_nothing(api):
    before = api.rv
    body = assert_status(api.post("/api/v1/namespaces", raw=b"k8s\x00\xff", content_type=PROTOBUF),
                         415, "UnsupportedMediaType")
    assert "send the object as application/json" in body["message"]
    assert_status(api.post("/api/v1/namespaces", raw=b"{}", content_type=PROTOBUF), 415, "UnsupportedMediaType")
    # an ObjectMeta field the k8s.io/apimachinery descriptors do not know (as from a newer Kubernetes)
    meta = protobuf_field(1, b"x") + protobuf_field(99, b"")
    ns = protobuf_field(1, meta)
    envelope = protobuf_field(1, protobuf_field(1, b"v1") + protobuf_field(2, b"Namespace")) + protobuf_field(2, ns)
    with pytest.raises(errors.UnsupportedMediaType) as exc:
        protobuf.decode_object(protobuf.MAGIC + envelope)
    assert "ObjectMeta field 99" in exc.value.message
    assert api.rv == before


def test_status_writes_refuse_protobuf(api):
    api.post("/api/v1/namespaces/default/services", raw=(BODIES / "4.pb").read_bytes(), content_type=PROTOBUF)
    before = api.rv
    assert_status(api.put("/api/v1/namespaces/default/services/cs/status", raw=(BODIES / "4.pb").read_bytes(),
                          content_type=PROTOBUF), 415, "UnsupportedMediaType")
    assert api.rv == before


def protobuf_field(number: int, payload: bytes) -> bytes:
    return openapi.pb_bytes(number, payload)


def envelope(api_version: str, kind: str, obj) -> bytes:
    unknown = protobuf.message_class("k8s.io.apimachinery.pkg.runtime.Unknown")()
    unknown.typeMeta.apiVersion, unknown.typeMeta.kind = api_version, kind
    unknown.raw = obj.SerializeToString()
    return protobuf.MAGIC + unknown.SerializeToString()


def test_apimachinery_types_take_their_json_forms_and_pointer_zeros_stay():
    pod = protobuf.message_class("k8s.io.api.core.v1.Pod")()
    pod.metadata.name = "p"
    pod.metadata.creationTimestamp.seconds = 1_800_000_000
    pod.metadata.labels["app"] = "web"
    pod.spec.terminationGracePeriodSeconds = 0      # *int64: a zero that means something
    pod.spec.hostNetwork = False                    # bool: gogo writes it, Go's JSON omits it
    pod.spec.nodeSelector["board"] = "s3"
    container = pod.spec.containers.add(name="c", image="x:1")
    container.resources.requests["memory"].string = "64Ki"
    container.ports.add(containerPort=80)
    toleration = pod.spec.tolerations.add(key="k", operator="Exists")
    toleration.tolerationSeconds = 0
    pod.status.phase = "Running"                    # dropped: the server resets status
    decoded = protobuf.decode_object(envelope("v1", "Pod", pod))
    assert decoded == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "creationTimestamp": "2027-01-15T08:00:00Z", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "x:1", "ports": [{"containerPort": 80}],
                                 "resources": {"requests": {"memory": "64Ki"}}}],
                 "terminationGracePeriodSeconds": 0, "nodeSelector": {"board": "s3"},
                 "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": 0}]}}


def test_int_or_string_and_micro_time():
    svc = protobuf.message_class("k8s.io.api.core.v1.Service")()
    svc.metadata.name = "s"
    port = svc.spec.ports.add(port=80)
    port.targetPort.type, port.targetPort.strVal = 1, "http"
    assert protobuf.decode_object(envelope("v1", "Service", svc))["spec"]["ports"] == [
        {"port": 80, "targetPort": "http"}]
    lease = protobuf.message_class("k8s.io.api.coordination.v1.Lease")()
    lease.metadata.name = "node-a"
    lease.spec.renewTime.seconds, lease.spec.renewTime.nanos = 1_800_000_000, 250_000_000
    lease.spec.leaseDurationSeconds = 0
    assert protobuf.decode_object(envelope("coordination.k8s.io/v1", "Lease", lease))["spec"] == {
        "leaseDurationSeconds": 0, "renewTime": "2027-01-15T08:00:00.250000Z"}


def test_every_pointer_field_names_a_field_of_the_descriptors():
    pool = protobuf._pool()
    packages = ("k8s.io.api.core.v1.", "k8s.io.api.apps.v1.", "k8s.io.api.batch.v1.", "k8s.io.api.coordination.v1.",
                protobuf.META)
    for message, names in protobuf.POINTERS.items():
        fields = set()
        for package in packages:
            try:
                fields |= set(pool.FindMessageTypeByName(package + message).fields_by_name)
            except KeyError:
                continue
        assert fields and names <= fields, (message, names - fields)
