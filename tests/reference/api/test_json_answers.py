"""The API's JSON answers come from one shared compact encoder (``machinery.encoding``): the bytes,
status line and headers are Flask's ``jsonify`` ones, and the encoding is ``json.dumps``'s."""

from __future__ import annotations

import json

import flask
import pytest

from kube32.reference.api import resources
from kube32.reference.app import create_app
from kube32.reference.config import Config
from kube32.reference.machinery import encoding

OBJECTS = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {"a": "ünïcode ✓ \u2028", "b": "\"q\"\\"}},
     "spec": {"containers": [{"name": "c", "image": "blink"}]}, "status": {"phase": "Pending"}},
    {"z": 1, "a": [1.5, 2.0, 1e-07, 99.975, 12345678901234567890, -0.0, True, False, None], "m": {}, "l": []},
    {"nested": {"deep": [{"x": [{"y": "\t\n\x00"}]}]}, "emoji": "\U0001F600"},
    [],
    "a string",
]


@pytest.mark.parametrize("obj", OBJECTS)
@pytest.mark.parametrize("code", [200, 201])
def test_an_answer_is_what_flask_jsonify_answers(obj, code):
    app = create_app(Config(listen="127.0.0.1:0", run_loops=False))
    with app.test_request_context():
        ours = resources.jsonify(obj, code)
        theirs = flask.jsonify(obj)
        theirs.status_code = code
        assert ours.get_data() == theirs.get_data()
        assert ours.status == theirs.status
        assert ours.headers.to_wsgi_list() == theirs.headers.to_wsgi_list()


@pytest.mark.parametrize("obj", OBJECTS)
def test_the_compact_encoding_is_json_dumps_compact(obj):
    assert encoding.compact(obj) == json.dumps(obj, separators=(",", ":"))
