"""Reports are rewritten after every scenario: a run killed in the middle of a long real-time wait
leaves readable reports marked incomplete; the terminal said each scenario on its own line and
gave a heartbeat during the wait."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET

import pytest
import requests

from tests.conftest import REPO

FEATURE = textwrap.dedent('''
    Feature: a run that is killed
      Background:
        Given a kube32 control plane
        And these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |

      @clause-SCHED-BIND-ON-CREATE
      Scenario: a pod binds to the only node
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then the create response for pod "p" names node "node-a"

      @clause-SCHED-TIE-BREAK
      Scenario: a long wait the run does not survive
        When 300 seconds pass
        Then pod "q" is bound to node "node-a"
    ''')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(predicate, what: str, timeout: float = 120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def server():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kube32.conformance", "serve", "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"

    def up():
        try:
            return requests.get(url + "/version", timeout=1).ok
        except requests.RequestException:
            return False

    try:
        _wait_for(up, "the reference to serve")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_killed_run_leaves_readable_reports_marked_incomplete(server, tmp_path):
    features = tmp_path / "features"
    features.mkdir()
    (features / "killed.feature").write_text(FEATURE)
    report, out = tmp_path / "report", tmp_path / "stdout.txt"
    env = {**os.environ, "KUBE32_FEATURES": str(features)}
    with out.open("w") as stdout:
        runner = subprocess.Popen(
            [sys.executable, "-m", "pytest", "--pyargs", "kube32.conformance.bind", "-p", "no:cacheprovider",
             "-p", "no:xdist", "-p", "no:randomly", "-p", "no:labgrid", "-o", "addopts=", "-q", "--target", server,
             "--report", str(report), "--heartbeat", "1"],
            cwd=REPO, env=env, stdout=stdout, stderr=subprocess.STDOUT)
        try:
            # any beat will do: on a busy machine a 1 s heartbeat may print 1/300 s then 3/300 s
            _wait_for(lambda: re.search(r"waiting for When 300 seconds pass: \d+/300 s", out.read_text()),
                      "a heartbeat")
        finally:
            runner.send_signal(signal.SIGKILL)
            runner.wait(timeout=30)
    text = out.read_text()
    assert "\x1b" not in text                                        # not a terminal: plain lines
    assert "PASSED    SCHED-BIND-ON-CREATE  features/killed.feature:10  a pod binds to the only node" in text
    doc = json.loads((report / "clauses.json").read_text())
    assert doc["run"]["complete"] is False
    status = {row["id"]: row["status"] for row in doc["clauses"]}
    assert status["SCHED-BIND-ON-CREATE"] == "passed"
    assert status["SCHED-TIE-BREAK"] == "pending"           # selected, never finished
    assert status["JOB-BACKOFF-LIMIT"] == "uncovered"
    assert "Incomplete report" in (report / "index.html").read_text()
    suite = ET.parse(report / "junit.xml").getroot().find("testsuite")
    assert suite.get("tests") == "1"
    assert ("complete", "false") in [(p.get("name"), p.get("value")) for p in suite.iter("property")]
    assert len(json.loads((report / "cucumber.json").read_text())[0]["elements"]) == 1
