"""The application factory: ``create_app(config)`` -> Flask app with the ControlPlane attached.

Every app is built afresh (its control plane, view functions, hooks and error handlers are its own),
but the compiled URL map is shared by every app of the process that registers the same rules:
werkzeug compiles each rule into a regex and a URL builder, ~30 ms per app, which a conformance run
paid once per scenario. A map holds only patterns and endpoint names, no behaviour."""

from __future__ import annotations

import logging
import threading

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule

from kube32.reference import errors
from kube32.reference.api import debug, discovery, health, openapi, printers, resources
from kube32.reference.config import Config
from kube32.reference.controlplane import ControlPlane

log = logging.getLogger(__name__)

_HTTP_ERRORS = {404: errors.NotFound, 405: errors.MethodNotAllowed, 413: errors.RequestEntityTooLarge,
                415: errors.UnsupportedMediaType, 400: errors.BadRequest}


class _PendingRules(Map):
    """An app's url_map while it registers its routes: collects the rules, compiles nothing."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pending: list[Rule] = []

    def add(self, rulefactory) -> None:
        self.pending.extend(rulefactory.get_rules(self))


class _SharedRules(Map):
    """Compiled routes that several apps use: sealed once built."""

    sealed = False

    def add(self, rulefactory) -> None:
        if self.sealed:
            raise RuntimeError("the reference apps of this process share their URL map: "
                               "register routes inside create_app (reference/app.py)")
        super().add(rulefactory)


class ReferenceApp(Flask):
    url_map_class = _PendingRules


_ROUTES: dict[tuple, _SharedRules] = {}
_ROUTES_LOCK = threading.Lock()


def _rule_key(rule: Rule) -> tuple:
    return (type(rule), rule.rule, rule.endpoint, tuple(sorted(rule.methods or ())),
            tuple(sorted((rule.defaults or {}).items())), rule.subdomain, rule.host, rule.build_only,
            rule.strict_slashes, rule.merge_slashes, rule.redirect_to, rule.alias, rule.websocket,
            getattr(rule, "provide_automatic_options", None))


def _shared_routes(pending: _PendingRules) -> _SharedRules:
    """The compiled map for these rules and settings, built the first time they are seen."""
    settings = dict(default_subdomain=pending.default_subdomain, strict_slashes=pending.strict_slashes,
                    merge_slashes=pending.merge_slashes, redirect_defaults=pending.redirect_defaults,
                    converters=pending.converters, sort_parameters=pending.sort_parameters,
                    sort_key=pending.sort_key, host_matching=pending.host_matching)
    key = (tuple((k, v) if k != "converters" else (k, tuple(sorted(v.items()))) for k, v in settings.items()),
           tuple(_rule_key(rule) for rule in pending.pending))
    with _ROUTES_LOCK:
        routes = _ROUTES.get(key)
        if routes is None:
            routes = _SharedRules(pending.pending, **settings)
            routes.update()            # sorted now, not by the first request of every app
            routes.sealed = True
            _ROUTES[key] = routes
    return routes


def create_app(config: Config | None = None, control_plane: ControlPlane | None = None) -> Flask:
    """Build the API server. The control plane's loops are NOT started here: ``serve`` (or the
    caller) starts them with ``app.extensions["kube32"].start()``."""
    config = config or Config()
    app = ReferenceApp(__name__)
    app.json.sort_keys = False
    app.json.compact = True
    app.extensions["kube32"] = control_plane or ControlPlane(config)
    printers.register()
    for blueprint in (discovery.bp, health.bp, openapi.bp, resources.bp, debug.bp):
        app.register_blueprint(blueprint)
    if config.authenticates:
        from kube32.reference.auth import authn, gate, tokens

        gate.install(app, authn.Authenticator(
            tokens=tokens.load(config.token_auth_file) if config.token_auth_file else None,
            client_certificates=bool(config.client_ca_file)))

    store = app.extensions["kube32"].store

    @app.before_request
    def fresh_request() -> None:
        store.forget_commits()

    @app.errorhandler(errors.ApiError)
    def api_error(err: errors.ApiError):
        retry = err.details.get("retryAfterSeconds")
        return jsonify(err.status()), err.code, {"Retry-After": str(retry)} if retry else {}

    @app.after_request
    def durable(response):
        """A write is answered only once it is on disk (group commit: one fsync serves many). A
        write that cannot be made durable is answered with the store's Status: an exception raised
        here would reach Flask's generic 500 and lose the cause."""
        try:
            store.wait_durable()
        except errors.ApiError as err:
            return app.make_response(api_error(err))
        return response

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        cls = _HTTP_ERRORS.get(err.code or 500, errors.InternalError)
        message = ("the server could not find the requested resource" if err.code == 404
                   else err.description or err.name)
        api = cls(message)
        api.code = err.code or 500
        return jsonify(api.status()), api.code

    @app.errorhandler(Exception)
    def internal(err: Exception):
        log.exception("unhandled error")
        return jsonify(errors.InternalError(f"internal error: {err!r}").status()), 500

    app.url_map = _shared_routes(app.url_map)
    return app

