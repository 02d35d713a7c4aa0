"""Watch streams over the real reference server: headers at once, ADDED/MODIFIED/DELETED in order, from a
resourceVersion, an expired version as an ERROR event, Table rows, timeoutSeconds."""

from __future__ import annotations

import json

import pytest
import requests

from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread

LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
READ_TIMEOUT = 10        # a bound on waiting, not an assertion on time


@pytest.fixture(scope="module")
def server():
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"))
    yield running
    running.stop()


def lease(name: str, holder: str = "a") -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15}}


class Stream:
    """Reads newline-delimited watch events; blank keep-alive lines are skipped."""

    def __init__(self, resp: requests.Response):
        self.resp = resp
        self.lines = resp.iter_lines(chunk_size=1)

    def next(self) -> dict:
        for line in self.lines:
            if line.strip():
                return json.loads(line)
        raise AssertionError("the watch stream ended")

    def rest(self) -> list[dict]:
        return [json.loads(line) for line in self.lines if line.strip()]

    def close(self):
        self.resp.close()


def watch(server, path: str, headers: dict | None = None) -> Stream:
    resp = requests.get(server.url + path, stream=True, timeout=READ_TIMEOUT, headers=headers or {})
    assert resp.status_code == 200, resp.text
    return Stream(resp)


def test_headers_arrive_before_any_event(server):
    """With nothing to report, the status line and headers still come at once (kubectl wait hangs
    otherwise): requests.get returns instead of timing out."""
    rv = requests.get(server.url + LEASES).json()["metadata"]["resourceVersion"]
    resp = requests.get(f"{server.url}{LEASES}?watch=true&resourceVersion={rv}", stream=True, timeout=READ_TIMEOUT)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"].startswith("application/json")
    assert resp.headers.get("Transfer-Encoding") == "chunked"
    resp.close()


def test_changes_after_a_resource_version_in_order(server):
    s = requests.Session()
    created = s.post(server.url + LEASES, json=lease("w1")).json()
    w = watch(server, f"{LEASES}?watch=1&resourceVersion={created['metadata']['resourceVersion']}")
    s.patch(f"{server.url}{LEASES}/w1", json={"spec": {"holderIdentity": "b"}},
            headers={"Content-Type": "application/merge-patch+json"})
    s.delete(f"{server.url}{LEASES}/w1")
    first, second = w.next(), w.next()
    w.close()
    assert (first["type"], first["object"]["spec"]["holderIdentity"]) == ("MODIFIED", "b")
    assert second["type"] == "DELETED" and second["object"]["metadata"]["name"] == "w1"
    assert int(second["object"]["metadata"]["resourceVersion"]) > int(first["object"]["metadata"]["resourceVersion"])


def test_resource_version_zero_starts_with_current_objects(server):
    requests.post(server.url + LEASES, json=lease("w2"))
    w = watch(server, f"{LEASES}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dw2")
    first = w.next()
    requests.delete(f"{server.url}{LEASES}/w2")
    second = w.next()
    w.close()
    assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "w2")
    assert second["type"] == "DELETED"


def test_watch_replays_history_from_an_old_version(server):
    base = requests.post(server.url + LEASES, json=lease("w3")).json()["metadata"]["resourceVersion"]
    for holder in ("x", "y"):
        requests.patch(f"{server.url}{LEASES}/w3", json={"spec": {"holderIdentity": holder}},
                       headers={"Content-Type": "application/merge-patch+json"})
    w = watch(server, f"{LEASES}?watch=true&resourceVersion={base}&fieldSelector=metadata.name%3Dw3")
    holders = [w.next()["object"]["spec"]["holderIdentity"] for _ in range(2)]
    w.close()
    assert holders == ["x", "y"]


def test_label_selector_filters_events(server):
    rv = requests.get(server.url + LEASES).json()["metadata"]["resourceVersion"]
    w = watch(server, f"{LEASES}?watch=true&resourceVersion={rv}&labelSelector=pick%3Dme")
    requests.post(server.url + LEASES, json=lease("skip"))
    body = lease("keep")
    body["metadata"]["labels"] = {"pick": "me"}
    requests.post(server.url + LEASES, json=body)
    event = w.next()
    w.close()
    assert event["object"]["metadata"]["name"] == "keep"


def test_expired_resource_version_is_an_error_event(server):
    server.control_plane.store.history.floor = server.control_plane.store.resource_version
    w = watch(server, f"{LEASES}?watch=true&resourceVersion=1")
    event = w.next()
    assert w.rest() == []
    assert event["type"] == "ERROR"
    status = event["object"]
    assert status["kind"] == "Status" and status["code"] == 410 and status["reason"] == "Expired"
    assert status["message"].startswith("too old resource version: 1 (")


def test_timeout_seconds_ends_the_stream(server):
    rv = requests.get(server.url + LEASES).json()["metadata"]["resourceVersion"]
    w = watch(server, f"{LEASES}?watch=true&resourceVersion={rv}&timeoutSeconds=1")
    assert w.rest() == []


def test_table_watch_sends_one_row_tables(server):
    requests.post(server.url + LEASES, json=lease("w4", holder="node-a"))
    w = watch(server, f"{LEASES}?watch=true&fieldSelector=metadata.name%3Dw4", headers={"Accept": TABLE})
    assert w.resp.headers["Content-Type"] == "application/json;as=Table;v=v1;g=meta.k8s.io"
    event = w.next()
    w.close()
    table = event["object"]
    assert event["type"] == "ADDED" and table["kind"] == "Table"
    assert [r["cells"][:2] for r in table["rows"]] == [["w4", "node-a"]]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


def test_invalid_resource_version_is_bad_request(server):
    resp = requests.get(f"{server.url}{LEASES}?watch=true&resourceVersion=abc", timeout=READ_TIMEOUT)
    assert resp.status_code == 400 and resp.json()["reason"] == "BadRequest"
