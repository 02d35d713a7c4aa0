"""CRUD for every registered resource under the Kubernetes URL scheme.

``/api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]`` and ``/apis/GROUP/VERSION/...``: list, watch,
create, get, update (PUT), patch, delete, and the ``status`` / ``scale`` subresources.
"""

from __future__ import annotations

import copy
import dataclasses

from flask import Blueprint, Response, current_app, jsonify, request

from reference import errors
from reference.api import bodies, tables, watch
from reference.machinery import selectors, validation
from reference.resources import Resource, lookup
from spec import timefmt

bp = Blueprint("resources", __name__)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


@dataclasses.dataclass
class Target:
    resource: Resource
    namespace: str | None
    name: str | None
    sub: str | None


def _cp():
    return current_app.extensions["kube32"]


def _not_found() -> errors.ApiError:
    return errors.NotFound("the server could not find the requested resource")


def resolve(group: str, version: str, rest: str) -> Target:
    parts = [p for p in rest.split("/") if p]
    ns = None
    if len(parts) >= 3 and parts[0] == "namespaces":
        r = lookup(group, version, parts[2])
        if r is not None and r.namespaced:
            ns, parts = parts[1], parts[2:]
    if not parts or len(parts) > 3:
        raise _not_found()
    r = lookup(group, version, parts[0])
    if r is None:
        raise _not_found()
    name = parts[1] if len(parts) > 1 else None
    sub = parts[2] if len(parts) > 2 else None
    if sub is not None and sub not in r.subresources:
        raise _not_found()
    if r.namespaced and name is not None and ns is None:
        raise _not_found()
    return Target(r, ns, name, sub)


@bp.route("/api/<version>/<path:rest>", methods=METHODS)
def core(version: str, rest: str):
    return dispatch(resolve("", version, rest))


@bp.route("/apis/<group>/<version>/<path:rest>", methods=METHODS)
def grouped(group: str, version: str, rest: str):
    return dispatch(resolve(group, version, rest))


def dispatch(t: Target):
    m = request.method
    if t.name is None:
        if m == "GET":
            if request.args.get("watch") in ("1", "true", "True"):
                return watch.stream(_cp(), t.resource, t.namespace)
            return list_objects(t)
        if m == "POST":
            return create(t)
        raise errors.MethodNotAllowed(f"{m} is not supported on a collection of {t.resource.plural}")
    if m == "GET":
        return get(t)
    if m == "PUT":
        return update(t)
    if m == "PATCH":
        return patch(t)
    if m == "DELETE" and t.sub is None:
        return delete(t)
    raise errors.MethodNotAllowed(f"{m} is not supported on {t.resource.plural}{'/' + t.sub if t.sub else ''}")


# -- reads --------------------------------------------------------------------------------
def _read_all(cp, r: Resource, ns: str | None) -> list[dict]:
    view = cp.views.get(r.key)
    if view is not None:
        return view.list(ns)
    terms = selectors.equality_terms(request.args.get("labelSelector"))
    return cp.store.list(r.key, ns, selector=terms or None)


def _read_one(cp, r: Resource, ns: str | None, name: str) -> dict:
    view = cp.views.get(r.key)
    if view is not None:
        obj = view.get(ns or "", name)
        if obj is None:
            raise errors.NotFound.object(r.plural, r.group, name)
        return obj
    return cp.store.get(r.key, ns or "", name)


def render(cp, r: Resource, obj: dict, code: int = 200) -> Response:
    if tables.wants_table():
        return tables.response(cp, r, [obj], single=True)
    resp = jsonify(obj)
    resp.status_code = code
    return resp


def list_objects(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    label_pred = selectors.parse_label_selector(request.args.get("labelSelector"))
    field_pred = selectors.parse_field_selector(request.args.get("fieldSelector"))
    with cp.store.lock:
        rv = cp.store.resource_version
        items = [o for o in _read_all(cp, r, t.namespace)
                 if label_pred(o.get("metadata", {}).get("labels")) and field_pred(o)]
    if tables.wants_table():
        return tables.response(cp, r, items, single=False, resource_version=str(rv))
    return jsonify({"kind": r.list_kind, "apiVersion": r.api_version,
                    "metadata": {"resourceVersion": str(rv)}, "items": items})


def get(t: Target) -> Response:
    cp = _cp()
    obj = _read_one(cp, t.resource, t.namespace, t.name)
    if t.sub == "scale":
        return jsonify(scale_of(obj))
    return render(cp, t.resource, obj)


# -- writes -------------------------------------------------------------------------------
def _check_identity(r: Resource, t: Target, obj: dict) -> dict:
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if kind is not None and kind != r.kind:
        raise errors.BadRequest(f"the object's kind {kind!r} does not belong at {r.plural}.{r.group or 'core'} "
                                f"(expected kind {r.kind!r})")
    if api_version is not None and api_version != r.api_version:
        raise errors.BadRequest(f"the API version in the data ({api_version}) does not match the expected "
                                f"API version ({r.api_version})")
    obj["kind"], obj["apiVersion"] = r.kind, r.api_version
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise errors.BadRequest("metadata must be an object")
    if r.namespaced:
        body_ns = meta.get("namespace")
        if t.namespace and body_ns and body_ns != t.namespace:
            raise errors.BadRequest("the namespace of the provided object does not match the namespace "
                                    "sent on the request")
        meta["namespace"] = t.namespace or body_ns or "default"
    else:
        meta.pop("namespace", None)
    if t.name is not None and meta.get("name") not in (None, t.name):
        raise errors.BadRequest(f"the name of the object ({meta.get('name')}) does not match the name on "
                                f"the URL ({t.name})")
    if t.name is not None:
        meta["name"] = t.name
    return obj


def _validate(r: Resource, obj: dict) -> None:
    causes = validation.validate(r.kind, obj)
    if causes:
        raise errors.Invalid.fields(r.kind, obj.get("metadata", {}).get("name", ""), causes, r.group)


def _writable(cp, r: Resource) -> None:
    if r.read_only or r.key in cp.views:
        raise errors.MethodNotAllowed(f"{r.plural} are computed by the API server and are read-only")


def _ensure_namespace(cp, r: Resource, ns: str | None) -> None:
    if r.namespaced and ns and cp.store.peek("namespaces", "", ns) is None:
        raise errors.NotFound.object("namespaces", "", ns)


def create(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    _writable(cp, r)
    obj = _check_identity(r, t, bodies.object_body())
    return _create(cp, r, obj)


def _create(cp, r: Resource, obj: dict) -> Response:
    _validate(r, obj)
    obj.get("metadata", {}).pop("resourceVersion", None)
    with cp.store.lock:
        _ensure_namespace(cp, r, obj["metadata"].get("namespace"))
        cp.admit(r.key, obj, None, "CREATE")
        created = cp.store.create(r.key, obj)
        if r.key == "pods" and not (created.get("spec") or {}).get("nodeName") and cp.scheduler is not None:
            cp.scheduler.schedule(created)
            created = cp.store.get("pods", created["metadata"]["namespace"], created["metadata"]["name"])
    return render(cp, r, created, 201)


def _merge_for_update(r: Resource, sub: str | None, old: dict, new: dict) -> dict:
    """Main resource writes keep the stored status; status writes keep everything but status."""
    if sub == "status":
        merged = copy.deepcopy(old)
        merged["status"] = new.get("status")
        if "resourceVersion" in new.get("metadata", {}):
            merged["metadata"]["resourceVersion"] = new["metadata"]["resourceVersion"]
        return merged
    if "status" in r.subresources:
        new = dict(new)
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
    return new


def _store_update(cp, r: Resource, t: Target, old: dict, new: dict) -> Response:
    new = _merge_for_update(r, t.sub, old, new)
    _validate(r, new)
    if t.sub is None:
        cp.admit(r.key, new, old, "UPDATE")
    updated = cp.store.update(r.key, new)
    return render(cp, r, updated)


def update(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    _writable(cp, r)
    body = bodies.object_body()
    with cp.store.lock:
        old = cp.store.get(r.key, t.namespace or "", t.name)
        if t.sub == "scale":
            return _write_scale(cp, r, old, body)
        new = _check_identity(r, t, body)
        return _store_update(cp, r, t, old, new)


def patch(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    _writable(cp, r)
    fn, body = bodies.patch_body()
    with cp.store.lock:
        old = cp.store.try_get(r.key, t.namespace or "", t.name)
        if old is None:
            if bodies.media_type() == "application/apply-patch+yaml" and t.sub is None:
                if not isinstance(body, dict):
                    raise errors.BadRequest("an apply patch must be an object")
                return _create(cp, r, _check_identity(r, t, body))
            raise errors.NotFound.object(r.plural, r.group, t.name)
        if t.sub == "scale":
            return _write_scale(cp, r, old, fn(scale_of(old), body))
        patched = fn(old, body)
        if not isinstance(patched, dict):
            raise errors.BadRequest("the patch did not produce an object")
        patched.setdefault("metadata", {}).setdefault("resourceVersion", old["metadata"]["resourceVersion"])
        new = _check_identity(r, t, patched)
        return _store_update(cp, r, t, old, new)


def delete(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    _writable(cp, r)
    options = {}
    if request.content_length:
        options = bodies.decode(bodies.raw_body(), "json") or {}
        if not isinstance(options, dict):
            raise errors.BadRequest("DeleteOptions must be an object")
    grace = request.args.get("gracePeriodSeconds", options.get("gracePeriodSeconds"))
    with cp.store.lock:
        obj = cp.store.get(r.key, t.namespace or "", t.name)
        if r.key == "pods" and (obj.get("spec") or {}).get("nodeName") and str(grace) != "0":
            return render(cp, r, _terminate(cp, obj, grace))
        gone = cp.store.delete(r.key, t.namespace or "", t.name)
    return render(cp, r, gone)


def _terminate(cp, pod: dict, grace) -> dict:
    """A bound pod is deleted gracefully: marked terminating until its kubelet confirms (grace 0)."""
    meta = pod["metadata"]
    if meta.get("deletionTimestamp"):
        return pod
    seconds = int(grace) if grace is not None else int((pod.get("spec") or {}).get(
        "terminationGracePeriodSeconds", 30))
    meta["deletionTimestamp"] = timefmt.rfc3339(cp.clock.now() + seconds)
    meta["deletionGracePeriodSeconds"] = seconds
    return cp.store.update("pods", pod, check_rv=False)


# -- scale subresource --------------------------------------------------------------------
def scale_of(obj: dict) -> dict:
    meta = obj["metadata"]
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                     if k in meta},
        "spec": {"replicas": spec.get("replicas", 1)},
        "status": {"replicas": status.get("replicas", 0),
                   "selector": selectors.selector_string(spec.get("selector"))},
    }


def _write_scale(cp, r: Resource, old: dict, scale: object) -> Response:
    if not isinstance(scale, dict):
        raise errors.BadRequest("a Scale must be an object")
    replicas = (scale.get("spec") or {}).get("replicas")
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        raise errors.Invalid.fields("Scale", old["metadata"]["name"], [validation.cause(
            "spec.replicas", f"Invalid value: {replicas!r}: must be a non-negative integer")], "autoscaling")
    rv = (scale.get("metadata") or {}).get("resourceVersion")
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = replicas
    if rv:
        new["metadata"]["resourceVersion"] = rv
    updated = cp.store.update(r.key, new)
    return jsonify(scale_of(updated))
