"""PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch (what kubectl apply sends),
and JSON patch (RFC 6902, applied by the jsonpatch package)."""

from __future__ import annotations

import copy

import jsonpatch
import jsonpointer

from kube32.reference import errors

# Lists of objects that strategic merge patch merges by a key, as the Kubernetes struct tags say
# (``patchStrategy:"merge" patchMergeKey:...``). Lists not named here (tolerations, taints,
# containerStatuses …) are atomic: a patch replaces them whole, as upstream.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",     # Container.ports; ServiceSpec.ports merge on "port" (see merge_key)
    "conditions": "type",
    "addresses": "type",
    "ownerReferences": "uid",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
}
# Lists of scalars that strategic merge patch merges as sets (``patchStrategy:"merge"``).
MERGED_SCALAR_LISTS = ("finalizers",)
_DIRECTIVE_PREFIXES = ("$setElementOrder/", "$retainKeys", "$deleteFromPrimitiveList/")


def merge_patch(target: object, patch: object) -> object:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target: object, patch: object, field: str = "") -> object:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith(_DIRECTIVE_PREFIXES) or key == "$patch":
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and merge_key(key, value, result.get(key)) and isinstance(result.get(key), list):
            result[key] = _merge_list(result[key], value, merge_key(key, value, result[key]))
        elif isinstance(value, list) and key in MERGED_SCALAR_LISTS and isinstance(result.get(key), list):
            result[key] = result[key] + [v for v in value if v not in result[key]]
        elif isinstance(value, list):
            result[key] = [_strip(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")]
        else:
            result[key] = strategic_merge_patch(result.get(key), value, key)
    return result


def merge_key(field: str, patch: list, current: object) -> str | None:
    """The merge key of list ``field``: ``ports`` items carrying ``port`` but no ``containerPort``
    are ServicePorts, merged on ``port``."""
    key = MERGE_KEYS.get(field)
    if field == "ports":
        items = [i for i in list(patch) + list(current if isinstance(current, list) else []) if isinstance(i, dict)]
        if items and all("containerPort" not in i and "port" in i for i in items):
            return "port"
    return key


def _strip(value: object) -> object:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if not k.startswith("$")}
    return copy.deepcopy(value)


def _merge_list(current: list, patch: list, key: str) -> list:
    out = copy.deepcopy(current)
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            out.append(_strip(item))
            continue
        idx = next((i for i, c in enumerate(out) if isinstance(c, dict) and c.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                out.pop(idx)
        elif idx is None:
            out.append(_strip(item))
        else:
            out[idx] = strategic_merge_patch(out[idx], item)
    return out


# JSON patch (RFC 6902), by the jsonpatch package. As the kube-apiserver answers: a patch that is not a
# list of well-formed operations is a BadRequest (400); one that does not apply to the object (a failed
# test, a missing path) is Invalid (422).
def json_patch(doc: object, ops: object) -> object:
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        raise errors.BadRequest("a JSON patch must be a list of operations (objects)")
    try:
        compiled = jsonpatch.JsonPatch(ops)
    except (jsonpatch.InvalidJsonPatch, jsonpointer.JsonPointerException) as exc:
        raise errors.BadRequest(f"invalid JSON patch: {exc}") from None
    try:
        return compiled.apply(doc)
    except jsonpatch.InvalidJsonPatch as exc:
        raise errors.BadRequest(f"invalid JSON patch: {exc}") from None
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
        raise errors.Invalid(f"the JSON patch does not apply: {exc}") from None


CONTENT_TYPES = {
    "application/merge-patch+json": merge_patch,
    "application/strategic-merge-patch+json": strategic_merge_patch,
    "application/json-patch+json": json_patch,
    "application/apply-patch+yaml": merge_patch,   # server-side apply: merge of the intended object
}
