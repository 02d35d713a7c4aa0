"""The application factory: ``create_app(config)`` -> Flask app with the ControlPlane attached."""

from __future__ import annotations

import logging
import threading

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from kube32.reference import errors
from kube32.reference.api import debug, discovery, openapi, printers, resources
from kube32.reference.config import Config
from kube32.reference.controlplane import ControlPlane
from kube32.spec import validate

log = logging.getLogger(__name__)

_HTTP_ERRORS = {404: errors.NotFound, 405: errors.MethodNotAllowed, 413: errors.RequestEntityTooLarge,
                415: errors.UnsupportedMediaType, 400: errors.BadRequest}


def create_app(config: Config | None = None, control_plane: ControlPlane | None = None) -> Flask:
    """Build the API server. The control plane's loops are NOT started here: ``serve`` (or the
    caller) starts them with ``app.extensions["kube32"].start()``."""
    config = config or Config()
    # the schema checks compile in the background (once per process), not in the first writes
    threading.Thread(target=validate.prepare, name="kube32-schemas", daemon=True).start()
    app = Flask(__name__)
    app.json.sort_keys = False
    app.json.compact = True
    app.extensions["kube32"] = control_plane or ControlPlane(config)
    printers.register()
    for blueprint in (discovery.bp, openapi.bp, resources.bp, debug.bp):
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

    @app.after_request
    def durable(response):
        """A write is answered only once it is on disk (group commit: one fsync serves many)."""
        store.wait_durable()
        return response

    @app.errorhandler(errors.ApiError)
    def api_error(err: errors.ApiError):
        return jsonify(err.status()), err.code

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

    return app

