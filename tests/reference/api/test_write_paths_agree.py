"""Random creates and Lease renewals get the same answer through the path below Flask
(``api.creates``, ``api.renewals``) as through the Flask app alone: two apps in the same state get
the same requests (bodies valid and not, media types, Accept headers, dryRun and other query
parameters, names, namespaces, resourceVersions), one through the path the server runs, the other
through Flask, and answer the same status line, Content-Type, Content-Length, Retry-After and bytes,
and end with the same objects stored. A plain request (what a kubelet or client sends: a JSON body,
no query, no Table) that succeeds is answered below Flask, so the path is really taken.

Also: the path refuses to start on an app whose request hooks it does not replicate."""

from __future__ import annotations

import contextlib
import json
from unittest import mock

import pytest
from api_helpers import Uids
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from werkzeug.test import Client

from kube32.reference.api import shortcut, writes
from kube32.reference.api.creates import Creates
from kube32.reference.api.renewals import LeaseRenewals
from kube32.reference.api.shortcut import UnreplicatedHook
from kube32.reference.app import create_app
from kube32.reference.config import Config
from kube32.reference.store import store as store_module

START = 1_780_000_000
LEASES = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
PODS = "/api/v1/namespaces/{ns}/pods"
# The Content-Types a plain request carries (every spelling of JSON alone), written out here
PLAIN_JSON = ("application/json", "application/json; charset=utf-8", "Application/JSON")
HEADERS_THAT_MATTER = ("Content-Type", "Content-Length", "Retry-After")


def pod(name, ns, memory="1Ki"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"nodeSelector": {"board": "s3"}, "containers": [
                {"name": "c", "image": "blink", "resources": {"requests": {"memory": memory}}}]}}


def lease(name, ns, second):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name, "namespace": ns},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40,
                     "renewTime": f"2026-12-01T10:00:{second:02d}.000000Z"}}


# A change to a valid body: (where, value); "drop" removes the key
CHANGES = st.sampled_from([
    None, ("kind", "Node"), ("apiVersion", "v2"), ("metadata.namespace", "kube-system"),
    ("metadata.name", "other"), ("metadata.name", "Not_A_Name"), ("metadata.resourceVersion", "1"),
    ("metadata.resourceVersion", "current"), ("metadata.resourceVersion", 7), ("metadata", "drop"),
    ("metadata", []), ("metadata.generateName", "gen-"), ("spec", ["not", "an", "object"]),
    ("spec.leaseDurationSeconds", "forty"), ("spec.leaseDurationSeconds", 2 ** 40),
    ("spec.containers", {"name": "c"}), ("spec.renewTime", "yesterday"), ("status", {"phase": "Running"}),
    ("metadata.labels", {"app": "blink"}), ("metadata.uid", "someone-else"),
])
RAW = st.sampled_from([b"", b"{not json", b"[]", b'"a string"', b"\xff\xfe", b"null", b"{}", b'{"a": NaN}',
                       b"apiVersion: v1\nkind: Pod\nmetadata: {name: y}\nspec: {containers: [{name: c, image: b}]}\n"])


def mostly(usual: st.SearchStrategy, other: st.SearchStrategy) -> st.SearchStrategy:
    """``usual`` seven times in ten: most requests are what a client sends, the rest anything."""
    return st.integers(0, 9).flatmap(lambda n: usual if n < 7 else other)


REQUESTS = st.fixed_dictionaries({
    "what": st.sampled_from(["create pod", "create lease", "renew lease", "renew lease", "put pod"]),
    "ns": mostly(st.just("kube-node-lease"), st.sampled_from(["default", "nowhere"])),
    "name": st.sampled_from(["node-a", "node-a", "node-b", "p1"]),
    "second": st.integers(0, 59),
    "change": mostly(st.none(), CHANGES),
    "raw": mostly(st.none(), st.one_of(st.none(), RAW)),
    "content_type": mostly(st.sampled_from(PLAIN_JSON), st.sampled_from([
        "application/yaml", "text/plain", "", "application/json;as=Table;v=v1;g=meta.k8s.io",
        "application/vnd.kubernetes.protobuf", "application/merge-patch+json", "application/json, text/plain"])),
    "accept": mostly(st.sampled_from([None, "*/*", "application/json"]), st.sampled_from([
        "application/yaml", "application/json;as=Table;v=v1;g=meta.k8s.io", "application/vnd.kubernetes.protobuf",
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json"])),
    "query": mostly(st.just(""), st.sampled_from(["dryRun=All", "dryRun=Bogus", "fieldManager=kubelet", "pretty=true"])),
})


def _changed(body: dict, change, stored_rv: str | None) -> dict:
    if change is None:
        return body
    where, value = change
    *path, key = where.split(".")
    into = body
    for part in path:
        into = into.setdefault(part, {}) if isinstance(into, dict) else {}
    if not isinstance(into, dict):
        return body
    if value == "drop":
        into.pop(key, None)
    else:
        into[key] = stored_rv if value == "current" else value
    return body


def _request(req: dict, flask_app) -> tuple[str, str, bytes]:
    """(method, path with query, body) of a generated request, against the state of ``flask_app``."""
    ns, name = req["ns"], req["name"]
    if req["what"] == "create pod":
        method, path, body = "POST", PODS.format(ns=ns), pod(name, ns)
    elif req["what"] == "create lease":
        method, path, body = "POST", LEASES.format(ns=ns), lease(name, ns, req["second"])
    elif req["what"] == "renew lease":
        method, path, body = "PUT", f"{LEASES.format(ns=ns)}/{name}", lease(name, ns, req["second"])
    else:
        method, path, body = "PUT", f"{PODS.format(ns=ns)}/{name}", pod(name, ns, f"{req['second'] + 1}Ki")
    stored = flask_app.extensions["kube32"].store.head.try_get(
        "leases.coordination.k8s.io" if "lease" in req["what"] else "pods", ns, name)
    data = req["raw"] if req["raw"] is not None else json.dumps(
        _changed(body, req["change"], stored and stored["metadata"]["resourceVersion"])).encode()
    return method, path + (f"?{req['query']}" if req["query"] else ""), data


def _plain(req: dict) -> bool:
    accept = req["accept"] or ""
    return not req["query"] and req["content_type"] in PLAIN_JSON and "Table" not in accept \
        and req["what"] != "put pod"


@contextlib.contextmanager
def _pair(uids: Uids):
    """Two apps in the same state (a Ready node, one Lease): the first behind the path below Flask."""
    apps = [create_app(Config(clock="manual", clock_start=START, run_loops=False)) for _ in range(2)]
    served = LeaseRenewals(apps[0], fallback=Creates(apps[0]))
    figures = {"memory": "200Ki", "esp32.io/gpio": "8"}
    for app in apps:
        uids.next = 0
        client = Client(app)
        client.post("/api/v1/nodes", json={"apiVersion": "v1", "kind": "Node",
                                           "metadata": {"name": "esp-0", "labels": {"board": "s3"}}})
        client.patch("/api/v1/nodes/esp-0/status", content_type="application/merge-patch+json", data=json.dumps(
            {"status": {"capacity": figures, "allocatable": figures,
                        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}))
        client.post(LEASES.format(ns="kube-node-lease"), json=lease("node-a", "kube-node-lease", 0))
    try:
        yield served, apps
    finally:
        for app in apps:
            app.extensions["kube32"].stop()


def _stored(app) -> bytes:
    store = app.extensions["kube32"].store
    return json.dumps([store.list(key, None) for key in ("pods", "leases.coordination.k8s.io")]).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(REQUESTS, min_size=1, max_size=6))
def test_random_creates_and_renewals_get_the_same_answer_below_flask_as_through_flask(requests):
    uids = Uids()
    with mock.patch.object(store_module, "uuid", uids), mock.patch.object(writes, "uuid", uids), _pair(uids) as (served, apps):
        below, flask_app = Client(served), Client(apps[1])
        for req in requests:
            method, path, data = _request(req, apps[1])
            headers = {"Content-Type": req["content_type"]} | ({"Accept": req["accept"]} if req["accept"] else {})
            taken = served.answered + served.fallback.answered
            first = uids.next
            ours = below.open(path, method=method, data=data, headers=headers)
            taken = served.answered + served.fallback.answered - taken
            drawn, uids.next = uids.next, first
            theirs = flask_app.open(path, method=method, data=data, headers=headers)
            assert uids.next == drawn
            assert ours.status == theirs.status, (req, ours.data, theirs.data)
            for header in HEADERS_THAT_MATTER:
                assert ours.headers.get(header) == theirs.headers.get(header), (header, req)
            assert ours.data == theirs.data, (requests, req)
            if _plain(req) and ours.status_code < 300:
                event("a plain write answered below Flask")
                assert taken == 1, req
            event(f"{ours.status_code} {'below' if taken else 'through'} Flask")
        assert _stored(apps[0]) == _stored(apps[1]), requests


def _app_with(hook: str):
    app = create_app(Config(clock="manual", clock_start=START, run_loops=False))
    getattr(app, hook)(lambda *args: args[0] if args else None)
    return app


@pytest.mark.parametrize("hook", ["before_request", "after_request", "teardown_request", "teardown_appcontext"])
def test_the_path_below_flask_refuses_an_app_with_a_hook_it_does_not_replicate(hook):
    app = _app_with(hook)
    try:
        for shortcut in (Creates, LeaseRenewals):
            with pytest.raises(UnreplicatedHook, match=hook):
                shortcut(app)
    finally:
        app.extensions["kube32"].stop()


def test_the_path_below_flask_refuses_an_authenticating_app(tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("secret,admin,1,system:masters\n")
    app = create_app(Config(clock="manual", clock_start=START, run_loops=False, token_auth_file=str(tokens)))
    try:
        with pytest.raises(UnreplicatedHook, match="gate"):
            Creates(app)
    finally:
        app.extensions["kube32"].stop()


def test_the_path_below_flask_starts_on_the_app_as_built():
    app = create_app(Config(clock="manual", clock_start=START, run_loops=False))
    try:
        assert LeaseRenewals(app, fallback=Creates(app)).answered == 0
    finally:
        app.extensions["kube32"].stop()


def test_the_paths_the_path_below_flask_remembers_stay_within_their_bytes():
    app = create_app(Config(clock="manual", clock_start=START, run_loops=False))
    try:
        renewals = LeaseRenewals(app)
        environ = {"REQUEST_METHOD": "PUT", "CONTENT_TYPE": "application/json"}
        long_name = "n" * 200
        for i in range(3 * shortcut.MEMO_BYTES // (200 + shortcut.MEMO_ENTRY_BYTES)):
            environ["PATH_INFO"] = f"{LEASES.format(ns='kube-node-lease')}/{long_name}{i}"
            assert renewals.recognise(environ).name == f"{long_name}{i}"
        remembered = sum(len(path) + shortcut.MEMO_ENTRY_BYTES for path in renewals._targets)
        assert 0 < remembered <= shortcut.MEMO_BYTES
    finally:
        app.extensions["kube32"].stop()
