"""Request bodies: size limit, JSON or YAML, patch media types — every failure a clear Status."""

from __future__ import annotations

import functools
import json

import yaml
from flask import request
from werkzeug.http import parse_options_header

from kube32.reference import errors
from kube32.reference.machinery import limits, protobuf
from kube32.reference.machinery import patch as patches
from kube32.spec import constants

JSON_TYPES = ("application/json", "application/yaml", "application/x-yaml", "text/yaml", "")


class _Loader(yaml.SafeLoader):
    """YAML as Kubernetes reads it into JSON: timestamps stay strings (no datetime objects), and
    only the tags JSON has (``!!set``, ``!!binary``, ``!!omap`` … are refused)."""


_JSON_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "str", "seq", "map")}
_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.yaml_constructors = {tag: fn for tag, fn in yaml.SafeLoader.yaml_constructors.items()
                             if tag in _JSON_TAGS or tag is None}


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def media_type() -> str:
    return (request.mimetype or "").lower()


@functools.lru_cache(maxsize=64)        # clients send a handful of distinct Content-Types
def media_type_of(content_type: str) -> str:
    """The media type of a Content-Type header, as ``media_type()`` reads the request's."""
    return parse_options_header(content_type)[0].lower()


def raw_body() -> bytes:
    length = request.content_length
    limit = constants.MAX_REQUEST_BODY_BYTES
    if length is not None and length > limit:
        raise errors.RequestEntityTooLarge(f"the request body is {length} bytes; the limit is {limit} bytes")
    data = request.stream.read(limit + 1)
    if len(data) > limit:
        raise errors.RequestEntityTooLarge(f"the request body exceeds the limit of {limit} bytes")
    return data


def decode(data: bytes, mtype: str) -> object:
    if not data.strip():
        raise errors.BadRequest("the request has no body; expected a JSON or YAML object")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.BadRequest(f"the request body is not UTF-8 text: {exc}") from exc
    if "yaml" in mtype:
        try:
            limits.check_flow_nesting(text)
        except limits.LimitError as exc:
            raise errors.BadRequest(f"the request body is not valid YAML: {exc}") from None
        try:
            docs = [d for d in yaml.load_all(text, Loader=_Loader) if d is not None]
        except yaml.YAMLError as exc:
            raise errors.BadRequest(f"the request body is not valid YAML: {exc}") from exc
        except RecursionError:
            raise errors.BadRequest(f"the request body is not valid YAML: it nests deeper than "
                                    f"{limits.MAX_NESTING_DEPTH} levels") from None
        if len(docs) != 1:
            raise errors.BadRequest(f"expected exactly one YAML document in the body, found {len(docs)}")
        doc = docs[0]
    else:
        try:
            doc = json.loads(text, parse_constant=_no_constants)
        except RecursionError:
            raise errors.BadRequest(f"the request body is not valid JSON: it nests deeper than "
                                    f"{limits.MAX_NESTING_DEPTH} levels") from None
        except ValueError as exc:
            raise errors.BadRequest(f"the request body is not valid JSON: {exc}") from exc
    try:
        limits.check_tree(doc, budget=limits.ALIAS_EXPANSION_PER_BYTE * len(data) + 16)
    except limits.LimitError as exc:
        raise errors.BadRequest(f"the request body cannot be accepted: {exc}") from None
    return doc


def object_body(allow_protobuf: bool = True) -> dict:
    """The body of a POST/PUT: a JSON or YAML object, or (kubectl 1.32+ ``create`` generators) a
    Kubernetes protobuf object."""
    mtype = media_type()
    if mtype == protobuf.MEDIA_TYPE and allow_protobuf:
        return protobuf.decode_object(raw_body())
    if mtype not in JSON_TYPES:
        raise errors.UnsupportedMediaType(
            f"the body of the request was in an unknown format - accepted media types include: "
            f"application/json, application/yaml (got {mtype!r})")
    return decoded_object(raw_body(), mtype)


def decoded_object(data: bytes, mtype: str) -> dict:
    """A JSON or YAML body (``mtype`` one of ``JSON_TYPES``) that must be an object."""
    body = decode(data, mtype)
    if not isinstance(body, dict):
        raise errors.BadRequest(f"the request body must be an object, not {type(body).__name__}")
    return body


def patch_body() -> tuple[object, object]:
    """(patch function, decoded patch) for the request's patch media type."""
    mtype = media_type()
    fn = patches.CONTENT_TYPES.get(mtype)
    if fn is None:
        raise errors.UnsupportedMediaType(
            f"the body of the request was in an unknown format - accepted media types include: "
            f"{', '.join(patches.CONTENT_TYPES)} (got {mtype!r})")
    body = decode(raw_body(), "yaml" if mtype.endswith("yaml") else "json")
    return fn, body
