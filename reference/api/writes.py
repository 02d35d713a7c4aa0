"""One plan per write: the create (POST) and the update (PUT) of an object, as every path that
answers them runs them. A plan is handed the request's decoded body and its dryRun as functions it
calls at the point upstream reads them (so a refusal comes in upstream's order: a read-only
resource before a bad body, a bad dryRun value only once every check has passed for a create),
runs admission and validation, makes the store call and returns the object the answer shows
(READ-ONLY: the stored one itself), which ``encoded`` turns into the answer's bytes.

Two paths call the plans: the Flask views (``api.resources``) and the requests answered below Flask
(``api.shortcut``), which only recognise a plain request cheaply and skip Flask's dispatch. Every
refusal is an ``errors.ApiError`` raised before anything is written.

Semantics follow upstream's REST strategies (``reference.machinery.strategy``): status is reset on
create (a Pod starts Pending), main-resource writes keep the stored status and status writes keep
everything else.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable

from flask.json.provider import DefaultJSONProvider

from kube32.reference import errors
from kube32.reference.api.targets import Target
from kube32.reference.controllers import loop, namespace
from kube32.reference.machinery import encoding, limits, selectors, strategy, validation
from kube32.reference.resources import Resource
from kube32.reference.store.store import Changed, clone
from kube32.spec import constants, timefmt

UPDATE_ATTEMPTS = 5     # of an update computed outside the store lock (upstream's maxRetryWhenPatchConflicts)
# What flask.jsonify writes with the app's settings (compact, ASCII, keys in their order), one encoder for all
JSON = encoding.encoder(DefaultJSONProvider.default)


def encoded(obj) -> str:
    """The body of a JSON answer, byte for byte what ``flask.jsonify(obj)`` sends."""
    return JSON.encode(obj) + "\n"


def create(cp, t: Target, body: Callable[[], dict], dry: Callable[[], bool]) -> dict:
    """A POST to the collection ``t``: what is stored (a pod is scheduled too), READ-ONLY; with
    ``dry()`` true (asked once every check has passed), what would be stored."""
    r = t.resource
    writable(cp, r)
    return created_object(cp, r, check_identity(r, t, body()), dry)


def update(cp, t: Target, body: Callable[[], dict], dry: Callable[[], bool]) -> dict:
    """A PUT of the object ``t`` (or its status, or its Scale): what is stored, READ-ONLY (for the
    scale subresource, the Scale); with ``dry()`` true, what would be stored."""
    r = t.resource
    writable(cp, r)
    new, is_dry = body(), dry()
    if t.sub == "scale":
        return scale_of(optimistic_update(cp, r, t, lambda old: scaled(r, old, new), is_dry))
    new = check_identity(r, t, new)
    # an attempt after a conflict takes the body as the first left it: its checks only fill in defaults
    return optimistic_update(cp, r, t, lambda old: updated(cp, r, t, old, new, is_dry), is_dry)


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


def updated(cp, r: Resource, t: Target, old: dict, new: dict, dry: bool) -> dict:
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
    for _ in range(UPDATE_ATTEMPTS - 1):
        try:
            return _update_once(cp, r, t, change, dry)
        except Changed:
            continue
    with cp.store.lock:
        return _update_once(cp, r, t, change, dry)


def _update_once(cp, r: Resource, t: Target, change: Callable[[dict], dict], dry: bool) -> dict:
    old = cp.store.head.peek(r.key, t.namespace or "", t.name)
    if old is None:
        raise errors.NotFound.object(r.plural, r.group, t.name)
    new = change(old)
    return new if dry else cp.store.update(r.key, new, copy=False, expected=old)


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


def scaled(r: Resource, old: dict, scale: object) -> dict:
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
