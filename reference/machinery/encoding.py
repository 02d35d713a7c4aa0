"""Compact JSON as the API writes it: no spaces, ASCII only, keys in their order, byte for byte what
``json.dumps(obj, separators=(",", ":"))`` gives. One encoder serves the process: ``json.dumps``
called with any argument builds a new encoder per call, which costs about as much as encoding a small
object. What is encoded here is a JSON tree (parsed from a request, or stored), never cyclic, so the
encoder does not track the containers it is inside."""

from __future__ import annotations

import json


def encoder(default=None) -> json.JSONEncoder:
    """A compact encoder; ``default(value)`` for values JSON has no type for (else TypeError)."""
    return json.JSONEncoder(separators=(",", ":"), check_circular=False, default=default)


_COMPACT = encoder()


def compact(obj) -> str:
    return _COMPACT.encode(obj)
