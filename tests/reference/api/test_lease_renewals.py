"""Lease renewals answered below Flask (``api.renewals``) cannot be told apart over the API from the
Flask handler's answers: the same status, headers and bytes for a renewal, and every refusal
answered by the Flask app itself; the write is a store write (watch event, durable)."""

from __future__ import annotations

import json

import pytest
import requests

from kube32.reference import errors
from kube32.reference.api.renewals import LeaseRenewals
from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
TIMEOUT = 10      # a bound on waiting, not an assertion on time


def lease(name: str, renew: str = "2026-01-01T00:00:05.000000Z", **spec) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renew, **spec}}


@pytest.fixture
def served(tmp_path):
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", data_dir=str(tmp_path)))
    yield running
    running.stop()


def _both(running, body: bytes, name: str, content_type: str = "application/json"):
    """The same PUT over HTTP (through ``LeaseRenewals``) and to the Flask app alone."""
    renewals: LeaseRenewals = running._server.app
    before = renewals.answered
    over_http = requests.put(f"{running.url}{LEASES}/{name}", data=body, timeout=TIMEOUT,
                             headers={"Content-Type": content_type})
    taken = renewals.answered - before
    flask = running.app.test_client().put(f"{LEASES}/{name}", data=body, content_type=content_type)
    return over_http, flask, taken


def _same(over_http, flask) -> None:
    assert (over_http.status_code, over_http.reason) == (flask.status_code, flask.status.split(" ", 1)[1])
    assert over_http.headers["Content-Type"] == flask.headers["Content-Type"]
    assert over_http.headers["Content-Length"] == flask.headers["Content-Length"]
    assert over_http.content == flask.data


def test_a_renewal_is_answered_below_flask_with_the_bytes_flask_sends(served):
    created = requests.post(served.url + LEASES, json=lease("node-a"), timeout=TIMEOUT)
    assert created.status_code == 201
    rv = int(created.json()["metadata"]["resourceVersion"])
    renewal = json.dumps(lease("node-a", "2026-01-01T00:00:10.000000Z")).encode()
    over_http, flask, taken = _both(served, renewal, "node-a")    # the second PUT changes nothing
    assert taken == 1
    _same(over_http, flask)
    renewed = over_http.json()
    assert renewed["spec"]["renewTime"] == "2026-01-01T00:00:10.000000Z"
    assert int(renewed["metadata"]["resourceVersion"]) > rv
    assert renewed["metadata"]["uid"] == created.json()["metadata"]["uid"]
    watch = served.control_plane.store.watch("leases.coordination.k8s.io", "kube-node-lease", rv)
    kind, obj = watch.next(TIMEOUT)
    assert (kind, obj["spec"]["renewTime"]) == ("MODIFIED", "2026-01-01T00:00:10.000000Z")


@pytest.mark.parametrize("case", ["stale resourceVersion", "wrong type", "spec not an object", "missing Lease",
                                  "not JSON", "another kind", "name differs", "immutable namespace"])
def test_a_refused_renewal_is_answered_by_the_flask_app(served, case):
    assert requests.post(served.url + LEASES, json=lease("node-a"), timeout=TIMEOUT).status_code == 201
    name, obj = "node-a", lease("node-a")
    if case == "stale resourceVersion":
        obj["metadata"]["resourceVersion"] = "1"
    elif case == "wrong type":
        obj["spec"]["leaseDurationSeconds"] = "forty"
    elif case == "spec not an object":
        obj["spec"] = ["not", "an", "object"]
    elif case == "missing Lease":
        name, obj = "node-b", lease("node-b")
    elif case == "another kind":
        obj["kind"] = "Pod"
    elif case == "name differs":
        obj["metadata"]["name"] = "node-c"
    elif case == "immutable namespace":
        obj["metadata"]["namespace"] = "default"
    body = b"{not json" if case == "not JSON" else json.dumps(obj).encode()
    stored = served.control_plane.store.resource_version
    over_http, flask, taken = _both(served, body, name)
    assert taken == 0
    assert over_http.status_code >= 400 and over_http.json()["kind"] == "Status"
    _same(over_http, flask)
    assert served.control_plane.store.resource_version == stored       # nothing was written


def test_a_renewal_answered_below_flask_is_durable(tmp_path):
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", data_dir=str(tmp_path)))
    try:
        requests.post(running.url + LEASES, json=lease("node-a"), timeout=TIMEOUT).raise_for_status()
        renewed = requests.put(f"{running.url}{LEASES}/node-a", json=lease("node-a", "2026-01-01T00:00:20.000000Z"),
                               timeout=TIMEOUT)
        assert renewed.status_code == 200 and running._server.app.answered == 1
    finally:
        running.stop()
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", data_dir=str(tmp_path)))
    try:
        got = requests.get(f"{running.url}{LEASES}/node-a", timeout=TIMEOUT).json()
        assert got["spec"]["renewTime"] == "2026-01-01T00:00:20.000000Z"
        assert got["metadata"]["resourceVersion"] == renewed.json()["metadata"]["resourceVersion"]
    finally:
        running.stop()


def test_a_write_that_cannot_be_made_durable_is_a_500_status_naming_the_cause_on_either_path(served, monkeypatch):
    requests.post(served.url + LEASES, json=lease("node-a"), timeout=TIMEOUT).raise_for_status()

    def lost() -> None:
        raise errors.InternalError("storage sync failed: disk full (test)")
    monkeypatch.setattr(served.control_plane.store, "wait_durable", lost)
    answer = requests.put(f"{served.url}{LEASES}/node-a", json=lease("node-a", "2026-01-01T00:00:30.000000Z"),
                          timeout=TIMEOUT)
    assert served._server.app.answered == 1
    assert answer.status_code == 500 and answer.reason == "INTERNAL SERVER ERROR"
    assert answer.json()["reason"] == "InternalError" and "disk full" in answer.json()["message"]
    flask = requests.post(served.url + LEASES, json=lease("node-b"), timeout=TIMEOUT)     # the Flask app's write
    assert flask.status_code == 500 and flask.json()["reason"] == "InternalError", flask.text
    assert "disk full" in flask.json()["message"]
