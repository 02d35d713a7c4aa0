"""What the serving layer itself answers, over a real socket: a body or a head beyond its bound is
413 or 431 (a Kubernetes Status, before the body is read), a chunked body reaches the app whole,
and the health endpoints answer as upstream's do, to anyone."""

from __future__ import annotations

import json
import socket

import pytest
import requests

from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread
from kube32.spec import constants

TIMEOUT = 10      # a bound on waiting, not an assertion on time


@pytest.fixture(scope="module")
def server():
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"))
    yield running
    running.stop()


def exchange(server, data: bytes) -> tuple[int, dict, bytes]:
    """Send raw bytes, read until the server closes: (status, headers, body)."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        s.sendall(data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def test_a_declared_body_past_the_limit_is_413_before_it_is_sent(server):
    code, headers, body = exchange(server, b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
                                           b"Content-Type: application/json\r\nContent-Length: 50000000\r\n\r\n")
    status = json.loads(body)
    assert code == 413 and headers["Content-Type"] == "application/json"
    assert status["kind"] == "Status" and status["reason"] == "RequestEntityTooLarge" and status["code"] == 413
    assert f"the limit is {constants.MAX_REQUEST_BODY_BYTES} bytes" in status["message"]


def test_a_chunked_body_past_the_limit_is_413(server):
    piece = b"x" * 65536
    chunks = b"".join(b"%x\r\n%b\r\n" % (len(piece), piece) for _ in range(constants.MAX_REQUEST_BODY_BYTES // 65536 + 2))
    code, _, body = exchange(server, b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
                                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
    assert code == 413 and json.loads(body)["reason"] == "RequestEntityTooLarge"


def test_a_head_past_the_limit_is_431(server):
    code, _, body = exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
    status = json.loads(body)
    assert code == 431 and status["code"] == 431 and "headers exceed the limit" in status["message"]


def test_a_malformed_request_is_a_400_status(server):
    code, _, body = exchange(server, b"NOT HTTP AT ALL\r\n\r\n")
    assert code == 400 and json.loads(body)["reason"] == "BadRequest"


def test_a_chunked_patch_reaches_the_app_whole(server):
    body = json.dumps({"metadata": {"labels": {"sent": "chunked"}}}).encode()
    framed = b"".join(b"%x\r\n%b\r\n" % (len(part), part) for part in (body[:7], body[7:])) + b"0\r\n\r\n"
    code, _, answer = exchange(server, b"PATCH /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                                       b"Content-Type: application/merge-patch+json\r\n"
                                       b"Transfer-Encoding: chunked\r\n\r\n" + framed)
    assert code == 200, answer
    assert json.loads(answer)["metadata"]["labels"]["sent"] == "chunked"
    # the same through a client that streams its body (requests sends a generator chunked)
    resp = requests.patch(server.url + "/api/v1/namespaces/default", data=iter([b'{"metadata":{"labels":',
                                                                                 b'{"sent":"twice"}}}']),
                          headers={"Content-Type": "application/merge-patch+json"}, timeout=TIMEOUT)
    assert resp.status_code == 200 and resp.json()["metadata"]["labels"]["sent"] == "twice"


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez"])
def test_health_endpoints_answer_as_upstream(server, path):
    resp = requests.get(server.url + path, timeout=TIMEOUT)
    assert resp.status_code == 200 and resp.text == "ok"
    assert resp.headers["Content-Type"].startswith("text/plain")
    verbose = requests.get(server.url + path + "?verbose", timeout=TIMEOUT)
    assert verbose.status_code == 200
    assert verbose.text.splitlines()[0] == "[+]ping ok"
    assert verbose.text.endswith(f"{path[1:]} check passed\n")
    assert requests.get(server.url + path + "/ping", timeout=TIMEOUT).text == "ok"
    assert requests.get(server.url + path + "/nothing", timeout=TIMEOUT).status_code == 404


def test_readyz_fails_once_the_store_is_closed():
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"))
    try:
        running.control_plane.store.close()
        resp = requests.get(running.url + "/readyz?verbose", timeout=TIMEOUT)
        assert resp.status_code == 500
        assert "[-]store failed: reason withheld" in resp.text and resp.text.endswith("readyz check failed\n")
        assert requests.get(running.url + "/livez", timeout=TIMEOUT).status_code == 200
    finally:
        running.stop()


def test_health_endpoints_are_public_on_a_server_that_authenticates(tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('admin-token,admin,1,"system:masters"\n')
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", token_auth_file=str(tokens)))
    try:
        for path in ("/healthz", "/readyz", "/livez"):
            assert requests.get(running.url + path, timeout=TIMEOUT).text == "ok"
        assert requests.get(running.url + "/api/v1/nodes", timeout=TIMEOUT).status_code == 401
    finally:
        running.stop()


def test_a_request_asking_to_switch_protocols_gets_the_apps_answer(server):
    """kubectl exec asks to upgrade; the server never does, and the app's Status says why."""
    with socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])), timeout=TIMEOUT) as s:
        s.sendall(b"POST /api/v1/namespaces/default/pods/p/exec?command=ls HTTP/1.1\r\n"
                  b"Host: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}\n"):
            answer += s.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert int(head.split()[1]) >= 400 and json.loads(body)["kind"] == "Status"
