"""Default tolerations: pod admission through the API and the helper other controllers call."""

from __future__ import annotations

import pytest

from kube32.reference.app import create_app
from kube32.reference.config import Config
from kube32.reference.machinery import defaults
from kube32.spec import constants, profiles

NOT_READY = {"key": constants.TAINT_NOT_READY, "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}


def create_pod(client, spec_extra: dict | None = None, meta_extra: dict | None = None) -> dict:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **(meta_extra or {})},
            "spec": {"containers": [{"name": "c", "image": "blink"}], "nodeName": "n", **(spec_extra or {})}}
    resp = client.post("/api/v1/namespaces/default/pods", json=body)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


@pytest.fixture
def client():
    app = create_app(Config(clock="manual", run_loops=False))
    return app.test_client()


def test_api_create_adds_both_defaults(client):
    pod = create_pod(client)
    assert pod["spec"]["tolerations"] == [NOT_READY, UNREACHABLE]


def test_eviction_timeout_changes_the_seconds():
    app = create_app(Config(clock="manual", run_loops=False, overrides={"default_toleration_seconds": 20}))
    pod = create_pod(app.test_client())
    assert [t["tolerationSeconds"] for t in pod["spec"]["tolerations"]] == [20, 20]


def test_own_unreachable_toleration_keeps_it_and_adds_not_ready(client):
    own = {"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    pod = create_pod(client, {"tolerations": [own]})
    assert pod["spec"]["tolerations"] == [own, NOT_READY]


@pytest.mark.parametrize("own", [
    {"operator": "Exists"},                                              # tolerates everything
    {"operator": "Exists", "effect": "NoExecute"},                       # empty key
])
def test_wildcards_count_as_tolerated(client, own):
    pod = create_pod(client, {"tolerations": [own]})
    assert pod["spec"]["tolerations"] == [own]


def test_noschedule_toleration_does_not_count(client):
    own = {"key": constants.TAINT_UNREACHABLE, "operator": "Exists", "effect": "NoSchedule"}
    pod = create_pod(client, {"tolerations": [own]})
    assert pod["spec"]["tolerations"] == [own, NOT_READY, UNREACHABLE]


def test_daemonset_pods_get_no_seconds(client):
    pod = create_pod(client, meta_extra={"ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": "u", "controller": True}]})
    assert all("tolerationSeconds" not in t for t in pod["spec"]["tolerations"])
    assert [t["key"] for t in pod["spec"]["tolerations"]] == [constants.TAINT_NOT_READY, constants.TAINT_UNREACHABLE]


def test_helper_for_controllers():
    profile = profiles.load("simulator")
    pod = defaults.apply_default_tolerations({"spec": {}}, profile)
    assert pod["spec"]["tolerations"] == [NOT_READY, UNREACHABLE]


def test_updates_are_not_defaulted(client):
    create_pod(client)
    pod = client.get("/api/v1/namespaces/default/pods/p").get_json()
    pod["spec"]["tolerations"] = [*pod["spec"]["tolerations"],          # (a pod may only add tolerations)
                                   {"key": "board", "operator": "Exists", "effect": "NoSchedule"}]
    resp = client.put("/api/v1/namespaces/default/pods/p", json=pod)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["spec"]["tolerations"] == pod["spec"]["tolerations"]     # no defaults added


def test_simulator_timeout_flags_map_to_profile_fields():
    from kube32.conformance.cli import build_parser

    flags = {"--not-ready-timeout": 6, "--eviction-timeout": 20}
    assert profiles.flag_overrides(flags) == {"not_ready_timeout": 6.0, "noexecute_delay": 6.0,
                                              "default_toleration_seconds": 20.0}
    assert profiles.flag_overrides({"--not-ready-timeout": None, "--eviction-timeout": None}) == {}
    args = build_parser().parse_args(["serve", "--not-ready-timeout", "6", "--eviction-timeout", "20"])
    assert (args.not_ready_timeout, args.eviction_timeout) == (6.0, 20.0)
    profile = profiles.load("simulator", **profiles.flag_overrides(flags))
    assert (profile.lease_duration, profile.not_ready_timeout, profile.noexecute_after) == (15.0, 6.0, 21.0)
