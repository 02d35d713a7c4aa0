"""Lease renewals below Flask: the write every node sends every few seconds, without a Flask request.

``Renewals(app)`` is a WSGI app in front of the Flask app. A plain ``PUT`` of one Lease (JSON body,
no query string, no Table asked for) runs here the very checks and the store write the API's update
handler runs (``resources.checked_update``, ``Store.update``), and is answered as Flask's handler
answers (``jsonify``: the same bytes, status line and headers, written here without a Response). Every
other request goes to the Flask app untouched, and so does a renewal those checks refuse (a
validation error, a stale resourceVersion, a missing Lease, a body that is not JSON): nothing was
written, so the Flask app answers it from scratch, error Status and all. The write itself is the
store's (watch event, durability: answered only once durable), so nothing over the API tells the
two paths apart but the CPU a renewal costs (``benchmarks/fleet_load.py``).

Not installed when the server authenticates (the gate is a Flask ``before_request``).
"""

from __future__ import annotations

import io

from werkzeug.http import HTTP_STATUS_CODES

from kube32.reference import errors
from kube32.reference.api import bodies, resources
from kube32.reference.resources import lookup
from kube32.spec import constants

LEASES = lookup("coordination.k8s.io", "v1", "leases")
PREFIX = "/apis/coordination.k8s.io/v1/namespaces/"


def target(environ: dict) -> resources.Target | None:
    """The Lease a request may renew here, or None (the Flask app answers it)."""
    if environ.get("REQUEST_METHOD") != "PUT" or environ.get("QUERY_STRING"):
        return None
    path = environ.get("PATH_INFO", "")
    if not path.startswith(PREFIX) or not path.isascii():
        return None
    parts = path[len(PREFIX):].split("/")
    if len(parts) != 3 or parts[1] != "leases" or not parts[0] or not parts[2]:
        return None
    if (environ.get("CONTENT_TYPE") or "").split(";")[0].strip().lower() != "application/json":
        return None
    if "as=Table" in environ.get("HTTP_ACCEPT", ""):
        return None
    return resources.Target(LEASES, parts[0], parts[2], None)


class Renewals:
    def __init__(self, app, fallback=None) -> None:
        self.app = app
        self.fallback = fallback or app     # what answers every other request (api.creates, then Flask)
        self.cp = app.extensions["kube32"]
        self.answered = 0           # renewals answered here (the tests check the path is taken)

    def __call__(self, environ: dict, start_response):
        t = target(environ)
        if t is not None:
            answer = self._renew(environ, t)
            if answer is not None:
                self.answered += 1
                return self._json(*answer, start_response)
        return self.fallback(environ, start_response)

    def _json(self, code: int, obj: dict, start_response) -> list[bytes]:
        """``obj`` as ``jsonify(obj), code`` answers it (the app's JSON provider, compact; werkzeug's
        status line), without building a Response."""
        body = (self.app.json.dumps(obj, separators=(",", ":")) + "\n").encode()
        start_response(f"{code} {HTTP_STATUS_CODES[code].upper()}",
                       [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    def _renew(self, environ: dict, t: resources.Target):
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None
        if not 0 < length <= constants.MAX_REQUEST_BODY_BYTES:
            return None
        data = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(data)       # the Flask app may read it again
        store = self.cp.store
        try:
            body = bodies.decode(data, "json")
            if not isinstance(body, dict):
                return None
            store.forget_commits()
            with store.lock:
                resources.writable(self.cp, t.resource)
                old = store.peek(t.resource.key, t.namespace, t.name)
                if old is None:
                    return None
                new = resources.checked_update(self.cp, t.resource, t, old, resources.check_identity(t.resource, t, body))
                updated = store.update(t.resource.key, new, copy=False)
        except errors.ApiError:
            return None                                 # refused before anything was written
        try:
            store.wait_durable()
        except errors.ApiError as err:                  # as the app's error handler answers it
            return err.code, err.status()
        return 200, updated
