"""Creates below Flask: a plain ``POST`` of one object to a collection (a pod, most often: a burst of
replicas, a scheduling benchmark), without a Flask request.

``Creates(app)`` is a WSGI app in front of the Flask app (behind ``Renewals`` when the server runs
both). A POST to a collection URL (``/api/v1[/namespaces/NS]/PLURAL``,
``/apis/GROUP/VERSION[/namespaces/NS]/PLURAL``; plain names only, no query string, a JSON body with
its length, no Table asked for) runs here the very steps the API's create handler runs
(``resources.resolve``, ``writable``, ``bodies.decode``, ``check_identity``,
``resources.created_object``: checks, store write, the scheduler's binding of a pod) and is answered
as that handler answers (``resources.jsonify``: the same bytes, status line and headers, written
without a Response). Every other request goes to the Flask app untouched, and so does a create those
steps refuse (an invalid object, a missing namespace, a name taken, a body that is not JSON): every
refusal comes before the write, so the Flask app answers it from scratch, error Status and all.
Nothing over the API tells the two paths apart but the CPU a create costs
(``benchmarks/request_cpu.py``, ``benchmarks/schedule_load.py``).

Not installed when the server authenticates (the gate is a Flask ``before_request``).
"""

from __future__ import annotations

import io
import re

from werkzeug.http import HTTP_STATUS_CODES

from kube32.reference import errors
from kube32.reference.api import bodies, resources
from kube32.spec import constants

_NAME = r"[a-z0-9][a-z0-9.-]*"
# (group, version, the rest resources.resolve reads); Flask routes these paths to resources.core/grouped
_COLLECTION = re.compile(rf"/api/(?P<v>{_NAME})/(?P<rest>(?:namespaces/{_NAME}/)?{_NAME})"
                         rf"|/apis/(?P<g>{_NAME})/(?P<gv>{_NAME})/(?P<grest>(?:namespaces/{_NAME}/)?{_NAME})")


def target(environ: dict) -> resources.Target | None:
    """The collection a request may create in here, or None (the Flask app answers it)."""
    if environ.get("REQUEST_METHOD") != "POST" or environ.get("QUERY_STRING"):
        return None
    m = _COLLECTION.fullmatch(environ.get("PATH_INFO", ""))
    if m is None:
        return None
    if (environ.get("CONTENT_TYPE") or "").split(";")[0].strip().lower() != "application/json":
        return None
    if "as=Table" in environ.get("HTTP_ACCEPT", ""):
        return None
    try:
        t = resources.resolve(m["g"] or "", m["v"] or m["gv"], m["rest"] or m["grest"])
    except errors.ApiError:
        return None
    return t if t.name is None else None


class Creates:
    def __init__(self, app) -> None:
        self.app = app
        self.cp = app.extensions["kube32"]
        self.answered = 0           # creates answered here (the tests check the path is taken)

    def __call__(self, environ: dict, start_response):
        t = target(environ)
        if t is not None:
            answer = self._create(environ, t)
            if answer is not None:
                self.answered += 1
                code, obj = answer
                body = (resources.JSON.encode(obj) + "\n").encode()
                start_response(f"{code} {HTTP_STATUS_CODES[code].upper()}",
                               [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
                return [body]
        return self.app(environ, start_response)

    def _create(self, environ: dict, t: resources.Target) -> tuple[int, dict] | None:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None
        if not 0 < length <= constants.MAX_REQUEST_BODY_BYTES:
            return None
        data = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(data)       # the Flask app may read it again
        store = self.cp.store
        before = store.resource_version
        try:
            resources.writable(self.cp, t.resource)
            body = bodies.decode(data, "application/json")
            if not isinstance(body, dict):
                return None
            store.forget_commits()
            created = resources.created_object(self.cp, t.resource, resources.check_identity(t.resource, t, body),
                                               dry=lambda: False)
        except errors.ApiError:
            return None                                 # refused before anything was written
        except Exception:
            if store.resource_version == before:        # nothing written: the Flask app answers (a 500 Status)
                return None
            raise
        try:
            store.wait_durable()
        except errors.ApiError as err:                  # as the app's error handler answers it
            return err.code, err.status()
        return 201, created
