"""Helpers for the hostile-input tests: one hostile request sent while another client keeps reading."""

from __future__ import annotations

import dataclasses
import threading
import time

import requests

PROBE_PATH = "/api/v1/namespaces/default"
PROBE_BOUND = 5.0        # seconds: "answered at all while the hostile request runs", not a speed target
HOSTILE_TIMEOUT = 60.0   # a bound on waiting for the hostile answer itself


@dataclasses.dataclass
class Outcome:
    response: requests.Response
    seconds: float                 # how long the hostile request took
    probes: list[float]            # another client's GET latencies meanwhile

    @property
    def worst_probe(self) -> float:
        return max(self.probes)


def hostile(url: str, method: str, path: str, **kwargs) -> Outcome:
    """Send one request while a second client GETs ``PROBE_PATH`` in a loop (at least once, and
    until the hostile request is answered); every probe must be answered 200."""
    probes: list[float] = []
    failures: list[str] = []
    done = threading.Event()

    def probe() -> None:
        http = requests.Session()
        while True:
            start = time.monotonic()
            try:
                status = http.get(url + PROBE_PATH, timeout=HOSTILE_TIMEOUT).status_code
            except requests.RequestException as exc:
                failures.append(repr(exc))
                return
            probes.append(time.monotonic() - start)
            if status != 200:
                failures.append(f"probe answered {status}")
            if done.wait(0.02):
                return

    thread = threading.Thread(target=probe)
    thread.start()
    start = time.monotonic()
    try:
        resp = requests.request(method, url + path, timeout=HOSTILE_TIMEOUT, **kwargs)
    finally:
        seconds = time.monotonic() - start
        done.set()
        thread.join(HOSTILE_TIMEOUT)
    assert not failures, failures
    return Outcome(resp, seconds, probes)


def assert_status(outcome: Outcome, code: int, reason: str, *fragments: str) -> dict:
    """A Kubernetes Status with this code and reason (and these message fragments), and the other
    client was answered within ``PROBE_BOUND`` throughout."""
    resp = outcome.response
    body = resp.json()
    assert resp.status_code == code, (resp.status_code, body)
    assert body["kind"] == "Status" and body["code"] == code and body["reason"] == reason, body
    for fragment in fragments:
        assert fragment in body["message"], body["message"]
    assert outcome.probes and outcome.worst_probe < PROBE_BOUND, outcome.probes
    print(f"hostile -> {code} {reason} in {outcome.seconds:.3f} s; other client: {len(outcome.probes)} GETs, "
          f"worst {outcome.worst_probe:.3f} s")
    return body
