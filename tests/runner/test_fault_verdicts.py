"""The verdict rules of docs/REPORTS.md, one by one: a correct reference (manual clock) behind a
proxy that breaks on purpose. Whatever the network or the proxy does must never become a
``failed`` clause; what the target itself answers (a Status 500) must."""

from __future__ import annotations

import textwrap

import pytest

from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread
from tests.conftest import feature_dir, run_features, statuses
from tests.runner.faultproxy import FaultProxy

FEATURE = textwrap.dedent('''
    Feature: faults
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
        And 2 seconds pass
        Then pod "p" is bound to node "node-a"

      @clause-SCHED-TIE-BREAK @needs-exclusive-nodes
      Scenario: a scenario that owns the node set
        When I create a pod "q" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then pod "q" is bound to node "node-a"
    ''')

BIND, OWN = "SCHED-BIND-ON-CREATE", "SCHED-TIE-BREAK"
PODS = r"/api/v1/namespaces/[^/]+/pods"


@pytest.fixture
def features(tmp_path, monkeypatch):
    return feature_dir(tmp_path, monkeypatch, "faults.feature", FEATURE)


@pytest.fixture
def reference():
    server = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", clock_start=1767225600.0))
    yield server
    server.stop()


@pytest.fixture
def proxy(reference):
    p = FaultProxy(reference.url).start()
    yield p
    p.stop()


def run(pytester, tmp_path, proxy_or_url, *args):
    url = proxy_or_url if isinstance(proxy_or_url, str) else proxy_or_url.url
    result, doc = run_features(pytester, tmp_path / "report", "--target", url, *args)
    return result, doc, statuses(doc)


def scenario(doc: dict, clause: str) -> dict:
    return next(r for r in doc["clauses"] if r["id"] == clause)["scenarios"][0]


# -- connection failures, timeouts and 502/503/504 are `error` (the retries: test_client_retries.py) --
def test_an_unreachable_target_is_one_short_error(features, pytester, tmp_path, proxy):
    proxy.stop()
    result, doc, got = run(pytester, tmp_path, proxy)
    assert (got[BIND], got[OWN]) == ("error", "error")
    assert result.ret == 1
    out = result.stdout.str()
    assert "urllib3" not in out and "Traceback" not in out, out[-3000:]
    assert "connection failed" in scenario(doc, BIND)["message"]
    result.assert_outcomes(errors=2)        # pytest counts what the clause summary counts
    assert doc["summary"]["scenarios"]["error"] == 2


def test_a_gateway_answer_to_a_write_is_an_error(features, pytester, tmp_path, proxy):
    proxy.fault(status=502, method="POST", path=PODS)
    result, doc, got = run(pytester, tmp_path, proxy, "--clause", BIND)
    assert got[BIND] == "error", doc
    assert "502 BadGateway" in scenario(doc, BIND)["message"]
    assert len(proxy.requests("POST", PODS)) == 1
    assert result.ret == 1
    result.assert_outcomes(errors=1)         # an ERROR in pytest's words too, though it happened in a step


def test_a_share_of_gateway_errors_is_never_a_failure(features, pytester, tmp_path, proxy):
    proxy.fault(status=503, every=4, method="GET")      # a quarter of the reads: retried, nothing shows
    _, doc, got = run(pytester, tmp_path, proxy)
    assert (got[BIND], got[OWN]) == ("passed", "passed"), doc
    assert sum(e[2] == "status 503" for e in proxy.log) >= 3
    proxy.clear()
    proxy.fault(status=503, rate=0.2)                   # writes are not: errors, never failed/disabled
    result, doc, got = run(pytester, tmp_path, proxy)
    assert {got[BIND], got[OWN]} <= {"passed", "error"} and "error" in {got[BIND], got[OWN]}, doc
    assert result.ret == 1


# -- any other 5xx to a valid request is `failed`, quoting the Status ------------------------------
def test_a_status_500_fails_the_clause_and_quotes_the_message(features, pytester, tmp_path, proxy):
    proxy.fault(status=500, method="GET", path=PODS + "/p", message="etcdserver: leader changed")
    result, doc, got = run(pytester, tmp_path, proxy, "--clause", BIND)
    assert got[BIND] == "failed", doc
    assert '500 InternalError: "etcdserver: leader changed"' in scenario(doc, BIND)["message"]
    assert result.ret == 1
    result.assert_outcomes(failed=1)


# -- the clock: probed with retries, or forced; the choice is printed and reported ---------------
def test_one_503_on_the_clock_probe_still_finds_the_manual_clock(features, pytester, tmp_path, proxy):
    proxy.fault(status=503, method="GET", path="/debug/clock", times=1)
    result, doc, got = run(pytester, tmp_path, proxy, "--clause", BIND)
    assert got[BIND] == "passed", doc
    assert doc["target"]["clock"] == "manual"
    assert doc["target"]["clock_choice"] == {"mode": "auto",
                                             "how": "probed: GET /debug/clock answered 200 (attempt 2)"}
    assert "manual clock (probed: GET /debug/clock answered 200 (attempt 2))" in result.stdout.str()


def test_an_unclear_clock_is_an_error_unless_forced(features, pytester, tmp_path, proxy):
    proxy.fault(status=500, method="GET", path="/debug/clock")
    result, doc, got = run(pytester, tmp_path, proxy, "--clause", BIND)
    assert got[BIND] == "error"
    assert "cannot tell whether the target's clock is manual" in scenario(doc, BIND)["message"]
    result, doc, got = run(pytester, tmp_path, proxy, "--clause", BIND, "--clock", "real")
    assert got[BIND] == "passed", doc
    assert doc["target"]["clock_choice"] == {"mode": "real", "how": "forced by --clock real"}
    assert len(proxy.requests("GET", "/debug/clock")) == 1          # only the first run probed


# -- cleanup: a failure is an `error` of that scenario; the runner's leftovers are not foreign ------
def test_a_failed_cleanup_is_an_error_and_its_nodes_are_not_foreign(features, pytester, tmp_path, proxy):
    proxy.fault(status=500, method="DELETE", path="/api/v1/nodes/node-a", times=1)
    result, doc, got = run(pytester, tmp_path, proxy)
    assert got[BIND] == "error", doc
    assert "node node-a" in scenario(doc, BIND)["message"]
    assert got[OWN] == "passed", doc         # the leftover is deleted again, not "foreign nodes present"
    assert result.ret == 1
    result.assert_outcomes(passed=2, errors=1)   # BIND passed its steps, then its teardown erred
    assert [e[2] for e in proxy.requests("DELETE", "/api/v1/nodes/node-a")][:2] == ["status 500", "forwarded"]


def test_leftovers_that_cannot_be_deleted_make_errors_not_disabled(features, pytester, tmp_path, proxy):
    proxy.fault(status=500, method="DELETE", path="/api/v1/nodes/node-a")
    result, doc, got = run(pytester, tmp_path, proxy)
    assert (got[BIND], got[OWN]) == ("error", "error"), doc
    assert "earlier scenario registered" in scenario(doc, OWN)["message"]


def test_a_foreign_node_still_disables(features, pytester, tmp_path, proxy, reference):
    import requests

    requests.post(reference.url + "/api/v1/nodes", json={"apiVersion": "v1", "kind": "Node",
                                                         "metadata": {"name": "someone-elses"}}, timeout=10)
    result, doc, got = run(pytester, tmp_path, proxy)
    assert (got[BIND], got[OWN]) == ("passed", "disabled"), doc
    assert "someone-elses" in scenario(doc, OWN)["message"]
    assert result.ret == 0


def test_a_target_without_collection_deletes_is_cleaned_one_by_one(features, pytester, tmp_path, proxy,
                                                                   reference):
    import requests

    proxy.fault(status=405, method="DELETE", path=PODS)          # deletecollection not served
    result, doc, got = run(pytester, tmp_path, proxy, "--clause", BIND)
    assert got[BIND] == "passed", doc
    collection = [e[2] for e in proxy.log if e[0] == "DELETE" and e[1].split("?")[0].endswith("/pods")]
    single = [e for e in proxy.log if e[0] == "DELETE" and "/pods/" in e[1]]
    assert collection[:1] == ["status 405"] and single, proxy.log
    left = requests.get(reference.url + "/api/v1/pods", timeout=10).json()["items"]
    assert not left, f"the cleanup left pods behind: {[p['metadata']['name'] for p in left]}"
