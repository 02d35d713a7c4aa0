"""Discovery and OpenAPI: what kubectl reads before get, create and apply."""

from __future__ import annotations

import yaml

from kube32.reference.api import openapi
from kube32.reference.resources import RESOURCES

GVS = ["api/v1", "apis/apps/v1", "apis/batch/v1", "apis/coordination.k8s.io/v1", "apis/discovery.k8s.io/v1"]


def test_version_names_a_minor_the_dispatcher_knows(api):
    body = api.get("/version").json
    assert body["major"] == "1" and 27 <= int(body["minor"]) <= 33


def test_api_and_apis(api):
    assert api.get("/api").json["versions"] == ["v1"]
    groups = api.get("/apis").json
    assert groups["kind"] == "APIGroupList"
    assert [g["name"] for g in groups["groups"]] == ["apps", "batch", "coordination.k8s.io", "discovery.k8s.io"]
    assert groups["groups"][0]["preferredVersion"] == {"groupVersion": "apps/v1", "version": "v1"}


def test_aggregated_discovery_accept_gets_legacy_json(api):
    """Only legacy discovery is served: the aggregated Accept is answered with APIGroupList (which
    every kubectl 1.27-1.33 understands), never with a mismatched aggregated type."""
    accept = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
              "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")
    resp = api.get("/apis", headers={"Accept": accept})
    assert resp.headers["Content-Type"] == "application/json" and resp.json["kind"] == "APIGroupList"


def test_resource_lists(api):
    core = {r["name"]: r for r in api.get("/api/v1").json["resources"]}
    assert core["pods"]["shortNames"] == ["po"] and core["pods"]["categories"] == ["all"]
    assert core["pods"]["namespaced"] is True and core["nodes"]["namespaced"] is False
    assert "pods/status" in core and "nodes/status" in core
    assert core["endpoints"]["verbs"] == ["get", "list", "watch"]
    assert "deletecollection" in core["pods"]["verbs"]
    apps = {r["name"]: r for r in api.get("/apis/apps/v1").json["resources"]}
    assert apps["deployments"]["shortNames"] == ["deploy"]
    assert apps["deployments/scale"]["group"] == "autoscaling" and apps["deployments/scale"]["kind"] == "Scale"
    assert apps["daemonsets"]["shortNames"] == ["ds"]
    assert api.get("/apis/example.com/v1").status_code == 404


def test_v3_index_lists_every_group_version(api):
    paths = api.get("/openapi/v3").json["paths"]
    assert sorted(paths) == sorted(GVS)
    for key, entry in paths.items():
        url = entry["serverRelativeURL"]
        assert url.startswith(f"/openapi/v3/{key}?hash=")
        assert api.get(url).status_code == 200


def test_every_writable_kind_has_a_patch_operation_with_field_validation(api):
    for r in RESOURCES:
        doc = api.get(f"/openapi/v3/{'apis/' + r.group if r.group else 'api'}/{r.version}").json
        assert doc["openapi"].startswith("3.0")
        patches = [(path, item["patch"]) for path, item in doc["paths"].items() if "patch" in item]
        mine = [(p, op) for p, op in patches if op["x-kubernetes-group-version-kind"] ==
                {"group": r.group, "version": r.version, "kind": r.kind}]
        if r.read_only:
            assert mine == [], r.kind
            continue
        assert mine, f"no PATCH operation for {r.kind}"
        for _path, op in mine:
            assert "fieldValidation" in [p["name"] for p in op["parameters"]]
            assert op["x-kubernetes-action"] == "patch"


def test_scale_subresource_is_declared_as_autoscaling_scale(api):
    doc = api.get("/openapi/v3/apis/apps/v1").json
    op = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["patch"]
    assert op["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}


def test_component_schemas_come_from_the_json_schemas_and_every_ref_resolves(api):
    for gv in GVS:
        doc = api.get(f"/openapi/v3/{gv}").json
        schemas = doc["components"]["schemas"]
        text = str(doc)
        assert "$defs" not in text and "'const'" not in text
        for ref in _refs(doc):
            assert ref.startswith("#/components/schemas/"), ref
            assert ref.rpartition("/")[2] in schemas, f"{gv}: dangling {ref}"
    core = api.get("/openapi/v3/api/v1").json["components"]["schemas"]
    pod = core["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["kind"]["enum"] == ["Pod"]
    assert pod["properties"]["spec"]["nullable"] is True
    container = core["io.k8s.api.core.v1.Container"]
    assert container["required"] == ["name"]


def _refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def test_unknown_group_version_document_is_not_found(api):
    assert api.get("/openapi/v3/apis/example.com/v1").status_code == 404


# -- v2 protobuf -----------------------------------------------------------------------------
def _decode(data: bytes) -> list[tuple[int, bytes]]:
    """A minimal protobuf reader: (field number, payload) of length-delimited fields."""
    out, i = [], 0
    while i < len(data):
        key, i = _varint(data, i)
        assert key & 7 == 2, f"unexpected wire type {key & 7}"
        length, i = _varint(data, i)
        out.append((key >> 3, data[i:i + length]))
        i += length
    return out


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def _field(msg: bytes, number: int) -> list[bytes]:
    return [payload for n, payload in _decode(msg) if n == number]


def test_v2_is_gnostic_protobuf_served_as_octet_stream(api):
    resp = api.get("/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/octet-stream"
    doc = resp.data
    assert _field(doc, 1) == [b"2.0"]
    (paths,) = _field(doc, 8)
    found = {}
    for named in _field(paths, 2):
        name = _field(named, 1)[0].decode()
        (item,) = _field(named, 2)
        (patch,) = _field(item, 8)
        params = []
        for pi in _field(patch, 8):
            query = _field(_field(_field(pi, 1)[0], 2)[0], 3)[0]
            params.append(_field(query, 4)[0].decode())
            assert _field(query, 2) == [b"query"]
        (ext,) = _field(patch, 13)
        assert _field(ext, 1) == [b"x-kubernetes-group-version-kind"]
        gvk = yaml.safe_load(_field(_field(ext, 2)[0], 2)[0].decode())
        found[name] = (gvk, params)
    gvk, params = found["/api/v1/namespaces/{namespace}/pods/{name}"]
    assert gvk == {"group": "", "kind": "Pod", "version": "v1"}
    assert "fieldValidation" in params
    assert found["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"][0]["kind"] == "Deployment"
    assert not any("endpoints" in p for p in found)
    assert api.get("/swagger-2.0.0.pb-v1").data == doc


def test_openapi_document_is_generated_from_the_registry():
    doc = openapi.copy_document("batch", "v1")
    assert "/apis/batch/v1/namespaces/{namespace}/jobs/{name}/status" in doc["paths"]
    assert "/apis/batch/v1/jobs" in doc["paths"]


def test_documents_are_well_formed_for_fuzzers(api):
    """What OpenAPI tools need: unique operationIds, every {param} of a path declared as a required
    path parameter, responses on every operation, parameters with name/in/schema."""
    import re
    for gv in GVS:
        doc = api.get(f"/openapi/v3/{gv}").json
        ids = []
        for path, item in doc["paths"].items():
            declared = {p["name"] for p in item.get("parameters", []) if p["in"] == "path"}
            assert declared == set(re.findall(r"{(\w+)}", path)), path
            assert all(p.get("required") for p in item.get("parameters", []) if p["in"] == "path")
            for method, op in item.items():
                if method == "parameters":
                    continue
                assert method in ("get", "put", "post", "patch", "delete"), method
                ids.append(op["operationId"])
                assert op["responses"], (path, method)
                for p in op.get("parameters", []):
                    assert {"name", "in", "schema"} <= set(p), (path, method, p)
        assert len(ids) == len(set(ids)), f"{gv}: duplicate operationIds"
