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
    # an ObjectMeta field this server does not read (field 17, managedFields)
    meta = protobuf_field(1, b"x") + protobuf_field(17, b"")
    ns = protobuf_field(1, meta)
    envelope = protobuf_field(1, protobuf_field(1, b"v1") + protobuf_field(2, b"Namespace")) + protobuf_field(2, ns)
    with pytest.raises(errors.UnsupportedMediaType) as exc:
        protobuf.decode_object(protobuf.MAGIC + envelope)
    assert "ObjectMeta field 17" in exc.value.message
    assert api.rv == before


def test_status_writes_refuse_protobuf(api):
    api.post("/api/v1/namespaces/default/services", raw=(BODIES / "4.pb").read_bytes(), content_type=PROTOBUF)
    before = api.rv
    assert_status(api.put("/api/v1/namespaces/default/services/cs/status", raw=(BODIES / "4.pb").read_bytes(),
                          content_type=PROTOBUF), 415, "UnsupportedMediaType")
    assert api.rv == before


def protobuf_field(number: int, payload: bytes) -> bytes:
    return openapi.pb_bytes(number, payload)
