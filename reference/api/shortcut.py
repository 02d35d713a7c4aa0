"""What the requests answered below Flask share (``api.renewals``, ``api.creates``).

A ``Shortcut`` is a WSGI app in front of the Flask app: a request its ``target`` picks (a plain
write with a JSON body of a known length) runs the very steps the API's handler runs (``write``) and
is answered as that handler answers (``resources.JSON``, the same bytes, status line and headers,
without a Response). Everything else goes on to ``fallback`` untouched, and so does a picked request
that ``write`` refuses (an ``errors.ApiError``, or None) or that fails unexpectedly before anything
was written: the Flask app answers it from scratch, error Status and all. The store's write is the
handler's (watch event; answered only once durable), so nothing over the API tells the paths apart
but the CPU a request costs.

Not installed when the server authenticates (the gate is a Flask ``before_request``).
"""

from __future__ import annotations

import io

from werkzeug.http import HTTP_STATUS_CODES

from kube32.reference import errors
from kube32.reference.api import resources
from kube32.spec import constants


class Shortcut:
    CODE = 200                      # the status of an answer written here

    def __init__(self, app, fallback=None) -> None:
        self.app = app
        self.fallback = fallback or app     # what answers every other request
        self.cp = app.extensions["kube32"]
        self.answered = 0           # requests answered here (the tests check the path is taken)

    def target(self, environ: dict) -> resources.Target | None:
        """The object or collection a request may write here, or None."""
        raise NotImplementedError

    def write(self, body: bytes, t: resources.Target) -> dict | None:
        """Check and store; the stored object, or None when the Flask app is to answer it. Every
        refusal comes before the write."""
        raise NotImplementedError

    def __call__(self, environ: dict, start_response):
        t = self.target(environ)
        answer = None if t is None else self._answer(environ, t)
        if answer is None:
            return self.fallback(environ, start_response)
        self.answered += 1
        code, obj = answer
        body = (resources.JSON.encode(obj) + "\n").encode()
        start_response(f"{code} {HTTP_STATUS_CODES[code].upper()}",
                       [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    def _answer(self, environ: dict, t: resources.Target) -> tuple[int, dict] | None:
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
            store.forget_commits()
            written = self.write(data, t)
        except errors.ApiError:
            return None                                 # refused before anything was written
        except Exception:
            if store.resource_version == before:        # nothing written: the Flask app answers (a 500 Status)
                return None
            raise
        if written is None:
            return None
        try:
            store.wait_durable()
        except errors.ApiError as err:                  # as the app's error handler answers it
            return err.code, err.status()
        return self.CODE, written
