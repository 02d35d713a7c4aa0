"""Object validation shared by every kind: names, quantities. Returns field causes; the API turns
them into a 422 Invalid Status."""

from __future__ import annotations

import functools
import re

from kube32.reference.machinery import limits
from kube32.spec import quantities
from kube32.spec import validate as schemas

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
DNS_SUBDOMAIN_MAX = 253
DNS_LABEL_MAX = 63
LABEL_MAX = 63

SUBDOMAIN_MESSAGE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                     "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                     "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_MESSAGE = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                 "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
                 "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
DNS1035_MESSAGE = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                   "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                   "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
LABEL_VALUE_MESSAGE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
                       "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                       "'my_value',  or '12345', regex used for validation is "
                       "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
QUALIFIED_NAME_MESSAGE = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                          "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                          "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def cause(field: str, message: str, reason: str = "FieldValueInvalid") -> dict:
    return {"reason": reason, "message": message, "field": field}


def dns_subdomain(value: str) -> bool:
    return len(value) <= DNS_SUBDOMAIN_MAX and bool(_DNS_SUBDOMAIN.match(value))


def dns_label(value: str) -> bool:
    return len(value) <= DNS_LABEL_MAX and bool(_DNS_LABEL.match(value))


def dns_1035(value: str) -> bool:
    return len(value) <= DNS_LABEL_MAX and bool(_DNS_1035.match(value))


# Kinds whose names must be DNS labels (no dots), as upstream: kind -> (rule, message).
LABEL_NAMED_KINDS = {"Namespace": (dns_label, LABEL_MESSAGE), "Service": (dns_1035, DNS1035_MESSAGE)}


def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a qualified name (``prefix/name``), or None."""
    prefix, _, name = key.rpartition("/")
    if prefix and not dns_subdomain(prefix):
        return "prefix part " + SUBDOMAIN_MESSAGE
    if not name or len(name) > LABEL_MAX or not _LABEL_NAME.match(name):
        return QUALIFIED_NAME_MESSAGE
    return None


def label_value_ok(value: str) -> bool:
    return len(value) <= LABEL_MAX and _LABEL_VALUE.fullmatch(value) is not None


def validate_labels(labels: dict, path: str = "metadata.labels") -> list[dict]:
    out = []
    for key, value in labels.items():
        problem = label_key_problem(str(key))
        if problem:
            out.append(cause(path, f'Invalid value: "{key}": {problem}'))
        elif len(value) > LABEL_MAX or not _LABEL_VALUE.match(value):
            out.append(cause(f"{path}", f'Invalid value: "{value}": {LABEL_VALUE_MESSAGE}'))
    return out


def name_causes(field: str, name: str, kind: str, prefix: bool = False) -> list[dict]:
    """Upstream's object name rules; ``prefix``: a generateName, judged with its trailing dash
    masked (upstream's maskTrailingDash) since random characters follow it."""
    rule, message = LABEL_NAMED_KINDS.get(kind, (dns_subdomain, SUBDOMAIN_MESSAGE))
    limit = DNS_LABEL_MAX if kind in LABEL_NAMED_KINDS else DNS_SUBDOMAIN_MAX
    checked = name[:-1] + "a" if prefix and len(name) > 1 and name.endswith("-") else name
    out = []
    if len(name) > limit:
        out.append(cause(field, f'Invalid value: "{name[:80]}...": must be no more than {limit} characters'))
    if not rule(checked[:limit]):
        out.append(cause(field, f'Invalid value: "{name[:80]}": {message}'))
    return out


def annotation_causes(annotations: dict) -> list[dict]:
    """Keys are qualified names; all keys and values together at most 256 KiB (upstream)."""
    out = []
    total = 0
    for key, value in annotations.items():
        problem = label_key_problem(str(key))
        if problem:
            out.append(cause("metadata.annotations", f'Invalid value: "{str(key)[:80]}": {problem}'))
        total += len(str(key).encode()) + len(str(value).encode())
    if total > limits.TOTAL_ANNOTATION_SIZE:
        out.append(cause("metadata.annotations", f"Too long: may not be more than {limits.TOTAL_ANNOTATION_SIZE} "
                         "bytes", "FieldValueTooLong"))
    return out


def validate_meta(obj: dict, kind: str = "") -> list[dict]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [cause("metadata", "Required value", "FieldValueRequired")]
    name, generate = meta.get("name"), meta.get("generateName")
    if not name and not generate:
        return [cause("metadata.name", "Required value: name or generateName is required", "FieldValueRequired")]
    for field, value in (("name", name), ("generateName", generate)):
        if value and not isinstance(value, str):
            return [cause(f"metadata.{field}", f"Invalid value: {value!r}: must be a string")]
    if name:
        out = name_causes("metadata.name", name, kind)
    else:
        out = name_causes("metadata.generateName", generate, kind, prefix=True)
    if out:
        return out
    for field in ("labels", "annotations"):
        value = meta.get(field)
        if value is not None and (not isinstance(value, dict)
                                  or not all(isinstance(v, str) for v in value.values())):
            return [cause(f"metadata.{field}", "Invalid value: must be a map of strings")]
    return validate_labels(meta.get("labels") or {}) + annotation_causes(meta.get("annotations") or {})


def _quantity_map(path: str, value: object) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, dict):
        return [cause(path, "Invalid value: must be a map of resource name to quantity")]
    out = []
    for name, q in value.items():
        problem = _quantity_message_cached(q) if type(q) in _SCALARS else _quantity_message(q)
        if problem:
            out.append(cause(f"{path}[{name}]", problem))
    return out


def _quantity_message(q: object) -> str | None:
    """What is wrong with one quantity (the whole cause message), or None."""
    too_big = limits.quantity_problem(q)
    if too_big:
        return f"Invalid value: {str(q)[:80]!r}: {too_big}"
    try:
        negative = quantities.parse(q) < 0  # type: ignore[arg-type]
    except quantities.QuantityError:
        return (f"Invalid value: {q!r}: quantities must match the "
                "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    return f'Invalid value: "{q}": must be greater than or equal to 0' if negative else None


# a fleet's objects repeat a few quantities; typed: 1, 1.0 and True are judged apart
_quantity_message_cached = functools.lru_cache(maxsize=4096, typed=True)(_quantity_message)
_SCALARS = (str, int, float, bool)


def validate_pod_spec(spec: object, path: str = "spec") -> list[dict]:
    if not isinstance(spec, dict):
        return [cause(path, "Required value", "FieldValueRequired")]
    containers = spec.get("containers")
    if not isinstance(containers, list) or not containers:
        return [cause(f"{path}.containers", "Required value", "FieldValueRequired")]
    out: list[dict] = []
    seen: set[str] = set()
    for i, c in enumerate(containers):
        if not isinstance(c, dict) or not c.get("name"):
            out.append(cause(f"{path}.containers[{i}].name", "Required value", "FieldValueRequired"))
            continue
        name = c["name"]
        if not isinstance(name, str) or not dns_label(name):
            out.append(cause(f"{path}.containers[{i}].name", f'Invalid value: "{name}": {LABEL_MESSAGE}'))
        elif name in seen:
            out.append(cause(f"{path}.containers[{i}].name", f'Duplicate value: "{name}"', "FieldValueDuplicate"))
        seen.add(str(name))
        res = c.get("resources") or {}
        out += _quantity_map(f"{path}.containers[{i}].resources.requests", res.get("requests"))
        out += _quantity_map(f"{path}.containers[{i}].resources.limits", res.get("limits"))
    return out


def validate_node(node: dict) -> list[dict]:
    status = node.get("status") or {}
    return (_quantity_map("status.capacity", status.get("capacity"))
            + _quantity_map("status.allocatable", status.get("allocatable")))


def validate_lease_spec(spec: object) -> list[dict]:
    """Upstream's ValidateLeaseSpec: a lease lasts more than 0 s (a negative transition count is
    refused with the other negative counts, ``limits.NONNEGATIVE_FIELDS``)."""
    duration = spec.get("leaseDurationSeconds") if isinstance(spec, dict) else None
    if isinstance(duration, int) and not isinstance(duration, bool) and duration <= 0:
        return [cause("spec.leaseDurationSeconds", f"Invalid value: {duration}: must be greater than 0")]
    return []


def validate(kind: str, obj: dict) -> list[dict]:
    causes = validate_meta(obj, kind)
    if causes:
        return causes
    if kind == "Pod":
        return validate_pod_spec(obj.get("spec"))
    if kind == "Node":
        return validate_node(obj)
    if kind == "Lease":
        return validate_lease_spec(obj.get("spec"))
    if kind in ("Deployment", "DaemonSet", "Job"):
        template = ((obj.get("spec") or {}).get("template") or {})
        return validate_pod_spec(template.get("spec"), "spec.template.spec")
    return []


def schema_causes(obj: dict) -> tuple[list[dict], list[dict]]:
    """The object against its kind's committed JSON Schema (``spec/schemas``):
    (causes for values of the wrong JSON type, causes for other violations such as enums)."""
    wrong_type, other = [], []
    for v in schemas.validate(obj):
        bucket = wrong_type if "is not of type" in v.message else other
        reason = "FieldValueTypeInvalid" if bucket is wrong_type else "FieldValueInvalid"
        bucket.append(cause(v.path or "<object>", f"Invalid value: {v.message}", reason))
    return wrong_type, other
