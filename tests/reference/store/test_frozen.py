"""The frozen-store mode: on in the test suite (tests/conftest.py), off in production. A stored
object changed in place fails loudly where it happens, and is remembered for the test even when the
code around it swallowed the exception."""

from __future__ import annotations

import copy
import json

import pytest

from kube32.reference.clock import ManualClock
from kube32.reference.config import Config
from kube32.reference.controllers import loop
from kube32.reference.controlplane import ControlPlane
from kube32.reference.store import MemoryBackend, Store, frozen


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": {"app": "blink"}},
            "spec": {"containers": [{"name": "c", "image": "blink", "ports": [{"containerPort": 80}]}]}}


@pytest.fixture
def breaches():
    """The breaches a test makes on purpose (taken out, so the suite's own check passes)."""
    before = len(frozen.BREACHES)
    made: list[str] = []
    yield made
    made.extend(frozen.BREACHES[before:])
    del frozen.BREACHES[before:]


def test_the_test_suite_runs_with_the_mode_on():
    assert frozen.enabled()
    store = Store(MemoryBackend(), ManualClock(1_800_000_000))
    assert isinstance(store.create("pods", pod("a"), copy=False), frozen.FrozenDict)


def test_production_stores_are_not_frozen(monkeypatch):
    monkeypatch.delenv(frozen.ENV, raising=False)
    store = Store(MemoryBackend(), ManualClock(1_800_000_000))
    stored = store.create("pods", pod("a"), copy=False)
    assert type(stored) is dict and type(stored["spec"]["containers"]) is list


@pytest.mark.parametrize("breach", [
    lambda o: o.__setitem__("status", {}),
    lambda o: o["metadata"].update(resourceVersion="0"),
    lambda o: o["metadata"]["labels"].pop("app"),
    lambda o: o["spec"]["containers"].append({"name": "d"}),
    lambda o: o["spec"]["containers"][0]["ports"].clear(),
    lambda o: o["spec"]["containers"][0].setdefault("image", "x"),
    lambda o: o["spec"]["containers"].sort(key=str),
    lambda o: o["metadata"].__delitem__("name"),
])
def test_every_way_of_changing_a_stored_object_raises(breach, breaches):
    store = Store(MemoryBackend(), ManualClock(1_800_000_000))
    store.create("pods", pod("a"))
    stored = store.peek("pods", "default", "a")
    before = json.dumps(stored)
    with pytest.raises(frozen.FrozenObjectError, match="never changed in place"):
        breach(stored)
    assert json.dumps(store.peek("pods", "default", "a")) == before


def test_what_every_reader_is_handed_is_frozen(breaches):
    store = Store(MemoryBackend(), ManualClock(1_800_000_000))
    created = store.create("pods", pod("a"), copy=False)
    listed = store.list("pods")[0]
    updated = store.update("pods", {**store.get("pods", "default", "a"), "status": {"phase": "Running"}}, copy=False)
    watched = store.watch("pods", None, 0).next(0.1)[1]
    for obj in (created, listed, updated, watched, store.head.peek("pods", "default", "a")):
        with pytest.raises(frozen.FrozenObjectError):
            obj["metadata"]["labels"]["app"] = "other"


def test_copies_are_plain_and_mutable():
    store = Store(MemoryBackend(), ManualClock(1_800_000_000))
    store.create("pods", pod("a"))
    stored = store.peek("pods", "default", "a")
    for mine in (store.get("pods", "default", "a"), copy.deepcopy(stored)):
        mine["spec"]["containers"][0]["ports"].append({"containerPort": 81})
        mine["metadata"]["labels"]["app"] = "other"
        assert type(mine) is dict and type(mine["spec"]["containers"]) is list
    shallow = {**stored, "status": {}}
    assert shallow["metadata"] is stored["metadata"]
    assert json.loads(json.dumps(stored)) == pod("a") | {"metadata": json.loads(json.dumps(stored["metadata"]))}


def test_a_breach_a_controller_swallows_is_still_reported(breaches):
    """``loop.isolated`` turns a failing object into a log line and a Warning event; the breach is
    remembered anyway, so the suite's autouse check fails the test that made it."""
    cp = ControlPlane(Config(clock="manual", clock_start=1_800_000_000))
    stored = cp.store.create("pods", pod("a"), copy=False)

    def careless(p: dict) -> None:
        p["status"] = {"phase": "Running"}            # should have copied first

    assert loop.isolated(cp, "careless-controller", stored, careless, stored) is None
    assert frozen.BREACHES and "test_frozen.py" in frozen.BREACHES[-1]
    assert "status" not in cp.store.peek("pods", "default", "a")
