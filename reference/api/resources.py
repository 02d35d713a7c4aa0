"""CRUD for every registered resource under the Kubernetes URL scheme.

``/api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]`` and ``/apis/GROUP/VERSION/...``: list, watch,
create, get, update (PUT), patch, delete, deletecollection, and the ``status`` / ``scale``
subresources. Every write is validated before anything is stored, so a rejected request changes
nothing; ``dryRun=All`` runs the same checks and stores nothing. A create and an update are the plans
of ``api.writes`` (the views hand them the request's body and dryRun and render what they return).

Semantics follow upstream's REST strategies (``reference.machinery.strategy``): a PATCH with ``application/apply-patch+yaml`` on a missing object creates it
(201), a bound unfinished pod is deleted gracefully (``deletionTimestamp``; removed when a DELETE
with grace period 0 arrives), and a namespace delete marks it Terminating, removes what it holds, then removes it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable

from flask import Blueprint, Response, current_app, request

from kube32.reference import errors
from kube32.reference.api import bodies, tables, watch, writes
from kube32.reference.api.targets import Target, resolve
from kube32.reference.controllers import namespace
from kube32.reference.machinery import selectors, strategy
from kube32.reference.resources import Resource
from kube32.spec import constants, timefmt

bp = Blueprint("resources", __name__)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
APPLY_PATCH = "application/apply-patch+yaml"
DEFAULT_GRACE_SECONDS = 30
# Namespaces upstream refuses to delete (kube32 creates the first two at start).
PROTECTED_NAMESPACES = (*constants.DEFAULT_NAMESPACES, "kube-system", "kube-public")
DELETE_CHUNK = 100      # objects a deletecollection deletes per hold of the store lock


def _cp():
    return current_app.extensions["kube32"]


@bp.route("/api/<version>/<path:rest>", methods=METHODS)
def core(version: str, rest: str):
    return dispatch(resolve("", version, rest))


@bp.route("/apis/<group>/<version>/<path:rest>", methods=METHODS)
def grouped(group: str, version: str, rest: str):
    return dispatch(resolve(group, version, rest))


def _method_not_allowed(t: Target) -> errors.ApiError:
    where = t.resource.plural + (f"/{t.sub}" if t.sub else "")
    return errors.MethodNotAllowed(f"the server does not allow this method on the requested resource "
                                   f"({request.method} {where})")


def dispatch(t: Target):
    m = request.method
    if t.name is None:
        if m == "GET":
            if request.args.get("watch") in ("1", "true", "True"):
                return watch.stream(_cp(), t.resource, t.namespace)
            return list_objects(t)
        if m == "POST":
            return create(t)
        if m == "DELETE":
            return delete_collection(t)
        raise _method_not_allowed(t)
    if m == "GET":
        return get(t)
    if m == "PUT":
        return update(t)
    if m == "PATCH":
        return patch(t)
    if m == "DELETE" and t.sub is None:
        return delete(t)
    raise _method_not_allowed(t)


def dry_run() -> bool:
    """``dryRun=All``: validate and answer, store nothing. Any other value is a 400."""
    values = request.args.getlist("dryRun")
    for v in values:
        if v != "All":
            raise errors.BadRequest(f'Invalid value: "{v}": supported values: "All"')
    return bool(values)


# -- reads --------------------------------------------------------------------------------
def _read_all(cp, r: Resource, ns: str | None, writing: bool = False, terms: dict | None = None) -> list[dict]:
    """What a list reads: durable objects, or with ``writing`` (a deletecollection, under the store
    lock) the head the store's writers see; ``terms``: label equalities that narrow it."""
    view = cp.views.get(r.key)
    if view is not None:   # views narrow by the equality terms too (the full selector is applied after)
        return view.list(ns, selector=terms or None)
    return (cp.store.head if writing else cp.store).list(r.key, ns, selector=terms or None)


def _read_one(cp, r: Resource, ns: str | None, name: str) -> dict:
    view = cp.views.get(r.key)
    if view is not None:
        obj = view.get(ns or "", name)
        if obj is None:
            raise errors.NotFound.object(r.plural, r.group, name)
        return obj
    return cp.store.get(r.key, ns or "", name)


def jsonify(obj, code: int = 200) -> Response:
    """What ``flask.jsonify(obj)`` answers with this app's JSON settings, byte for byte
    (``writes.encoded``), with one encoder for every answer instead of one per answer."""
    return current_app.response_class(writes.encoded(obj), status=code, mimetype=current_app.json.mimetype)


def render(cp, r: Resource, obj: dict, code: int = 200) -> Response:
    if tables.wants_table():
        resp = tables.response(cp, r, [obj], single=True)
        resp.status_code = code
        return resp
    return jsonify(obj, code)


def selection() -> Callable[[dict], bool]:
    """The request's labelSelector and fieldSelector as one predicate over an object (its label
    equalities in ``.terms``). Parsed before any store lock: a hostile selector costs nothing there."""
    labels = selectors.parse_label_selector(request.args.get("labelSelector"))
    fields = selectors.parse_field_selector(request.args.get("fieldSelector"))

    def chosen(obj: dict) -> bool:
        return labels(obj.get("metadata", {}).get("labels")) and fields(obj)

    chosen.terms = labels.equalities()
    return chosen


def selected(cp, t: Target, writing: bool = False, chosen: Callable[[dict], bool] | None = None) -> list[dict]:
    """The objects of a collection request, narrowed by labelSelector and fieldSelector."""
    chosen = chosen or selection()
    return [o for o in _read_all(cp, t.resource, t.namespace, writing, chosen.terms) if chosen(o)]


def list_objects(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    chosen = selection()
    with cp.store.lock:
        rv = cp.store.resource_version
        items = _read_all(cp, r, t.namespace, terms=chosen.terms)
    items = [o for o in items if chosen(o)]         # stored objects are immutable: matched outside the lock
    if tables.wants_table():
        return tables.response(cp, r, items, single=False, resource_version=str(rv))
    return jsonify({"kind": r.list_kind, "apiVersion": r.api_version,
                    "metadata": {"resourceVersion": str(rv)}, "items": items})


def get(t: Target) -> Response:
    cp = _cp()
    obj = _read_one(cp, t.resource, t.namespace, t.name)
    if t.sub == "scale":
        return jsonify(writes.scale_of(obj))
    return render(cp, t.resource, obj)


# -- writes (the plans are api.writes') ---------------------------------------------------
def create(t: Target) -> Response:
    cp = _cp()
    return render(cp, t.resource, writes.create(cp, t, bodies.object_body, dry_run), 201)


def update(t: Target) -> Response:
    cp = _cp()
    # protobuf bodies carry no status
    obj = writes.update(cp, t, functools.partial(bodies.object_body, allow_protobuf=t.sub is None), dry_run)
    return jsonify(obj) if t.sub == "scale" else render(cp, t.resource, obj)


def patch(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    writes.writable(cp, r)
    fn, body = bodies.patch_body()
    dry = dry_run()
    apply = bodies.media_type() == APPLY_PATCH
    if t.sub == "scale":
        return jsonify(writes.scale_of(writes.optimistic_update(
            cp, r, t, lambda old: writes.scaled(r, old, fn(writes.scale_of(old), body)), dry)))
    if apply and isinstance(body, dict):
        writes.check_identity(r, t, copy.deepcopy(body))

    def patched(old: dict) -> dict:
        new = fn(old, body)           # the object's and the patch's own copy, never either of them
        if not isinstance(new, dict):
            raise errors.BadRequest("the patch did not produce an object")
        if not isinstance(new.get("metadata"), dict):
            new["metadata"] = {}
        new["metadata"].setdefault("resourceVersion", old["metadata"]["resourceVersion"])
        return writes.updated(cp, r, t, old, writes.check_identity(r, t, new), dry)

    try:
        return render(cp, r, writes.optimistic_update(cp, r, t, patched, dry))
    except errors.NotFound:
        if not (apply and t.sub is None) or cp.store.head.peek(r.key, t.namespace or "", t.name) is not None:
            raise
    if not isinstance(body, dict):
        raise errors.BadRequest("an apply patch must be an object")
    return render(cp, r, writes.create(cp, t, lambda: body, dry_run), 201)


# -- deletes ------------------------------------------------------------------------------
def delete_options() -> dict:
    """DeleteOptions from the body (JSON or YAML, optional) merged with query parameters."""
    options: dict = {}
    data = bodies.raw_body() if request.content_length else b""
    if data.strip():
        options = bodies.decode(data, "yaml" if "yaml" in bodies.media_type() else "json")
        if not isinstance(options, dict):
            raise errors.BadRequest("DeleteOptions must be an object")
    grace = request.args.get("gracePeriodSeconds", options.get("gracePeriodSeconds"))
    if grace is not None:
        try:
            options["gracePeriodSeconds"] = int(grace)
        except (TypeError, ValueError) as exc:
            raise errors.BadRequest(f"gracePeriodSeconds must be an integer, got {grace!r}") from exc
        if options["gracePeriodSeconds"] < 0:
            options["gracePeriodSeconds"] = 1     # upstream: a negative grace period means 1
    return options


def _check_preconditions(r: Resource, obj: dict, options: dict) -> None:
    pre = options.get("preconditions") or {}
    meta = obj["metadata"]
    for key, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        if pre.get(key) and pre[key] != meta.get(key):
            raise errors.Conflict(f"Operation cannot be fulfilled on {r.key} \"{meta['name']}\": Precondition "
                                  f"failed: {label} in precondition: {pre[key]}, {label} in object meta: "
                                  f"{meta.get(key, '')}", name=meta["name"], kind=r.plural, group=r.group)


def _remove(cp, r: Resource, obj: dict, options: dict, dry: bool) -> dict:
    """Delete one object (caller holds the store lock); returns what the response shows."""
    meta = obj["metadata"]
    ns = meta.get("namespace") or ""
    _check_preconditions(r, obj, options)
    if r.key == "namespaces" and meta["name"] in PROTECTED_NAMESPACES:
        raise errors.Forbidden(f'namespaces "{meta["name"]}" is forbidden: this namespace may not be deleted',
                               name=meta["name"], kind="namespaces")
    if r.key == "pods" and strategy.deletes_gracefully(obj) and options.get("gracePeriodSeconds") != 0:
        return obj if dry else terminate(cp, obj, options.get("gracePeriodSeconds"))
    if dry:
        return obj
    if r.key == "namespaces":
        return namespace.delete(cp, obj)
    return cp.store.delete(r.key, ns, meta["name"])


def delete(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    writes.writable(cp, r)
    options = delete_options()
    dry = dry_run()
    with cp.store.lock:
        obj = cp.store.head.get(r.key, t.namespace or "", t.name)
        shown = _remove(cp, r, obj, options, dry)
    if r.returns_deleted_object or r.key == "namespaces":   # a namespace lingers while it terminates
        return render(cp, r, shown)
    return jsonify(deleted(r, obj))


def deleted(r: Resource, obj: dict) -> dict:
    """Upstream's answer to a DELETE that removed the object at once (the registry's finalizeDelete):
    a Status naming what is gone (its ``kind`` is the resource, as upstream sets it)."""
    meta = obj["metadata"]
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": meta["name"], "group": r.group, "kind": r.plural, "uid": meta.get("uid", "")}}


def delete_collection(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    writes.writable(cp, r)
    options = delete_options()
    dry = dry_run()
    chosen = selection()
    with cp.store.lock:
        keys = [(o["metadata"].get("namespace") or "", o["metadata"]["name"])
                for o in selected(cp, t, writing=True, chosen=chosen)]
    gone = []
    for start in range(0, len(keys), DELETE_CHUNK):     # other requests go between the chunks
        with cp.store.lock:
            for ns, name in keys[start:start + DELETE_CHUNK]:
                obj = cp.store.head.try_get(r.key, ns, name)
                if obj is not None:
                    gone.append(_remove(cp, r, obj, options, dry))
    rv = cp.store.head.resource_version
    return jsonify({"kind": r.list_kind, "apiVersion": r.api_version,
                    "metadata": {"resourceVersion": str(rv)}, "items": gone})


def terminate(cp, pod: dict, grace: int | None) -> dict:
    """A bound pod is deleted gracefully: marked terminating until its kubelet confirms (grace 0).
    A second DELETE keeps the first deletionTimestamp (only a shorter grace period moves it)."""
    meta = pod["metadata"]
    seconds = grace if grace is not None else int((pod.get("spec") or {}).get(
        "terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS))
    if meta.get("deletionTimestamp") and seconds >= int(meta.get("deletionGracePeriodSeconds", seconds)):
        return pod
    meta["deletionTimestamp"] = timefmt.rfc3339(cp.clock.now() + seconds)
    meta["deletionGracePeriodSeconds"] = seconds
    return cp.store.update("pods", pod, check_rv=False)
