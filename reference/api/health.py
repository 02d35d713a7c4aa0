"""Health endpoints as upstream serves them: ``/livez``, ``/readyz`` and the older ``/healthz``
answer ``ok`` (text/plain) when every check passes, 500 and ``<endpoint> check failed`` when one
does not; ``?verbose`` lists each check (``[+]ping ok``), ``?exclude=NAME`` leaves one out, and
``/<endpoint>/<check>`` asks one check alone. Public to anyone, as upstream (``auth.gate``)."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, current_app, request

from kube32.reference import errors

bp = Blueprint("health", __name__)


def _store_open() -> bool:
    return not current_app.extensions["kube32"].store.closed


# endpoint -> (check name, passes?) in upstream's order
CHECKS: dict[str, tuple[tuple[str, Callable[[], bool]], ...]] = {
    "livez": (("ping", lambda: True),),
    "readyz": (("ping", lambda: True), ("store", _store_open)),
    "healthz": (("ping", lambda: True), ("store", _store_open)),
}


def _text(body: str, code: int = 200) -> Response:
    return Response(body, status=code, content_type="text/plain; charset=utf-8",
                    headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache, private"})


def _answer(endpoint: str):
    excluded = set(request.args.getlist("exclude"))
    results = [(name, check()) for name, check in CHECKS[endpoint] if name not in excluded]
    failed = any(not ok for _, ok in results)
    if "verbose" not in request.args and not failed:
        return _text("ok")
    lines = [f"[+]{name} ok" if ok else f"[-]{name} failed: reason withheld" for name, ok in results]
    lines.append(f"{endpoint} check {'failed' if failed else 'passed'}")
    return _text("\n".join(lines) + "\n", 500 if failed else 200)


def _one(endpoint: str, check: str):
    for name, passes in CHECKS[endpoint]:
        if name == check:
            return _text("ok") if passes() else _text(f"internal server error: {name} check failed\n", 500)
    raise errors.NotFound("the server could not find the requested resource")


@bp.route("/livez")
def livez():
    return _answer("livez")


@bp.route("/readyz")
def readyz():
    return _answer("readyz")


@bp.route("/healthz")
def healthz():
    return _answer("healthz")


@bp.route("/<any(livez, readyz, healthz):endpoint>/<check>")
def one_check(endpoint: str, check: str):
    return _one(endpoint, check)
