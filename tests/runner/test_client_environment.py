"""The client reads the environment once per target URL, and honours it as requests would:
HTTP_PROXY sends requests through the proxy, NO_PROXY naming the host sends them straight."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kube32.conformance.client import ApiClient


@pytest.fixture
def forward_proxy():
    """A forward proxy that answers every request itself and records the request line's target."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:          # noqa: N802 - http.server's name
            seen.append(self.path)
            body = json.dumps({"gitVersion": "via-proxy"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def test_http_proxy_from_the_environment_carries_the_requests(reference, forward_proxy, monkeypatch):
    proxy_url, seen = forward_proxy
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy_url)
    api = ApiClient(reference.url)
    assert api.call("GET", "/version")["gitVersion"] == "via-proxy"
    assert api.call("GET", "/version")["gitVersion"] == "via-proxy"
    assert seen == [reference.url + "/version"] * 2        # absolute-form: the proxy was asked for it


def test_no_proxy_naming_the_host_sends_requests_straight(reference, forward_proxy, monkeypatch):
    proxy_url, seen = forward_proxy
    monkeypatch.setenv("HTTP_PROXY", proxy_url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    api = ApiClient(reference.url)
    assert api.call("GET", "/version")["gitVersion"] != "via-proxy"
    assert seen == []


def test_a_new_target_url_reads_the_environment_again(reference, forward_proxy, monkeypatch):
    """The in-process reference gets a new port per scenario: each URL is looked up for itself."""
    proxy_url, seen = forward_proxy
    monkeypatch.setenv("HTTP_PROXY", proxy_url)
    monkeypatch.setenv("NO_PROXY", "localhost")
    api = ApiClient(reference.url.replace("127.0.0.1", "localhost"))
    assert api.call("GET", "/version")["gitVersion"] != "via-proxy"
    api.base_url = reference.url
    assert api.call("GET", "/version")["gitVersion"] == "via-proxy"
    assert seen == [reference.url + "/version"]
