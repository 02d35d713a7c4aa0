"""OpenAPI documents generated from the resource registry and the committed JSON Schemas.

- ``GET /openapi/v3``: the index, ``{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}}}``.
- ``GET /openapi/v3/api/v1``, ``/openapi/v3/apis/GROUP/VERSION``: one OpenAPI 3.0 document per group
  version. Every operation carries ``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``;
  write operations declare the ``fieldValidation`` query parameter, which is what kubectl 1.28+
  checks before it sends ``create``/``apply`` with server-side validation. Component schemas are the
  JSON Schemas under ``spec/schemas`` converted to OpenAPI 3.0 (``anyOf [X, null]`` → ``nullable``,
  ``const`` → one-value ``enum``, ``$defs`` refs → ``#/components/schemas``).
- ``GET /openapi/v2`` (and ``/swagger-2.0.0.pb-v1``): a small gnostic ``openapi_v2.Document`` in
  protobuf, ``Content-Type: application/octet-stream`` — the only form kubectl 1.27 reads. It holds
  the PATCH operation of every writable resource with its GVK extension and ``fieldValidation``
  parameter, and no definitions.

PATCH request bodies deliberately do not list ``application/strategic-merge-patch+json``: kubectl
computes a client-side apply patch from a server's schema when that type is listed, and our schemas
describe only the fields kube32 uses (they allow any other field), which would make kubectl warn
and fall back. Without it kubectl builds the patch from its compiled-in Kubernetes types, exactly as
against a real cluster; the server still accepts strategic merge patches.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from importlib import resources as importlib_resources

from flask import Blueprint, Response, jsonify, request

from kube32.reference import errors
from kube32.reference.api import discovery
from kube32.reference.resources import RESOURCES, Resource, group_versions

bp = Blueprint("openapi", __name__)

OPENAPI_VERSION = "3.0.0"
PROTOBUF_MEDIA_TYPE = "application/octet-stream"
PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml")
SCALE_GVK = {"group": "autoscaling", "version": "v1", "kind": "Scale"}
STATUS_SCHEMA = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"

_GROUP_PACKAGES = {"": "core", "coordination.k8s.io": "coordination", "discovery.k8s.io": "discovery"}


# -- component schemas -----------------------------------------------------------------------
def schema_name(api_version: str, kind: str) -> str:
    """Upstream definition names: ``io.k8s.api.core.v1.Pod``, ``io.k8s.api.apps.v1.Deployment``."""
    if kind == "Status":
        return STATUS_SCHEMA
    group, _, version = api_version.rpartition("/")
    return f"io.k8s.api.{_GROUP_PACKAGES.get(group, group)}.{version}.{kind}"


@functools.cache
def json_schemas() -> dict[tuple[str, str], dict]:
    """(apiVersion, kind) -> the committed JSON Schema (read-only; owned by spec/)."""
    out = {}
    for entry in (importlib_resources.files("kube32.spec") / "schemas").iterdir():
        if entry.name.endswith(".json"):
            schema = json.loads(entry.read_text(encoding="utf-8"))
            gvk = schema.get("x-kubernetes-group-version-kind") or {}
            if gvk.get("kind"):
                out[(gvk["apiVersion"], gvk["kind"])] = schema
    return out


def to_openapi3(node: object, refs: dict[str, str]) -> object:
    """One JSON Schema (2020-12) node as an OpenAPI 3.0 schema object."""
    if isinstance(node, list):
        return [to_openapi3(n, refs) for n in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    for key in ("$schema", "$id", "$defs", "x-kubernetes-group-version-kind"):
        node.pop(key, None)
    options = node.pop("anyOf", None)
    if isinstance(options, list):
        rest = [o for o in options if o != {"type": "null"}]
        if len(rest) < len(options):
            node["nullable"] = True
        if len(rest) == 1 and "$ref" in rest[0]:
            node["allOf"] = rest
        elif len(rest) == 1:
            node.update(rest[0])
        elif rest:
            node["anyOf"] = rest
    if "default" in node and node["default"] is None:
        node.pop("default")
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if "$ref" in node:
        target = refs.get(node["$ref"].rpartition("/")[2], node["$ref"])
        node["$ref"] = f"#/components/schemas/{target}"
    return {k: to_openapi3(v, refs) for k, v in node.items()}


def component_schemas(kinds: list[tuple[str, str]]) -> dict[str, dict]:
    """Schemas for the given (apiVersion, kind)s and everything they refer to. Shared definitions
    (ObjectMeta, PodSpec …) appear once; a name defined differently by two kinds is prefixed."""
    out: dict[str, dict] = {}
    by_kind = json_schemas()
    for api_version, kind in kinds:
        schema = by_kind.get((api_version, kind))
        if schema is None:
            continue
        top = schema_name(api_version, kind)
        prefix = top.rpartition(".")[0]
        defs = schema.get("$defs") or {}
        refs = {name: f"{prefix}.{name}" for name in defs}
        for name, body in defs.items():
            if not _same(out.get(refs[name]), to_openapi3(body, refs)):
                refs[name] = f"{top}.{name}"
        for name, body in defs.items():
            out.setdefault(refs[name], to_openapi3(body, refs))
        converted = to_openapi3(schema, refs)
        converted["x-kubernetes-group-version-kind"] = [_gvk_of(api_version, kind)]
        out[top] = converted
    return out


def _same(existing: dict | None, candidate: dict) -> bool:
    """True when ``existing`` is absent or equals ``candidate`` (ignoring the GVK extension)."""
    if existing is None:
        return True
    return {k: v for k, v in existing.items() if k != "x-kubernetes-group-version-kind"} == candidate


def _gvk_of(api_version: str, kind: str) -> dict:
    group, _, version = api_version.rpartition("/")
    return {"group": group, "kind": kind, "version": version}


# -- paths -----------------------------------------------------------------------------------
def _param(name: str, where: str = "query", type_: str = "string", required: bool = False,
           description: str = "") -> dict:
    p = {"name": name, "in": where, "schema": {"type": type_}, "uniqueItems": True}
    if required:
        p["required"] = True
    if description:
        p["description"] = description
    return p


WRITE_PARAMS = [
    _param("dryRun", description="When present, indicates that modifications should not be persisted."),
    _param("fieldManager", description="A name associated with the actor or entity that is making these changes."),
    _param("fieldValidation", description="Ignore, Warn or Strict: how the server treats unknown or duplicate "
                                          "fields in the request body."),
]
LIST_PARAMS = [
    _param("labelSelector"), _param("fieldSelector"), _param("resourceVersion"),
    _param("timeoutSeconds", type_="integer"), _param("watch", type_="boolean"),
    _param("allowWatchBookmarks", type_="boolean"), _param("limit", type_="integer"), _param("continue"),
]
DELETE_PARAMS = [_param("dryRun"), _param("gracePeriodSeconds", type_="integer"), _param("propagationPolicy")]


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _responses(schema: str, *codes: str) -> dict:
    out = {code: {"description": {"200": "OK", "201": "Created", "202": "Accepted"}[code],
                  "content": {"application/json": {"schema": _ref(schema)},
                              "application/yaml": {"schema": _ref(schema)}}} for code in codes}
    out["default"] = {"description": "a Status describing the error",
                      "content": {"application/json": {"schema": _ref(STATUS_SCHEMA)}}}
    return out


def _body(schema: str, media_types: tuple[str, ...]) -> dict:
    return {"required": True, "content": {m: {"schema": _ref(schema)} for m in media_types}}


def _op_id(action: str, r: Resource, namespaced: bool, sub: str = "") -> str:
    group = "".join(p.capitalize() for p in (r.group or "core").replace(".k8s.io", "").split("."))
    scope = "Namespaced" if namespaced else ""
    suffix = sub.capitalize()
    return f"{action}{group}{r.version.capitalize()}{scope}{r.kind}{suffix}"


def _operation(action: str, r: Resource, gvk: dict, namespaced: bool, sub: str = "", **extra) -> dict:
    verb = {"list": "list", "post": "create", "get": "read", "put": "replace", "patch": "patch",
            "delete": "delete", "deletecollection": "deletecollection"}[action]
    op = {"operationId": _op_id(verb, r, namespaced, sub) if action != "list" or namespaced
          else _op_id(verb, r, False, sub) + ("ForAllNamespaces" if r.namespaced else ""),
          "tags": [r.group_version.replace("/", "_")],
          "x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk}
    op.update(extra)
    return op


def resource_paths(r: Resource) -> dict[str, dict]:
    """The OpenAPI path items of one resource (collection, item, subresources, all-namespaces list)."""
    root = f"/apis/{r.group}/{r.version}" if r.group else "/api/v1"
    gvk = {"group": r.group, "version": r.version, "kind": r.kind}
    schema, list_schema = schema_name(r.api_version, r.kind), schema_name(r.api_version, r.list_kind)
    scope = [_param("namespace", "path", required=True)] if r.namespaced else []
    base = f"{root}/namespaces/{{namespace}}/{r.plural}" if r.namespaced else f"{root}/{r.plural}"
    ns = r.namespaced
    paths: dict[str, dict] = {}
    collection = {"parameters": scope,
                  "get": _operation("list", r, gvk, ns, parameters=LIST_PARAMS,
                                    responses=_responses(list_schema, "200"))}
    item = {"parameters": scope + [_param("name", "path", required=True)],
            "get": _operation("get", r, gvk, ns, responses=_responses(schema, "200"))}
    if not r.read_only:
        collection["post"] = _operation("post", r, gvk, ns, parameters=WRITE_PARAMS,
                                        requestBody=_body(schema, ("application/json", "application/yaml")),
                                        responses=_responses(schema, "200", "201", "202"))
        # what the server answers (as a real kube-apiserver does): the list of what was deleted
        collection["delete"] = _operation("deletecollection", r, gvk, ns, parameters=LIST_PARAMS + DELETE_PARAMS,
                                          responses=_responses(list_schema, "200"))
        item["put"] = _operation("put", r, gvk, ns, parameters=WRITE_PARAMS,
                                 requestBody=_body(schema, ("application/json", "application/yaml")),
                                 responses=_responses(schema, "200", "201"))
        item["patch"] = _operation("patch", r, gvk, ns, parameters=WRITE_PARAMS + [_param("force", type_="boolean")],
                                   requestBody=_body(schema, PATCH_TYPES),
                                   responses=_responses(schema, "200", "201"))
        item["delete"] = _operation("delete", r, gvk, ns, parameters=DELETE_PARAMS,
                                    responses=_responses(schema, "200", "202"))
    paths[base] = collection
    paths[f"{base}/{{name}}"] = item
    for sub in r.subresources:
        sub_gvk, sub_schema = (SCALE_GVK, schema_name("autoscaling/v1", "Scale")) if sub == "scale" else (gvk, schema)
        paths[f"{base}/{{name}}/{sub}"] = {
            "parameters": scope + [_param("name", "path", required=True)],
            "get": _operation("get", r, sub_gvk, ns, sub, responses=_responses(sub_schema, "200")),
            "put": _operation("put", r, sub_gvk, ns, sub, parameters=WRITE_PARAMS,
                              requestBody=_body(sub_schema, ("application/json", "application/yaml")),
                              responses=_responses(sub_schema, "200", "201")),
            "patch": _operation("patch", r, sub_gvk, ns, sub, parameters=WRITE_PARAMS + [_param("force", type_="boolean")],
                                requestBody=_body(sub_schema, PATCH_TYPES),
                                responses=_responses(sub_schema, "200", "201")),
        }
    if r.namespaced:
        paths[f"{root}/{r.plural}"] = {"get": _operation("list", r, gvk, False, parameters=LIST_PARAMS,
                                                         responses=_responses(list_schema, "200"))}
    return paths


def gv_key(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


@functools.cache
def document(group: str, version: str) -> dict:
    """The OpenAPI 3.0 document of one group version."""
    members = [r for r in RESOURCES if (r.group, r.version) == (group, version)]
    paths: dict[str, dict] = {}
    kinds: list[tuple[str, str]] = [("v1", "Status")]
    for r in members:
        paths.update(resource_paths(r))
        kinds += [(r.api_version, r.kind), (r.api_version, r.list_kind)]
        if "scale" in r.subresources:
            kinds.append(("autoscaling/v1", "Scale"))
    info_version = discovery.KUBERNETES_VERSION["gitVersion"]
    return {"openapi": OPENAPI_VERSION,
            "info": {"title": "kube32", "version": info_version},
            "paths": paths,
            "components": {"schemas": component_schemas(kinds)}}


@functools.cache
def _document_text(group: str, version: str) -> str:
    return json.dumps(document(group, version), sort_keys=True, separators=(",", ":"))


def document_hash(group: str, version: str) -> str:
    return hashlib.sha512(_document_text(group, version).encode()).hexdigest().upper()


def index() -> dict:
    return {"paths": {gv_key(g, v): {"serverRelativeURL": f"/openapi/v3/{gv_key(g, v)}?hash={document_hash(g, v)}"}
                      for g, v in group_versions()}}


@bp.route("/openapi/v3")
@bp.route("/openapi/v3/")
def v3_index():
    return jsonify(index())


def _v3_response(group: str, version: str) -> Response:
    if (group, version) not in group_versions():
        raise errors.NotFound("the server could not find the requested resource")
    resp = Response(_document_text(group, version), content_type="application/json")
    if request.args.get("hash") == document_hash(group, version):
        resp.headers["Cache-Control"] = "public, immutable"
    return resp


@bp.route("/openapi/v3/api/<version>")
def v3_core(version: str):
    return _v3_response("", version)


@bp.route("/openapi/v3/apis/<group>/<version>")
def v3_group(group: str, version: str):
    return _v3_response(group, version)


# -- OpenAPI v2 as gnostic protobuf ----------------------------------------------------------
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def pb_bytes(field: int, payload: bytes | str) -> bytes:
    """A length-delimited protobuf field (strings, nested messages)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


# Field numbers from gnostic openapiv2/OpenAPIv2.proto.
def _pb_query_parameter(name: str) -> bytes:
    query = pb_bytes(2, "query") + pb_bytes(4, name) + pb_bytes(6, "string")   # QueryParameterSubSchema
    non_body = pb_bytes(3, query)                                              # NonBodyParameter.query
    parameter = pb_bytes(2, non_body)                                          # Parameter.non_body
    return pb_bytes(1, parameter)                                              # ParametersItem.parameter


def _pb_gvk_extension(gvk: dict) -> bytes:
    text = f'group: "{gvk["group"]}"\nkind: {gvk["kind"]}\nversion: {gvk["version"]}\n'
    return pb_bytes(1, "x-kubernetes-group-version-kind") + pb_bytes(2, pb_bytes(2, text))   # NamedAny{Any.yaml}


def _pb_patch_operation(op_id: str, gvk: dict) -> bytes:
    ok = pb_bytes(1, "200") + pb_bytes(2, pb_bytes(1, pb_bytes(1, "OK")))     # NamedResponseValue
    op = pb_bytes(5, op_id)                                                    # Operation.operation_id
    for name in ("dryRun", "fieldManager", "fieldValidation", "force"):
        op += pb_bytes(8, _pb_query_parameter(name))                          # Operation.parameters
    op += pb_bytes(9, pb_bytes(1, ok))                                         # Operation.responses
    op += pb_bytes(13, _pb_gvk_extension(gvk))                                 # Operation.vendor_extension
    return op


def v2_patch_paths() -> list[tuple[str, str, dict]]:
    """(path, operationId, GVK) of every PATCH operation the v2 document lists."""
    out = []
    for r in RESOURCES:
        if r.read_only:
            continue
        for path, item in resource_paths(r).items():
            patch = item.get("patch")
            if patch is not None:
                out.append((path, patch["operationId"], patch["x-kubernetes-group-version-kind"]))
    return out


@functools.cache
def v2_protobuf() -> bytes:
    info = pb_bytes(1, "kube32") + pb_bytes(2, discovery.KUBERNETES_VERSION["gitVersion"])
    paths = b""
    for path, op_id, gvk in v2_patch_paths():
        path_item = pb_bytes(8, _pb_patch_operation(op_id, gvk))              # PathItem.patch
        paths += pb_bytes(2, pb_bytes(1, path) + pb_bytes(2, path_item))      # Paths.path: NamedPathItem
    return pb_bytes(1, "2.0") + pb_bytes(2, info) + pb_bytes(8, paths)        # Document


@bp.route("/openapi/v2")
@bp.route("/swagger-2.0.0.pb-v1")
def v2():
    return Response(v2_protobuf(), content_type=PROTOBUF_MEDIA_TYPE)


def copy_document(group: str, version: str) -> dict:
    """A mutable copy of a group version's document (for tests and fuzzers)."""
    return copy.deepcopy(document(group, version))
