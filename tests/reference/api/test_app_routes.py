"""Apps built by create_app share their compiled URL map, and nothing else."""

from __future__ import annotations

import pytest
from werkzeug.routing import Rule

from kube32.reference import app as app_module
from kube32.reference.app import create_app
from kube32.reference.config import Config

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "only-here"}}


@pytest.fixture
def two_apps():
    apps = [create_app(Config(clock="manual", run_loops=False)) for _ in range(2)]
    yield apps
    for a in apps:
        a.extensions["kube32"].stop()


def test_apps_share_the_map_but_not_their_state(two_apps):
    first, second = two_apps
    assert first.url_map is second.url_map
    assert first.extensions["kube32"] is not second.extensions["kube32"]
    assert first.test_client().post("/api/v1/namespaces", json=NS).status_code == 201
    assert first.test_client().get("/api/v1/namespaces/only-here").status_code == 200
    answer = second.test_client().get("/api/v1/namespaces/only-here")
    assert answer.status_code == 404 and answer.get_json()["reason"] == "NotFound"


def test_a_shared_map_takes_no_new_routes(two_apps):
    with pytest.raises(RuntimeError, match="share their URL map"):
        two_apps[0].add_url_rule("/extra", "extra", lambda: "")
    assert "/extra" not in {r.rule for r in two_apps[1].url_map.iter_rules()}


def test_other_rules_get_a_map_of_their_own():
    def pending(*paths: str) -> app_module._PendingRules:
        rules = app_module._PendingRules()
        for path in paths:
            rules.add(Rule(path, endpoint=path, methods=["GET"]))
        return rules

    same = app_module._shared_routes(pending("/a", "/b"))
    assert app_module._shared_routes(pending("/a", "/b")) is same
    other = app_module._shared_routes(pending("/a", "/c"))
    assert other is not same
    assert other.bind("localhost").match("/c", "GET") == ("/c", {})
