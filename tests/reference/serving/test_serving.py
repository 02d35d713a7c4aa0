"""The serving model: TLS terminated in process with the client certificate handed to WSGI
middleware, watches that hold no thread, idle sockets that lock nobody out, a slow watcher cut off,
bad requests answered and closed."""

from __future__ import annotations

import dataclasses
import json
import select
import socket
import ssl
import threading
import time

import pytest
import requests
import trustme

from kube32.reference.config import Config
from kube32.reference.serve import THREADS, start_in_thread
from kube32.reference.serving import http as serving_http
from kube32.reference.serving import hub as hub_module

PODS = "/api/v1/namespaces/default/pods"
TIMEOUT = 10      # a bound on waiting, not an assertion on time
N_BIG = 30


@pytest.fixture(scope="module")
def server():
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"))
    yield running
    running.stop()


def test_tls_with_a_client_certificate_reaches_the_wsgi_middleware(tmp_path):
    ca = trustme.CA()
    server_cert = ca.issue_cert("127.0.0.1")
    client_cert = ca.issue_cert("node-a.kube32")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_cert.configure_cert(ctx)
    ca.configure_trust(ctx)
    ctx.verify_mode = ssl.CERT_REQUIRED
    seen = []

    def wrap(app):
        def middleware(environ, start_response):      # where an auth middleware goes
            seen.append((environ["wsgi.url_scheme"], environ[serving_http.PEER_CERT]))
            return app(environ, start_response)
        return middleware

    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"), ssl_context=ctx, wrap=wrap)
    try:
        ca_file, cert_file = tmp_path / "ca.pem", tmp_path / "client.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        client_cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
        assert running.url.startswith("https://")
        resp = requests.get(running.url + "/version", verify=str(ca_file), cert=str(cert_file), timeout=TIMEOUT)
        assert resp.status_code == 200 and resp.json()["major"]
        scheme, cert = seen[-1]
        assert scheme == "https"
        assert any("node-a.kube32" in str(v) for v in cert.get("subjectAltName", ()))
        with pytest.raises((requests.exceptions.SSLError, requests.exceptions.ConnectionError)):  # no client cert
            requests.get(running.url + "/version", verify=str(ca_file), timeout=TIMEOUT)
    finally:
        running.stop()


def open_watch(server) -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    s.sendall(f"GET {PODS}?watch=true HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    assert s.recv(12) == b"HTTP/1.1 200"
    return s


def _ended(watches: list[socket.socket]) -> list[bytes]:
    """What the watches that ended (or carry an ERROR event) have said."""
    said = []
    for s in watches:
        if select.select([s], [], [], 0)[0]:
            data = s.recv(65536, socket.MSG_PEEK)
            if not data or b"ERROR" in data or data.endswith(b"0\r\n\r\n"):
                said.append(data)
    return said


def test_more_watches_than_threads_and_the_server_still_answers(server):
    watches = [open_watch(server) for _ in range(THREADS * 4)]
    try:
        deadline = time.monotonic() + TIMEOUT      # a bound on waiting, not a speed target
        while server.hub.count() < THREADS * 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        # once seen at 63 of 64 on a machine at load 25: say which watch went, and why, if it recurs
        assert server.hub.count() >= THREADS * 4, _ended(watches)
        created = requests.post(server.url + PODS, json={"apiVersion": "v1", "kind": "Pod",
                                "metadata": {"name": "many"}, "spec": {"nodeName": "x", "containers": [{"name": "c"}]}},
                                timeout=TIMEOUT)
        assert created.status_code == 201
        for s in watches:                   # every watch gets the event
            data = b""
            while b'"name":"many"' not in data:
                chunk = s.recv(65536)
                assert chunk, "the watch ended"
                data += chunk
    finally:
        for s in watches:
            s.close()


def test_idle_half_open_sockets_lock_nobody_out(server):
    port = int(server.url.rsplit(":", 1)[1])
    idle = [socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) for _ in range(150)]
    try:
        for s in idle:
            s.sendall(b"GET /version HTTP/1.1\r\n")     # and never the rest
        assert requests.get(server.url + "/version", timeout=TIMEOUT).status_code == 200
    finally:
        for s in idle:
            s.close()


def test_a_watcher_that_stops_reading_is_cut_off_and_others_go_on(server, monkeypatch):
    monkeypatch.setattr(server._server, "limits", dataclasses.replace(server._server.limits, max_stream_buffer=1 << 20))
    port = int(server.url.rsplit(":", 1)[1])
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)       # before connecting: a small window
    slow.settimeout(TIMEOUT)
    slow.connect(("127.0.0.1", port))
    slow.sendall(f"GET {PODS}?watch=true HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    assert slow.recv(12) == b"HTTP/1.1 200"
    for conn in list(server._server.connections):     # and a small send buffer on the server's side
        sock = conn.transport.get_extra_info("socket")
        if sock is not None and sock.getpeername() == slow.getsockname():
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    fine = requests.get(server.url + PODS + "?watch=true", stream=True, timeout=TIMEOUT)
    seen: set[str] = set()

    def read_fine() -> None:          # a watcher that keeps up
        for line in fine.iter_lines(chunk_size=1 << 16):
            if line.strip():
                seen.add(json.loads(line)["object"]["metadata"]["name"])
            if f"big-{N_BIG - 1}" in seen:
                return

    reader = threading.Thread(target=read_fine)
    reader.start()
    try:
        big = "x" * 100_000        # N_BIG of these: past the small socket buffers and a 1 MiB bound
        for i in range(N_BIG):
            body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"big-{i}", "annotations": {"pad": big}},
                    "spec": {"nodeName": "x", "containers": [{"name": "c"}]}}
            assert requests.post(server.url + PODS, json=body, timeout=TIMEOUT).status_code == 201
        reader.join(TIMEOUT * 6)
        assert {f"big-{i}" for i in range(N_BIG)} <= seen
        slow.settimeout(TIMEOUT)
        received = b""
        while True:                          # the server closed it: reading ends (EOF or reset)
            try:
                chunk = slow.recv(1 << 20)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
        assert received.count(b'"type":"ADDED"') < N_BIG
    finally:
        slow.close()
        fine.close()


def test_a_malformed_request_gets_400_and_the_connection_closes(server):
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400")


def test_a_client_that_half_closes_after_its_requests_gets_every_answer(server):
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        s.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n" * 2)     # two pipelined, then EOF
        s.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    assert answer.count(b"HTTP/1.1 200 OK") == 2


def test_the_pool_grows_with_concurrent_requests_only():
    """One client at a time is served by one thread (or two: a worker counts itself idle only after
    its answer went to the loop, so the client's next request may arrive first); requests held open
    at once get a thread each, up to the pool's size, and the one beyond waits for a free thread
    instead of failing."""
    release = threading.Event()

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/hold":
            release.wait(TIMEOUT)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]

    server = serving_http.HttpServer(app, serving_http.bind("127.0.0.1", 0), threads=3)
    server.start()
    url = f"http://127.0.0.1:{server.port}"
    try:
        for _ in range(20):
            assert requests.get(url + "/quick", timeout=TIMEOUT).text == "ok"
        assert len(server._workers) <= 2          # not one per request
        answers: list[str] = []
        held = [threading.Thread(target=lambda: answers.append(requests.get(url + "/hold", timeout=TIMEOUT).text))
                for _ in range(4)]
        for t in held:
            t.start()
        deadline = time.monotonic() + TIMEOUT
        while len(server._workers) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(server._workers) == 3
        release.set()
        for t in held:
            t.join(TIMEOUT)
        assert answers == ["ok"] * 4 and len(server._workers) == 3
    finally:
        release.set()
        server.stop()


def test_one_drain_gives_each_kind_of_watch_exactly_its_events(server, monkeypatch):
    """Several writes in one drain (a long window, batching from one watch): a watch of every
    namespace, of one namespace, with a label selector, and of Table rows each get exactly their
    events, in order, the plain ones from one shared encoding."""
    monkeypatch.setattr(hub_module, "BATCH_FROM", 1)
    monkeypatch.setattr(hub_module, "BATCH_WINDOW", 0.5)
    requests.post(server.url + "/api/v1/namespaces", timeout=TIMEOUT,
                  json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "drain-b"}})
    rv = requests.get(server.url + "/api/v1/pods", timeout=TIMEOUT).json()["metadata"]["resourceVersion"]
    table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    paths = {"all": "/api/v1/pods", "a": "/api/v1/namespaces/default/pods", "b": "/api/v1/namespaces/drain-b/pods",
             "labelled": "/api/v1/pods?labelSelector=app%3Dx", "table": "/api/v1/namespaces/default/pods"}
    streams = {k: requests.get(f"{server.url}{p}{'&' if '?' in p else '?'}watch=true&resourceVersion={rv}",
                               stream=True, timeout=TIMEOUT, headers={"Accept": table} if k == "table" else {})
               for k, p in paths.items()}
    writes = [("default", "d1", {}), ("drain-b", "b1", {"app": "x"}), ("default", "d2", {"app": "x"}),
              ("drain-b", "b2", {})]
    for ns, name, labels in writes:
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
               "spec": {"nodeName": "x", "containers": [{"name": "c"}]}}
        assert requests.post(f"{server.url}/api/v1/namespaces/{ns}/pods", json=pod, timeout=TIMEOUT).status_code == 201
    expected = {"all": ["d1", "b1", "d2", "b2"], "a": ["d1", "d2"], "b": ["b1", "b2"], "labelled": ["b1", "d2"],
                "table": ["d1", "d2"]}
    try:
        for k, names in expected.items():
            lines = streams[k].iter_lines(chunk_size=1)
            got = []
            while len(got) < len(names):
                line = next(line for line in lines if line.strip())
                event = json.loads(line)
                assert event["type"] == "ADDED"
                obj = event["object"]
                got.append(obj["rows"][0]["object"]["metadata"]["name"] if k == "table" else obj["metadata"]["name"])
            assert got == names, k
    finally:
        for resp in streams.values():
            resp.close()
