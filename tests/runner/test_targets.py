"""Target drivers end to end: the same tiny feature on the in-process reference, on a `serve`
subprocess (manual clock, restartable), and on a plain HTTP URL (the packaged wheel: tests/packaging)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
import requests

from kube32.conformance.errors import TargetUnavailable
from kube32.conformance.targets.process import ServeProcess
from kube32.spec import profiles
from tests.conftest import feature_dir, run_features, statuses

FEATURE = textwrap.dedent('''
    Feature: targets
      Background:
        Given a kube32 control plane
        And these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |

      @clause-SCHED-BIND-ON-CREATE
      Scenario: bind on create
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then the create response for pod "p" names node "node-a"

      @clause-NODE-RESTART-GRACE @needs-restart
      Scenario: the control plane restarts and keeps its objects
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        And the control plane restarts
        Then pod "p" is bound to node "node-a"
        And node "node-a" is Ready
    ''')


@pytest.fixture
def features(tmp_path, monkeypatch):
    return feature_dir(tmp_path, monkeypatch, "targets.feature", FEATURE)


def run(pytester, tmp_path, *args) -> tuple[dict[str, str], dict]:
    _, doc = run_features(pytester, tmp_path / "report", *args)
    return statuses(doc), doc


@pytest.mark.parametrize("target", ["reference", "process"])
def test_restartable_targets_pass(features, pytester, tmp_path, target):
    got, doc = run(pytester, tmp_path, "--target", target)
    assert got["SCHED-BIND-ON-CREATE"] == "passed"
    assert got["NODE-RESTART-GRACE"] == "passed", doc
    assert doc["target"]["name"] == target


def test_plain_url_target_disables_restart(features, pytester, tmp_path):
    server = ServeProcess(profiles.load("simulator"), clock="manual")
    server.start(clock_start=1767225600.0)
    try:
        got, doc = run(pytester, tmp_path, "--target", server.url)
    finally:
        server.stop()
    assert got["SCHED-BIND-ON-CREATE"] == "passed"
    assert got["NODE-RESTART-GRACE"] == "disabled"
    assert doc["target"]["clock"] == "manual"


def test_serve_listens_where_the_system_puts_it_and_a_restart_keeps_the_port(tmp_path):
    """A first start listens on port 0 (no other process can take a picked port before the child
    binds it) and reads the port from serve's log; a restart keeps it, the clients know it. When
    another process took it meanwhile, the restart says so instead of answering from elsewhere."""
    server = ServeProcess(profiles.load("simulator"), clock="manual", data_dir=str(tmp_path))
    server.start(clock_start=1767225600.0)
    try:
        port = server.port
        assert port and server.url == f"http://127.0.0.1:{port}"
        assert requests.get(server.url + "/version", timeout=30).json()["gitVersion"].endswith("kube32.0")
        server.kill()
        server.start(clock_start=1767225600.0)
        assert server.port == port and requests.get(server.url + "/version", timeout=30).ok
        server.kill()
        other = HTTPServer(("127.0.0.1", port), _Answers)
        threading.Thread(target=other.serve_forever, daemon=True).start()
        try:
            with pytest.raises(TargetUnavailable, match=f"port {port} is taken"):
                server.start(clock_start=1767225600.0)
        finally:
            other.shutdown()
            other.server_close()
    finally:
        server.stop()


class _Answers(BaseHTTPRequestHandler):
    def do_GET(self):   # noqa: N802 - BaseHTTPRequestHandler's naming
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format, *args):   # noqa: A002 - BaseHTTPRequestHandler's signature
        pass


def test_a_killed_runner_leaves_no_server_behind(tmp_path):
    """The process target's `serve` child stops when the runner that started it dies (kill -9 runs
    no clean-up): a forgotten real-clock server would tick on and hold its port."""
    script = textwrap.dedent(f'''
        import os, sys
        from kube32.conformance.targets.process import ServeProcess
        from kube32.spec import profiles
        server = ServeProcess(profiles.load("simulator"), clock="real", data_dir={str(tmp_path)!r})
        server.start()
        print(server.proc.pid, flush=True)
        os.kill(os.getpid(), 9)
    ''')
    runner = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert runner.returncode == -9, runner.stderr
    child = int(runner.stdout.split()[0])
    deadline = time.monotonic() + 30          # a bound on waiting, not a speed target
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _alive(child)
    if alive:
        os.kill(child, 9)
    assert not alive, "serve outlived the runner that started it"
    assert "has ended; stopping" in (tmp_path / "serve.log").read_text()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"      # an exited child not yet reaped is a zombie
    except FileNotFoundError:
        return False
