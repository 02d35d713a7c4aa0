"""PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch (what kubectl apply sends),
and JSON patch (RFC 6902, applied by the jsonpatch package).

Every patch costs time linear in the object and the patch: the object is copied once and the patch
merged into that copy in place; a keyed list is merged through an index of its keys, never by a
scan per patch item. JSON patches are bounded as upstream bounds them (``limits``: at most
``MAX_JSON_PATCH_OPERATIONS`` operations, and ``copy`` operations may not copy more than
``MAX_OBJECT_BYTES`` together), so no body can make a patch run long or grow without bound.
The patch functions never change ``target`` (a stored object) or ``patch``.
"""

from __future__ import annotations

from collections import deque

import jsonpatch
import jsonpointer

from kube32.reference import errors
from kube32.reference.machinery import encoding, limits

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


def _copy(value):
    """A deep copy of a JSON tree (plain dicts and lists, whatever the source's container types)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# -- JSON merge patch ----------------------------------------------------------------------
def merge_patch(target: object, patch: object) -> object:
    if not isinstance(patch, dict):
        return _copy(patch)
    result = _copy(target) if isinstance(target, dict) else {}
    _merge_into(result, patch)
    return result


def _merge_into(result: dict, patch: dict) -> None:
    """RFC 7386 into ``result``, a copy of our own."""
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            current = result.get(key)
            if not isinstance(current, dict):
                current = result[key] = {}
            _merge_into(current, value)
        else:
            result[key] = _copy(value)


# -- strategic merge patch -----------------------------------------------------------------
def strategic_merge_patch(target: object, patch: object, field: str = "") -> object:
    if not isinstance(patch, dict):
        return _copy(patch)
    return _strategic(_copy(target) if isinstance(target, dict) else None, patch)


def _strategic(current: dict | None, patch: dict) -> object:
    """The patch map ``patch`` merged into ``current`` (a copy of our own, changed in place, or None)."""
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: _copy(v) for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    result = current if current is not None else {}
    for key, value in patch.items():
        if key.startswith(_DIRECTIVE_PREFIXES) or key == "$patch":
            continue
        if value is None:
            result.pop(key, None)
            continue
        old = result.get(key)
        if isinstance(value, list):
            mkey = merge_key(key, value, old) if isinstance(old, list) else None
            if mkey:
                result[key] = _merge_list(old, value, mkey)
            elif key in MERGED_SCALAR_LISTS and isinstance(old, list):
                had = _Members(old)
                result[key] = old + [_copy(v) for v in value if v not in had]
            else:
                result[key] = [_strip(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")]
        elif isinstance(value, dict):
            result[key] = _strategic(old if isinstance(old, dict) else None, value)
        else:
            result[key] = value
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
    """A copy without directives (``$``-keys) in its maps (lists inside are copied as they are)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if not k.startswith("$")}
    return _copy(value)


def _merge_list(current: list, patch: list, key: str) -> list:
    """Patch items merged into ``current`` (our own copy) by ``key``: an item merges into the first
    element with the same key, ``$patch: delete`` removes that element, an item with no match (or
    no key) is appended. One pass: each key's elements are found through an index."""
    out: list = list(current)
    alive = [True] * len(out)
    where: dict[object, deque[int]] = {}        # key value -> indexes of its live elements, in order
    for i, element in enumerate(out):
        if isinstance(element, dict) and _hashable(element.get(key)):
            where.setdefault(element.get(key), deque()).append(i)
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            out.append(_strip(item))
            alive.append(True)
            continue
        value = item[key]
        found = where.get(value) if _hashable(value) else None
        if item.get("$patch") == "delete":
            if found:
                alive[found.popleft()] = False
        elif not found:
            out.append(_strip(item))
            alive.append(True)
            if _hashable(value):
                where.setdefault(value, deque()).append(len(out) - 1)
        else:
            i = found[0]
            out[i] = _strategic(out[i], item)
    return [element for element, live in zip(out, alive, strict=True) if live]


def _hashable(value: object) -> bool:
    """Merge keys are scalars; a key value that is a map or a list matches nothing."""
    return not isinstance(value, (dict, list))


class _Members:
    """Membership in a list in O(1) per question (scalars equal as ``==`` says; maps and lists by
    their JSON text)."""

    def __init__(self, items: list) -> None:
        self._scalars = {v for v in items if _hashable(v)}
        self._other = {encoding.compact(v) for v in items if not _hashable(v)}

    def __contains__(self, value: object) -> bool:
        if _hashable(value):
            return value in self._scalars
        return encoding.compact(value) in self._other


# -- JSON patch (RFC 6902) -----------------------------------------------------------------
# By the jsonpatch package. As the kube-apiserver answers: a patch that is not a list of well-formed
# operations is a BadRequest (400), one with too many operations RequestEntityTooLarge (413), one
# that does not apply to the object (a failed test, a missing path) Invalid (422).
def json_patch(doc: object, ops: object) -> object:
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        raise errors.BadRequest("a JSON patch must be a list of operations (objects)")
    if len(ops) > limits.MAX_JSON_PATCH_OPERATIONS:
        raise errors.RequestEntityTooLarge(f"The allowed maximum operations in a JSON patch is "
                                           f"{limits.MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
    try:
        compiled = jsonpatch.JsonPatch(ops)
    except (jsonpatch.InvalidJsonPatch, jsonpointer.JsonPointerException) as exc:
        raise errors.BadRequest(f"invalid JSON patch: {exc}") from None
    copied = 0
    obj = _copy(doc)
    try:
        for operation in compiled._ops:
            if isinstance(operation, jsonpatch.CopyOperation):
                # what a copy adds is paid for before it is made: copies may double an object each
                source = jsonpointer.resolve_pointer(obj, operation.operation.get("from", ""))
                copied += len(encoding.compact(source))
                if copied > limits.MAX_OBJECT_BYTES:
                    raise errors.RequestEntityTooLarge(
                        f"the JSON patch copies more than {limits.MAX_OBJECT_BYTES} bytes")
            obj = operation.apply(obj)
        return obj
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
