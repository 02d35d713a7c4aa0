"""The non-standard manual-clock endpoint, present only with ``--clock manual``.

``GET /debug/clock`` reads the clock; ``POST /debug/clock {"advance": s}`` or ``{"set": epoch}``
moves it, running every controller tick due on the way before answering.
"""

from __future__ import annotations

import math

from flask import Blueprint, current_app, jsonify, request

from kube32.reference import errors
from kube32.reference.machinery import limits
from kube32.spec import timefmt

bp = Blueprint("debug", __name__)


def _now_body(cp) -> dict:
    now = cp.clock.now()
    return {"now": timefmt.rfc3339_micro(now), "epoch": now, "profile": cp.profile.as_dict()}


@bp.route("/debug/clock", methods=["GET", "POST"])
def clock():
    cp = current_app.extensions["kube32"]
    if not cp.clock.manual:
        raise errors.NotFound("the clock is real: /debug/clock exists only with --clock manual")
    if request.method == "POST":
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not ({"advance", "set"} & set(body)):
            raise errors.BadRequest('expected {"advance": seconds} or {"set": epoch seconds}')
        key = "advance" if "advance" in body else "set"
        value = body[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise errors.BadRequest(f"cannot move the clock: {key} must be a finite number of seconds, "
                                    f"got {str(value)[:40]!r}")
        now = cp.clock.now()
        step = value if key == "advance" else value - now
        if not 0 <= step <= limits.MAX_CLOCK_STEP:
            raise errors.BadRequest(f"cannot move the clock: a manual clock moves forward by at most "
                                    f"{limits.MAX_CLOCK_STEP:g} s per call (asked {step:g} s)")
        try:
            cp.clock.set(now + step)
        except ValueError as exc:
            raise errors.BadRequest(f"cannot move the clock: {exc}") from exc
    return jsonify(_now_body(cp))
