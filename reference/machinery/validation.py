"""Object validation shared by every kind: names, quantities. Returns field causes; the API turns
them into a 422 Invalid Status."""

from __future__ import annotations

import re

from spec import quantities

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def cause(field: str, message: str, reason: str = "FieldValueInvalid") -> dict:
    return {"reason": reason, "message": message, "field": field}


def validate_meta(obj: dict) -> list[dict]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [cause("metadata", "Required value", "FieldValueRequired")]
    name = meta.get("name")
    if not name and not meta.get("generateName"):
        return [cause("metadata.name", "Required value: name or generateName is required", "FieldValueRequired")]
    if name and (len(name) > 253 or not _DNS_SUBDOMAIN.match(name)):
        return [cause("metadata.name", f'Invalid value: "{name}": a lowercase RFC 1123 subdomain must consist '
                      "of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                      "alphanumeric character")]
    for field in ("labels", "annotations"):
        value = meta.get(field)
        if value is not None and (not isinstance(value, dict)
                                  or not all(isinstance(v, str) for v in value.values())):
            return [cause(f"metadata.{field}", "Invalid value: must be a map of strings")]
    return []


def _quantity_map(path: str, value: object) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, dict):
        return [cause(path, "Invalid value: must be a map of resource name to quantity")]
    out = []
    for name, q in value.items():
        if not quantities.is_valid(q):
            out.append(cause(f"{path}[{name}]", f"Invalid value: {q!r}: quantities must match the "
                             "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"))
    return out


def validate_pod_spec(spec: object, path: str = "spec") -> list[dict]:
    if not isinstance(spec, dict):
        return [cause(path, "Required value", "FieldValueRequired")]
    containers = spec.get("containers")
    if not isinstance(containers, list) or not containers:
        return [cause(f"{path}.containers", "Required value", "FieldValueRequired")]
    out: list[dict] = []
    for i, c in enumerate(containers):
        if not isinstance(c, dict) or not c.get("name"):
            out.append(cause(f"{path}.containers[{i}].name", "Required value", "FieldValueRequired"))
            continue
        res = c.get("resources") or {}
        out += _quantity_map(f"{path}.containers[{i}].resources.requests", res.get("requests"))
        out += _quantity_map(f"{path}.containers[{i}].resources.limits", res.get("limits"))
    return out


def validate_node(node: dict) -> list[dict]:
    status = node.get("status") or {}
    return (_quantity_map("status.capacity", status.get("capacity"))
            + _quantity_map("status.allocatable", status.get("allocatable")))


def validate(kind: str, obj: dict) -> list[dict]:
    causes = validate_meta(obj)
    if causes:
        return causes
    if kind == "Pod":
        return validate_pod_spec(obj.get("spec"))
    if kind == "Node":
        return validate_node(obj)
    if kind in ("Deployment", "DaemonSet", "Job"):
        template = ((obj.get("spec") or {}).get("template") or {})
        return validate_pod_spec(template.get("spec"), "spec.template.spec")
    return []
