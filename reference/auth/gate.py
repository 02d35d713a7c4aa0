"""The Flask side: authenticate, handle impersonation, authorise every request; NodeRestriction at
admission. Installed by ``create_app`` when the config names an authenticator."""

from __future__ import annotations

import logging

from flask import Flask, g, request

from kube32.reference import errors
from kube32.reference.auth import authn, authz
from kube32.reference.auth.identity import DEVELOPMENT, User, authenticated

log = logging.getLogger(__name__)

PUBLIC_PATHS = ("/healthz", "/readyz", "/livez", "/version", "/version/")   # answered to anyone, as upstream
IMPERSONATE_USER = "Impersonate-User"
IMPERSONATE_GROUP = "Impersonate-Group"


def current_user() -> User:
    return getattr(g, "kube32_user", DEVELOPMENT)


def install(app: Flask, authenticator: authn.Authenticator) -> None:
    cp = app.extensions["kube32"]

    def stored_pod(namespace: str, name: str):
        return cp.store.try_get("pods", namespace, name)

    @app.before_request
    def gate() -> None:
        if request.path in PUBLIC_PATHS:
            return
        try:
            user = authenticator.authenticate(request.environ)
        except authn.Unauthorized as exc:
            log.info("401 %s %s: %s", request.method, request.path, exc)
            raise errors.Unauthorized("Unauthorized") from None
        if user is None:
            raise errors.Unauthorized("Unauthorized")
        user = _impersonated(user)
        info = authz.request_info(request.method, request.path, request.args)
        reason = authz.authorize(user, info, stored_pod)
        if reason is not None:
            raise errors.Forbidden(authz.forbidden_message(user, info, reason), name=info.name,
                                   kind=info.resource, group=info.group)
        g.kube32_user = user

    cp.admission.append(node_restriction)


def _impersonated(user: User) -> User:
    wanted = request.headers.get(IMPERSONATE_USER)
    other = [h for h, _ in request.headers.items() if h.lower().startswith("impersonate-")]
    if not other:
        return user
    target = wanted or ""
    if not user.is_master:
        info = authz.RequestInfo("impersonate", "", "users", name=target)
        raise errors.Forbidden(authz.forbidden_message(user, info), name=target, kind="users")
    if not wanted:
        raise errors.BadRequest("impersonating groups requires Impersonate-User as well")
    return authenticated(wanted, "", request.headers.getlist(IMPERSONATE_GROUP))


def node_restriction(cp, res: str, obj: dict, old: dict | None, operation: str) -> None:
    """Upstream's NodeRestriction for the writes that reach admission: a node creates only its own
    Node and Lease, and may not change restricted labels on its Node."""
    from flask import has_request_context

    if not has_request_context():
        return
    user = current_user()
    node = user.node_name
    if node is None:
        return
    name = (obj.get("metadata") or {}).get("name")
    if res in ("nodes", "leases.coordination.k8s.io") and operation == "CREATE" and name != node:
        what = "node" if res == "nodes" else "node lease"
        raise errors.Forbidden(f"{res.split('.')[0]} \"{name}\" is forbidden: node \"{node}\" is not allowed to "
                               f"create a {what} named \"{name}\"", name=name, kind=res.split(".")[0])
    if res == "nodes":
        bad = authz.restricted_labels(old, obj)
        if bad:
            raise errors.Forbidden(f'nodes "{name}" is forbidden: is not allowed to modify labels: {", ".join(bad)}',
                                   name=name, kind="nodes")
