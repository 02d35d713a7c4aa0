"""The non-standard manual-clock endpoint, present only with ``--clock manual``.

``GET /debug/clock`` reads the clock; ``POST /debug/clock {"advance": s}`` or ``{"set": epoch}``
moves it, running every controller tick due on the way before answering.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from kube32.reference import errors
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
        try:
            if "advance" in body:
                cp.clock.advance(float(body["advance"]))
            else:
                cp.clock.set(float(body["set"]))
        except (TypeError, ValueError) as exc:
            raise errors.BadRequest(f"cannot move the clock: {exc}") from exc
    return jsonify(_now_body(cp))
