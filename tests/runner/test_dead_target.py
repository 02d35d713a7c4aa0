"""A target that stops answering mid-run is named at once: after ``GONE_AFTER`` scenarios in a row
could not reach it, the rest are errors, "not run", with the cause in one line; the report is kept
and the summary names the lost connection, not the leftovers it caused."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

from kube32.conformance import reachability
from tests.runner.faultproxy import FaultProxy


def _stop_after(proxy: FaultProxy, requests: int, done: threading.Event) -> None:
    while not done.is_set() and len(proxy.log) < requests:
        time.sleep(0.01)
    proxy.fault(refuse=3600.0)          # nothing listens there any more: connections are refused


def test_a_target_that_dies_mid_run_stops_the_run_with_one_line(reference, tmp_path):
    proxy = FaultProxy(reference.url).start()
    done = threading.Event()
    killer = threading.Thread(target=_stop_after, args=(proxy, 30, done), daemon=True)
    killer.start()
    try:
        out = subprocess.run([sys.executable, "-m", "kube32.conformance", "run", "--target", proxy.url,
                              "--area", "job", "--jobs", "1", "--request-timeout", "5", "--report", str(tmp_path / "report")],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600)
    finally:
        done.set()
        killer.join()
        proxy.stop()
    assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
    lines = out.stdout.splitlines()
    said = [ln for ln in lines if ln.startswith(f"kube32: {reachability.NOT_RUN}: target {proxy.url} stopped answering")]
    assert len(said) == 1, out.stdout[-3000:]
    assert " /api" in said[0] or " /debug" in said[0], said[0]     # the request that found it gone
    assert not any("CleanupFailed" in ln for ln in lines), out.stdout[-3000:]

    doc = json.loads((tmp_path / "report" / "clauses.json").read_text())
    runs = {s["nodeid"]: s for c in doc["clauses"] for s in c.get("scenarios", [])}
    not_run = [s for s in runs.values() if reachability.not_run(s["status"], s.get("message", ""))]
    reached_for = [s for s in runs.values() if s["status"] == "error" and s not in not_run]
    assert not_run, "the scenarios after the target died were run one by one"
    # only the scenarios that found it gone (and the one it died in) spent the client's retries on it
    assert len(reached_for) <= reachability.GONE_AFTER + 1, [s["name"] for s in reached_for]
    assert all("TargetUnavailable" in s["message"] for s in reached_for), [s["message"] for s in reached_for]
    assert lines[-1].startswith("kube32: ") and "error" in lines[-1]      # the one count, last
