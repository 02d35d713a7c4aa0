"""No client takes the server from the others, over real sockets: a pipelining client that never
reads gets a few answers and then waits in its own socket, and lets go of everything when it
leaves; silent connections and TLS handshakes count against the connection limit and give way to
new clients; one identity holds at most its share of watches; watches of computed views hold no
thread, whether their clients read or not. (How fast other clients are answered meanwhile, and the
server's memory, are measured by the load tests: tests/load/test_serving_attacks.py.)"""

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
from kube32.reference.serve import THREADS, limits, start_in_thread

TIMEOUT = 10      # a bound on waiting, not an assertion on time
VERSION = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def eventually(check, what: str, seconds: float = TIMEOUT):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            assert value, what
            return value
        time.sleep(0.02)


def closed_by_server(s: socket.socket) -> bool:
    """The server closed (or reset) this socket: it reads EOF."""
    if not select.select([s], [], [], 0)[0]:
        return False
    try:
        return s.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


@pytest.fixture
def counted():
    """A server whose app counts the requests it runs."""
    calls = [0]

    def wrap(app):
        def counting(environ, start_response):
            calls[0] += 1
            return app(environ, start_response)
        return counting

    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"), wrap=wrap)
    yield running, calls
    running.stop()


def server_side(server, client: socket.socket):
    """The server's Connection of a client socket (once accepted)."""
    name = client.getsockname()
    return eventually(lambda: next((c for c in list(server._server.connections)
                                    if c.transport.get_extra_info("peername") == name), None), "accepted")


def settled(counter: list[int]) -> int:
    """The count once it has stopped moving for a second (at most ``TIMEOUT`` s)."""
    deadline, last, since = time.monotonic() + TIMEOUT * 2, -1, time.monotonic()
    while time.monotonic() < deadline:
        if counter[0] != last:
            last, since = counter[0], time.monotonic()
        elif time.monotonic() - since > 1.0:
            break
        time.sleep(0.1)
    return counter[0]


def test_a_pipelining_client_that_never_reads_gets_a_few_answers_then_waits(counted):
    server, calls = counted
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)      # before connecting: a small window
    s.connect(("127.0.0.1", port_of(server)))
    conn = server_side(server, s)                                 # and a small send buffer on the server's side
    conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    s.setblocking(False)
    sent, deadline = 0, time.monotonic() + 5
    while time.monotonic() < deadline and sent < 40_000:
        try:
            sent += s.send(VERSION * 256) // len(VERSION)     # (whole requests: 256 fit the socket's buffer)
        except BlockingIOError:
            time.sleep(0.01)
    ran = settled(calls)
    answer = len(requests.get(server.url + "/version", timeout=TIMEOUT).content) + 150    # others go on
    limits = server._server.limits
    bound = (limits.write_high_water + 64 * 1024) // answer + limits.pipeline + 64 * 1024 // len(VERSION)
    print(f"the app ran {ran} of {sent} requests (bound {bound}); held: {conn.held} bytes, "
          f"{conn.buffered()} bytes of answers")
    assert ran <= bound < sent, (ran, bound, sent)
    assert conn.held <= 64 * 1024 + limits.pipeline * len(VERSION) * 2          # one read's worth waits unparsed
    assert conn.buffered() <= limits.write_high_water + answer
    s.close()
    eventually(lambda: len(server._server.connections) == 0 and server._server.read_held == 0,
               "the connection and what it held are let go once the client leaves")


def test_silent_connections_give_way_to_new_clients():
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", max_connections=16))
    try:
        silent = [socket.create_connection(("127.0.0.1", port_of(running)), timeout=TIMEOUT) for _ in range(40)]
        silent[-1].sendall(b"GET /vers")            # a first request trickling in counts as silent too
        for _ in range(3):                          # new clients are served
            assert requests.get(running.url + "/version", timeout=TIMEOUT).status_code == 200
        # the oldest went first; at most the limit is open at any time
        eventually(lambda: sum(closed_by_server(s) for s in silent[:24]) == 24, "the oldest silent ones were closed")
        assert len(running._server.connections) <= 16
        for s in silent:
            s.close()
    finally:
        running.stop()


def test_a_connection_that_never_sends_a_request_is_closed_after_the_request_timeout():
    config = Config(listen="127.0.0.1:0", clock="manual")
    running = start_in_thread(config, bounds=dataclasses.replace(limits(config), request_timeout=0.4))
    try:
        s = socket.create_connection(("127.0.0.1", port_of(running)), timeout=TIMEOUT)
        eventually(lambda: closed_by_server(s), "a silent connection is closed (not kept for the idle timeout)")
        s.close()
    finally:
        running.stop()


@pytest.fixture
def tls_server():
    ca = trustme.CA()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    config = Config(listen="127.0.0.1:0", clock="manual", max_connections=16)
    running = start_in_thread(config, ssl_context=ctx,
                              bounds=dataclasses.replace(limits(config), handshake_timeout=1.0))
    client = ssl.create_default_context()
    ca.configure_trust(client)
    yield running, client
    running.stop()


def tls_get(running, client: ssl.SSLContext, path: str = "/version") -> bytes:
    with socket.create_connection(("127.0.0.1", port_of(running)), timeout=TIMEOUT) as raw, \
            client.wrap_socket(raw, server_hostname="127.0.0.1") as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer


def test_tls_handshakes_count_against_the_limit_and_time_out(tls_server):
    running, client = tls_server
    silent = [socket.create_connection(("127.0.0.1", port_of(running)), timeout=TIMEOUT) for _ in range(40)]
    assert tls_get(running, client).startswith(b"HTTP/1.1 200")     # a real client still gets in
    eventually(lambda: sum(closed_by_server(s) for s in silent[:24]) == 24,
               "connections in the handshake were counted: the oldest gave way")
    assert len(running._server.connections) <= 16
    eventually(lambda: all(closed_by_server(s) for s in silent), "a handshake that never ends is closed")
    for s in silent:
        s.close()
    assert b'"major"' in tls_get(running, client)


def test_tls_clients_are_served_as_before(tls_server):
    running, client = tls_server
    with socket.create_connection(("127.0.0.1", port_of(running)), timeout=TIMEOUT) as raw, \
            client.wrap_socket(raw, server_hostname="127.0.0.1") as s:
        for _ in range(3):                                 # keep-alive over TLS
            s.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
            head = b""
            while b"\r\n\r\n" not in head:
                head += s.recv(1)
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            body = b""
            while len(body) < length:
                body += s.recv(length - len(body))
            assert head.startswith(b"HTTP/1.1 200") and json.loads(body)["major"]


def open_watch(server, path: str, headers: str = "") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port_of(server)), timeout=TIMEOUT)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\n{headers}\r\n".encode())
    return s


def status_of(s: socket.socket) -> tuple[int, bytes]:
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = s.recv(4096)
        if not chunk:
            break
        answer += chunk
    return int(answer.split(b" ", 2)[1]), answer


def test_one_identity_holds_at_most_its_share_of_watches(tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('alice-token,alice,1,"system:masters"\nbob-token,bob,2,"system:masters"\n')
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", token_auth_file=str(tokens),
                                     max_watches_per_user=3))
    alice, bob = "Authorization: Bearer alice-token\r\n", "Authorization: Bearer bob-token\r\n"
    pods = "/api/v1/namespaces/default/pods?watch=true"
    try:
        held = [open_watch(running, pods, alice) for _ in range(3)]
        assert [status_of(s)[0] for s in held] == [200, 200, 200]
        refused = open_watch(running, "/api/v1/endpoints?watch=true", alice)       # views count too
        code, answer = status_of(refused)
        assert code == 429 and b"Retry-After: 1" in answer
        body = answer.split(b"\r\n\r\n", 1)[1]
        while body.count(b"{") > body.count(b"}") or not body.endswith(b"\n"):
            body += refused.recv(4096)
        status = json.loads(body)
        assert status["reason"] == "TooManyRequests" and "user alice may hold at most 3 watches" in status["message"]
        other = open_watch(running, pods, bob)                   # another identity has its own share
        assert status_of(other)[0] == 200
        held[0].close()                                          # a watch that ends gives its place back
        eventually(lambda: status_of(open_watch(running, pods, alice))[0] == 200, "alice may watch again")
        for s in [*held, refused, other]:
            s.close()
    finally:
        running.stop()


@pytest.fixture
def manual_server():
    running = start_in_thread(Config(listen="127.0.0.1:0", clock="manual"))
    yield running
    running.stop()


def test_watches_of_computed_views_hold_no_thread_even_unread(manual_server):
    server = manual_server
    stuck = [open_watch(server, f"/api/v1/{'endpoints' if i % 2 else 'namespaces/default/endpoints'}?watch=true")
             for i in range(THREADS * 2)]
    for s in stuck:
        assert status_of(s)[0] == 200
    eventually(lambda: server.hub.count() >= THREADS * 2, "every view watch is on the hub")
    for _ in range(3):                  # another client is answered while none of them reads
        assert requests.get(server.url + "/api/v1/namespaces/default/pods", timeout=TIMEOUT).status_code == 200
    assert len(server._server._workers) <= THREADS
    for s in stuck:
        s.close()
    eventually(lambda: server.hub.count() == 0 and not server.hub.feeds, "closed view watches are let go")


def test_a_view_watch_tells_additions_changes_and_removals(manual_server):
    server = manual_server
    url = server.url
    ns = "/api/v1/namespaces/default"
    lines: list[dict] = []
    resp = requests.get(f"{url}{ns}/endpoints?watch=true&labelSelector=app%3Dweb", stream=True, timeout=TIMEOUT)

    def read() -> None:
        try:
            for line in resp.iter_lines(chunk_size=1):
                if line.strip():
                    lines.append(json.loads(line))
        except requests.RequestException:
            pass                                # closed at the end of the test

    threading.Thread(target=read, daemon=True).start()
    eventually(lambda: server.hub.count() == 1, "the watch is on the hub")
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"app": "web"}},
               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}
    assert requests.post(f"{url}{ns}/services", json=service, timeout=TIMEOUT).status_code == 201
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "labels": {"app": "web"}},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "blink"}]}}
    assert requests.post(f"{url}{ns}/pods", json=pod, timeout=TIMEOUT).status_code == 201
    status = {"status": {"phase": "Running", "podIP": "10.0.0.7",
                         "conditions": [{"type": "Ready", "status": "True"}]}}
    assert requests.patch(f"{url}{ns}/pods/web-1/status", json=status, timeout=TIMEOUT,
                          headers={"Content-Type": "application/merge-patch+json"}).status_code == 200

    def ips() -> list:
        latest = [e for e in lines if e["type"] in ("ADDED", "MODIFIED")]
        subsets = latest[-1]["object"].get("subsets") if latest else None
        return [a["ip"] for s in subsets or [] for a in s.get("addresses", [])]

    eventually(lambda: ips() == ["10.0.0.7"], f"the pod's address is told: {lines}")
    assert lines[0]["type"] == "ADDED" and lines[0]["object"]["metadata"]["name"] == "web"
    assert requests.delete(f"{url}{ns}/services/web", timeout=TIMEOUT).status_code == 200
    eventually(lambda: lines[-1]["type"] == "DELETED", f"the Endpoints' removal is told: {lines}")
    # (the stream ends with the server: closing it here would wait for the reader's blocked read)
