"""CRUD for every registered resource under the Kubernetes URL scheme.

``/api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]`` and ``/apis/GROUP/VERSION/...``: list, watch,
create, get, update (PUT), patch, delete, deletecollection, and the ``status`` / ``scale``
subresources. Every write is validated before anything is stored, so a rejected request changes
nothing; ``dryRun=All`` runs the same checks and stores nothing.

Semantics follow upstream's REST strategies (``reference.machinery.strategy``): status is reset on
create (a Pod starts Pending), main-resource writes keep the stored status and status writes keep
everything else, a PATCH with ``application/apply-patch+yaml`` on a missing object creates it
(201), a bound unfinished pod is deleted gracefully (``deletionTimestamp``; removed when a DELETE
with grace period 0 arrives), and a namespace delete marks it Terminating, removes what it holds, then removes it.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import uuid
from collections.abc import Callable

from flask import Blueprint, Response, current_app, request
from flask.json.provider import DefaultJSONProvider

from kube32.reference import errors
from kube32.reference.api import bodies, tables, unsupported, watch
from kube32.reference.controllers import loop, namespace
from kube32.reference.machinery import encoding, limits, selectors, strategy, validation
from kube32.reference.resources import Resource, lookup
from kube32.reference.store.store import Changed, clone
from kube32.spec import constants, timefmt

bp = Blueprint("resources", __name__)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
APPLY_PATCH = "application/apply-patch+yaml"
DEFAULT_GRACE_SECONDS = 30
# Namespaces upstream refuses to delete (kube32 creates the first two at start).
PROTECTED_NAMESPACES = (*constants.DEFAULT_NAMESPACES, "kube-system", "kube-public")
UPDATE_ATTEMPTS = 5     # of an update computed outside the store lock (upstream's maxRetryWhenPatchConflicts)
DELETE_CHUNK = 100      # objects a deletecollection deletes per hold of the store lock


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
        elif r is None:
            unsupported.check(group, parts[2], parts[4] if len(parts) > 4 else None)
    if not parts or len(parts) > 3:
        raise _not_found()
    r = lookup(group, version, parts[0])
    sub = parts[2] if len(parts) > 2 else None
    if r is None:
        unsupported.check(group, parts[0], sub)
        raise _not_found()
    name = parts[1] if len(parts) > 1 else None
    if sub is not None and sub not in r.subresources:
        unsupported.check(group, parts[0], sub)
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


JSON = encoding.encoder(DefaultJSONProvider.default)   # (api.creates answers with it too)


def jsonify(obj, code: int = 200) -> Response:
    """What ``flask.jsonify(obj)`` answers with this app's JSON settings (compact, ASCII, keys in
    their order), byte for byte, with one encoder for every answer instead of one per answer."""
    return current_app.response_class(JSON.encode(obj) + "\n", status=code, mimetype=current_app.json.mimetype)


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
        return jsonify(scale_of(obj))
    return render(cp, t.resource, obj)


# -- writes -------------------------------------------------------------------------------
def check_identity(r: Resource, t: Target, obj: dict) -> dict:
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if kind is not None and kind != r.kind:
        raise errors.BadRequest(f"the object provided is unrecognized (must be of type {r.kind}): "
                                f"kind {kind!r} does not belong at {r.key}")
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


def _check_schema(r: Resource, obj: dict) -> None:
    """The object's structure against the committed JSON Schema, before anything reads it: a value
    of the wrong JSON type is a 400 (upstream cannot decode it), another violation a 422."""
    wrong_type, other = validation.schema_causes(obj)
    out_of_range, negative = limits.int_range_causes(r.kind, obj)
    wrong_type, other = wrong_type + out_of_range, other + negative
    name = (obj.get("metadata") or {}).get("name", "")
    if wrong_type:
        summary = "; ".join(f"{c['field']}: {c['message'][len('Invalid value: '):]}" for c in wrong_type)
        raise errors.BadRequest(f'{r.kind} "{name}" could not be decoded: {summary}', name=name, kind=r.kind,
                                group=r.group, causes=wrong_type)
    if other:
        raise errors.Invalid.fields(r.kind, name, other, r.group)


def _validate(r: Resource, obj: dict) -> None:
    causes = validation.validate(r.kind, obj)
    if causes:
        raise errors.Invalid.fields(r.kind, obj.get("metadata", {}).get("name", ""), causes, r.group)


def writable(cp, r: Resource) -> None:
    if r.read_only or r.key in cp.views:
        raise errors.MethodNotAllowed(f"{r.key} are computed by the API server and are read-only")


def _ensure_namespace(cp, r: Resource, ns: str | None, name: str = "") -> None:
    if not (r.namespaced and ns):
        return
    stored = cp.store.head.peek("namespaces", "", ns)
    if stored is None:
        raise errors.NotFound.object("namespaces", "", ns)
    if namespace.is_terminating(stored):
        raise errors.Forbidden(f"{r.plural}{'.' + r.group if r.group else ''} \"{name}\" is forbidden: unable to create new "
                               f"content in namespace {ns} because it is being terminated", kind=r.plural,
                               group=r.group, causes=[{"reason": "NamespaceTerminating", "field": "metadata.namespace",
                                                       "message": f"namespace {ns} is being terminated"}])


def create(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    writable(cp, r)
    obj = check_identity(r, t, bodies.object_body())
    return _create(cp, r, obj)


def _create(cp, r: Resource, obj: dict) -> Response:
    return render(cp, r, created_object(cp, r, obj, dry_run), 201)


def created_object(cp, r: Resource, obj: dict, dry: Callable[[], bool]) -> dict:
    """Check and store a new object (a pod is scheduled too); returns what is stored, READ-ONLY. With
    ``dry()`` true (asked once every check has passed), what would be stored; nothing is written.
    Every refusal (errors.ApiError) comes before the write."""
    _check_schema(r, obj)
    _validate(r, obj)                         # what the user sent, before the strategy reads it
    strategy.prepare_for_create(r.kind, obj)
    strategy.apply_defaults(r.kind, obj)
    with cp.store.lock:
        ns = obj["metadata"].get("namespace")
        _ensure_namespace(cp, r, ns, obj["metadata"].get("name") or obj["metadata"].get("generateName", ""))
        cp.admit(r.key, obj, None, "CREATE")
        if dry():
            return _dry_run_created(cp, r, obj)
        created = cp.store.create(r.key, obj, copy=False)     # only read below (rendered)
        if r.key == "pods" and not (created.get("spec") or {}).get("nodeName") and cp.scheduler is not None:
            # the pod is stored: a scheduling failure is the scheduler's (logged, retried), not the request's
            loop.isolated(cp, "default-scheduler", created, cp.scheduler.schedule, created)
            # only rendered: the stored object itself (never changed in place) serves, no copy
            created = cp.store.head.peek("pods", created["metadata"]["namespace"], created["metadata"]["name"]) \
                or created
    return created


def _dry_run_created(cp, r: Resource, obj: dict) -> dict:
    meta = obj["metadata"]
    name = meta.get("name") or meta.get("generateName", "")
    if meta.get("name") and cp.store.head.peek(r.key, meta.get("namespace") or "", name) is not None:
        raise errors.AlreadyExists.object(r.plural, r.group, name)
    meta.update(name=name, uid=str(uuid.uuid4()), creationTimestamp=timefmt.rfc3339(cp.clock.now()), generation=1)
    return obj


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
            new["status"] = clone(old["status"])      # its own: defaults are filled in place
        else:
            new.pop("status", None)
    return new


def checked_update(cp, r: Resource, t: Target, old: dict, new: dict) -> dict:
    """What an update (PUT/PATCH, main resource or status) would store in place of ``old``, once
    every check has passed (errors.ApiError otherwise); ``old`` is only read."""
    new = _merge_for_update(r, t.sub, old, new)
    _check_schema(r, new)
    strategy.apply_defaults(r.kind, new)
    _validate(r, new)
    if t.sub is None:
        causes = strategy.update_causes(r.kind, old, new)
        if causes:
            raise errors.Invalid.fields(r.kind, old["metadata"]["name"], causes, r.group)
        cp.admit(r.key, new, old, "UPDATE")
    return new


def _updated(cp, r: Resource, t: Target, old: dict, new: dict, dry: bool) -> dict:
    """What the update of ``old`` to ``new`` stores (every check passed); with ``dry``, what it
    would store. A stale resourceVersion in ``new`` is a 409 Conflict."""
    new = checked_update(cp, r, t, old, new)
    given = new["metadata"].get("resourceVersion")
    if given and given != old["metadata"]["resourceVersion"]:
        raise errors.Conflict.stale(r.plural, r.group, old["metadata"]["name"])
    if dry:
        for key in ("uid", "creationTimestamp", "resourceVersion", "generation"):
            if key in old["metadata"]:
                new["metadata"][key] = old["metadata"][key]
    return new


def optimistic_update(cp, r: Resource, t: Target, change: Callable[[dict], dict], dry: bool) -> dict:
    """An update as upstream's GuaranteedUpdate makes it: ``change(old)`` computes the new object
    from a snapshot of the stored one (READ-ONLY) outside the store lock, whatever it costs (the
    patch, the checks, admission); under the lock it is stored only if the object is still that
    snapshot, else everything again from the newer one. After ``UPDATE_ATTEMPTS`` lost races the
    last attempt holds the lock throughout: it cannot lose, and what it computes is bounded (the
    body, the patch and the object are), so a busy object costs its writers a wait, never a 409.
    Returns the stored object (READ-ONLY); with ``dry``, what would be stored."""
    ns = t.namespace or ""
    for attempt in range(UPDATE_ATTEMPTS):
        last = attempt == UPDATE_ATTEMPTS - 1
        with cp.store.lock if last else contextlib.nullcontext():
            old = cp.store.head.peek(r.key, ns, t.name)
            if old is None:
                raise errors.NotFound.object(r.plural, r.group, t.name)
            new = change(old)
            if dry:
                return new
            try:
                return cp.store.update(r.key, new, copy=False, expected=old)
            except Changed:
                continue
    raise AssertionError("the last attempt holds the store lock")       # (not reached)


def update(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    writable(cp, r)
    body = bodies.object_body(allow_protobuf=t.sub is None)   # protobuf bodies carry no status
    dry = dry_run()
    if t.sub == "scale":
        return jsonify(scale_of(optimistic_update(cp, r, t, lambda old: _scaled(cp, r, old, body), dry)))
    body = check_identity(r, t, body)
    # an attempt after a conflict takes the body as the first left it: its checks only fill in defaults
    return render(cp, r, optimistic_update(cp, r, t, lambda old: _updated(cp, r, t, old, body, dry), dry))


def patch(t: Target) -> Response:
    cp = _cp()
    r = t.resource
    writable(cp, r)
    fn, body = bodies.patch_body()
    dry = dry_run()
    apply = bodies.media_type() == APPLY_PATCH
    if t.sub == "scale":
        return jsonify(scale_of(optimistic_update(
            cp, r, t, lambda old: _scaled(cp, r, old, fn(scale_of(old), body)), dry)))
    if apply and isinstance(body, dict):
        check_identity(r, t, copy.deepcopy(body))

    def patched(old: dict) -> dict:
        new = fn(old, body)           # the object's and the patch's own copy, never either of them
        if not isinstance(new, dict):
            raise errors.BadRequest("the patch did not produce an object")
        if not isinstance(new.get("metadata"), dict):
            new["metadata"] = {}
        new["metadata"].setdefault("resourceVersion", old["metadata"]["resourceVersion"])
        return _updated(cp, r, t, old, check_identity(r, t, new), dry)

    try:
        return render(cp, r, optimistic_update(cp, r, t, patched, dry))
    except errors.NotFound:
        if not (apply and t.sub is None) or cp.store.head.peek(r.key, t.namespace or "", t.name) is not None:
            raise
    if not isinstance(body, dict):
        raise errors.BadRequest("an apply patch must be an object")
    return _create(cp, r, check_identity(r, t, body))


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
    writable(cp, r)
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
    writable(cp, r)
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


# -- scale subresource --------------------------------------------------------------------
def scale_of(obj: dict) -> dict:
    meta = obj["metadata"]
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                     if k in meta},
        "spec": {"replicas": spec.get("replicas", constants.DEPLOYMENT_DEFAULT_REPLICAS)},
        "status": {"replicas": status.get("replicas", 0),
                   "selector": selectors.selector_string(spec.get("selector"))},
    }


def _scaled(cp, r: Resource, old: dict, scale: object) -> dict:
    """The object ``old`` with the replicas of ``scale`` (a Scale written to the subresource)."""
    if not isinstance(scale, dict):
        raise errors.BadRequest("a Scale must be an object")
    replicas = (scale.get("spec") or {}).get("replicas")
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        raise errors.Invalid.fields("Scale", old["metadata"]["name"], [validation.cause(
            "spec.replicas", f"Invalid value: {replicas!r}: must be greater than or equal to 0")], "autoscaling")
    rv = (scale.get("metadata") or {}).get("resourceVersion")
    if rv and rv != old["metadata"]["resourceVersion"]:
        raise errors.Conflict.stale(r.plural, r.group, old["metadata"]["name"])
    new = copy.deepcopy(old)
    new.setdefault("spec", {})["replicas"] = replicas
    _check_schema(r, new)                     # int32, as every other write
    return new
