"""A counting, delaying HTTP proxy for measuring what the runner asks of a target.

    with Proxy("http://127.0.0.1:6443", delay=0.02) as proxy:   # 20 ms added to every answer
        ... run against proxy.url ...
    proxy.count, proxy.by_route()

Also a command: ``python -m tests.proxy UPSTREAM [--delay S] [--port N]`` (prints counts on ^C).
Only what the runner needs: methods, paths, bodies and status pass through; streaming does not.
"""

from __future__ import annotations

import argparse
import collections
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


def route(method: str, path: str) -> str:
    """``GET /api/v1/namespaces/k32-1/pods/web`` -> ``GET pods/{name}``: a request's kind."""
    path = path.split("?", 1)[0]
    path = re.sub(r"/namespaces/[^/]+", "", path)
    parts = [p for p in path.split("/") if p]
    for prefix in (["api", "v1"], ["apis"]):
        if parts[:len(prefix)] == prefix:
            parts = parts[len(prefix):]
            if prefix == ["apis"]:
                parts = parts[2:]
    if not parts:
        return f"{method} {path}"
    kind, rest = parts[0], parts[1:]
    return f"{method} {kind}" + ("/{name}" if rest else "") + ("/" + "/".join(rest[1:]) if len(rest) > 1 else "")


class Proxy:
    def __init__(self, upstream: str, delay: float = 0.0, port: int = 0) -> None:
        self.upstream = upstream.rstrip("/")
        self.delay = delay
        self.routes: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._local = threading.local()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY, as real proxies set it: the answer goes out as two writes (head, body), and
            # with Nagle's algorithm the body waited for the client's delayed ACK of the head, ~40 ms
            # more per answer than the delay this proxy is meant to add
            disable_nagle_algorithm = True

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"host"}}
                with proxy._lock:
                    proxy.routes[route(self.command, self.path)] += 1
                try:
                    answer = proxy._session().request(self.command, proxy.upstream + self.path, data=body,
                                                      headers=headers, timeout=120)
                except requests.RequestException as exc:
                    self.send_error(502, f"upstream: {exc}")
                    return
                if proxy.delay:
                    time.sleep(proxy.delay)
                self.send_response(answer.status_code)
                for k, v in answer.headers.items():
                    if k.lower() not in HOP_BY_HOP:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="kube32-proxy", daemon=True)

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    @property
    def count(self) -> int:
        return sum(self.routes.values())

    def by_route(self, top: int = 15) -> list[tuple[str, int]]:
        return self.routes.most_common(top)

    def start(self) -> Proxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("upstream")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    proxy = Proxy(args.upstream, args.delay, args.port).start()
    print(f"proxy {proxy.url} -> {args.upstream} (+{args.delay * 1000:.0f} ms)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print(f"{proxy.count} requests")
        for name, n in proxy.by_route(30):
            print(f"{n:8} {name}")
        proxy.stop()


if __name__ == "__main__":
    main()
