"""Plain creates and updates answered without Flask's dispatch (``api.creates``, ``api.renewals``).

A ``Shortcut`` is a WSGI app in front of the Flask app. All it owns is recognising a plain request
cheaply: its method, a URL the API's own routing (``targets.resolve``) resolves to what the
subclass ``takes``, no query string (no dryRun, fieldManager, pretty …), a JSON body of a known
length (``bodies.media_type_of``) and no Table asked for (``tables.asks_for_table``); what a path
resolves to is remembered (within ``MEMO_BYTES``: a fleet's renewals repeat a path per node). Such a request
runs the very plan the Flask view runs (``plan``: ``writes.create`` or ``writes.update``) and its
answer is the view's (``writes.encoded``, status line and headers as Flask writes them). Everything
else goes on to ``fallback`` untouched, and so does a recognised request the plan refuses (an
``errors.ApiError``) or that fails unexpectedly before anything was written: the Flask app answers it
from scratch, error Status and all. Nothing over the API tells the paths apart but the CPU a request
costs.

Around a request Flask runs the app's hooks; this path runs none of them, so it does in their place
what each of ``REPLICATED_HOOKS`` does, and refuses to start (``UnreplicatedHook``) when the app has
any other hook, signal receiver or WSGI middleware of its own: a hook added later fails loudly here
instead of being skipped for the busiest requests (an authenticating server's gate is such a hook:
``serve`` does not install the path there).
"""

from __future__ import annotations

import io
import re

from flask import Flask, signals
from werkzeug.http import HTTP_STATUS_CODES

from kube32.reference import errors
from kube32.reference.api import bodies, tables, writes
from kube32.reference.api.targets import Target, resolve
from kube32.spec import constants

# What Flask would run around a request, by (kind, module, qualified name), and what stands in for it
# here: the store's per-request commit list starts empty, and a write is answered once durable.
REPLICATED_HOOKS = {
    ("before_request_funcs", "kube32.reference.app", "create_app.<locals>.fresh_request"): "store.forget_commits()",
    ("after_request_funcs", "kube32.reference.app", "create_app.<locals>.durable"): "store.wait_durable()",
}
HOOK_KINDS = ("before_request_funcs", "after_request_funcs", "teardown_request_funcs",
              "teardown_appcontext_funcs", "url_value_preprocessors")
SIGNALS = ("request_started", "request_finished", "request_tearing_down", "got_request_exception",
           "appcontext_pushed", "appcontext_popped", "appcontext_tearing_down")

_NAME = r"[a-z0-9][a-z0-9.-]*"
# /api/VERSION/REST or /apis/GROUP/VERSION/REST of plain names: (group, version, the rest targets.resolve
# reads), as Flask routes these paths to resources.core and resources.grouped
_URL = re.compile(rf"/api(?:s/({_NAME}))?/({_NAME})/({_NAME}(?:/{_NAME}){{0,3}})")
JSON_MEDIA_TYPE = "application/json"
# Paths remembered with what they resolve to: a fleet's Lease renewals repeat one path per node
MEMO_BYTES = 2 * 1024 * 1024
MEMO_ENTRY_BYTES = 400      # a dict slot, the path string's header and a Target, roughly
_UNSEEN = object()


class UnreplicatedHook(RuntimeError):
    """The Flask app runs something around a request that the path below it would skip."""


def unreplicated_hooks(app: Flask) -> list[str]:
    """What Flask runs around this app's requests beyond ``REPLICATED_HOOKS`` (or what of those is
    missing, which this path would do anyway)."""
    found, seen = [], set()
    for kind in HOOK_KINDS:
        hooks = getattr(app, kind)          # by blueprint (None: the app's own), or one list
        for scope, funcs in hooks.items() if isinstance(hooks, dict) else [(None, hooks)]:
            for fn in funcs:
                key = (kind, getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)))
                if key in REPLICATED_HOOKS and scope is None and key not in seen:
                    seen.add(key)
                else:
                    found.append(f"{kind}[{scope}]: {key[1]}.{key[2]}")
    found += [f"missing {kind}: {module}.{name}" for kind, module, name in REPLICATED_HOOKS.keys() - seen]
    found += [f"a receiver of flask.signals.{name}" for name in SIGNALS if getattr(signals, name).receivers]
    if "wsgi_app" in vars(app) or type(app).wsgi_app is not Flask.wsgi_app:
        found.append("a WSGI middleware in app.wsgi_app")
    return found


class Shortcut:
    METHOD = "POST"
    CODE = 200                      # the status of an answer written here
    plan = staticmethod(writes.create)   # or writes.update: the plan the Flask view runs

    def __init__(self, app: Flask, fallback=None) -> None:
        unreplicated = unreplicated_hooks(app)
        if unreplicated:
            raise UnreplicatedHook(f"{type(self).__name__} answers requests without Flask's dispatch and "
                                   f"does not replicate: {'; '.join(unreplicated)} (api/shortcut.py)")
        self.app = app
        self.fallback = fallback or app     # what answers every other request
        self.cp = app.extensions["kube32"]
        self.answered = 0           # requests answered here (the tests check the path is taken)
        self._targets: dict[str, Target | None] = {}     # path -> what it resolves to (see _remember)
        self._memo_bytes = 0

    def takes(self, t: Target) -> bool:
        """Whether this path answers a plain request for ``t``."""
        raise NotImplementedError

    def recognise(self, environ: dict) -> Target | None:
        """What a plain request of this path writes, or None (the Flask app answers it)."""
        if environ.get("REQUEST_METHOD") != self.METHOD or environ.get("QUERY_STRING") \
                or bodies.media_type_of(environ.get("CONTENT_TYPE", "")) != JSON_MEDIA_TYPE \
                or tables.asks_for_table(environ.get("HTTP_ACCEPT", "")):
            return None
        path = environ.get("PATH_INFO", "")
        t = self._targets.get(path, _UNSEEN)
        if t is _UNSEEN:
            t = self._target(path)
            self._remember(path, t)
        return t

    def _target(self, path: str) -> Target | None:
        m = _URL.fullmatch(path)
        if m is None:
            return None
        group, version, rest = m.groups()
        try:
            t = resolve(group or "", version, rest)
        except errors.ApiError:
            return None
        return t if self.takes(t) else None

    def _remember(self, path: str, t: Target | None) -> None:
        """What a path resolves to (a pure function of the path), within ``MEMO_BYTES``."""
        cost = len(path) + MEMO_ENTRY_BYTES
        if self._memo_bytes + cost > MEMO_BYTES:
            self._targets, self._memo_bytes = {}, 0
        self._targets[path] = t
        self._memo_bytes += cost

    def __call__(self, environ: dict, start_response):
        t = self.recognise(environ)
        answer = None if t is None else self._answer(environ, t)
        if answer is None:
            return self.fallback(environ, start_response)
        self.answered += 1
        if not isinstance(answer, bytes):
            return answer(environ, start_response)          # a Response of the app's own
        start_response(f"{self.CODE} {HTTP_STATUS_CODES[self.CODE].upper()}",
                       [("Content-Type", JSON_MEDIA_TYPE), ("Content-Length", str(len(answer)))])
        return [answer]

    def _answer(self, environ: dict, t: Target):
        """The body of the answer, a Response, or None when the Flask app is to answer."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None
        if not 0 < length <= constants.MAX_REQUEST_BODY_BYTES:
            return None
        data = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(data)       # the Flask app may read it again
        store = self.cp.store
        before = store.head.resource_version            # (durable or not: whether anything was written)
        store.forget_commits()                          # the app's fresh_request
        try:
            obj = self.plan(self.cp, t, lambda: bodies.decoded_object(data, JSON_MEDIA_TYPE), _not_dry)
        except errors.ApiError:
            return None                                 # refused before anything was written
        except Exception:
            if store.head.resource_version == before:   # nothing written: the Flask app answers (a 500 Status)
                return None
            raise
        try:
            store.wait_durable()                        # the app's durable
        except errors.ApiError as err:                  # answered by the app's own error handler
            with self.app.request_context(environ):
                return self.app.make_response(self.app.handle_user_exception(err))
        return writes.encoded(obj).encode()


def _not_dry() -> bool:
    return False                                        # no query string, no dryRun
