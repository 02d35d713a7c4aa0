"""The client's retry rules (docs/REPORTS.md, "Verdict rules") against a real reference behind the
fault proxy: what is repeated, what is not, and what each failure is called."""

from __future__ import annotations

import pytest

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import ApiStatusError, AuthRefused, ClockUnknown, TargetUnavailable, TlsRefused
from kube32.conformance.targets import base
from tests.runner.faultproxy import FaultProxy

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "faults"}}
NAMESPACES = "/api/v1/namespaces"


@pytest.fixture
def proxy(reference):
    p = FaultProxy(reference.url).start()
    yield p
    p.stop()
    ApiClient(reference.url).request("DELETE", NAMESPACES + "/faults")


@pytest.fixture
def api(proxy):
    client = ApiClient(proxy.url, timeout=2.5)     # generous: a loaded CI machine is slow, not broken
    client.retry_pauses = (0.05, 0.1, 0.2, 0.4)
    return client


def upstream_has_namespace(reference) -> bool:
    return ApiClient(reference.url).request("GET", NAMESPACES + "/faults").status_code == 200


@pytest.mark.parametrize("code", [502, 503, 504])
def test_gateway_answers_are_retried_for_reads_never_for_writes(api, proxy, code):
    proxy.fault(status=code, method="GET", times=2)
    assert api.call("GET", "/version")["gitVersion"]
    assert [e[2] for e in proxy.requests("GET")] == [f"status {code}"] * 2 + ["forwarded"]
    proxy.fault(status=code, method="POST")
    with pytest.raises(TargetUnavailable, match=f"{code} .*a write is not repeated"):
        api.create(NS)
    assert len(proxy.requests("POST")) == 1


def test_retries_are_bounded(api, proxy):
    proxy.fault(status=502, method="GET")
    with pytest.raises(TargetUnavailable, match=r"502 BadGateway: injected by the fault proxy \(5 attempts"):
        api.call("GET", "/version")
    assert len(proxy.requests("GET")) == 5


def test_a_write_whose_answer_was_lost_is_not_repeated(api, proxy, reference):
    proxy.fault(reset="after", method="POST")
    with pytest.raises(TargetUnavailable, match=r"connection lost .*may have reached the target is not repeated"):
        api.create(NS)
    assert len(proxy.requests("POST")) == 1
    assert upstream_has_namespace(reference)      # it did reach the target: a retry would meet AlreadyExists


def test_reset_reads_and_idempotent_writes_are_repeated(api, proxy, reference):
    proxy.fault(reset="before", times=1)
    assert api.call("GET", "/version")
    proxy.fault(reset="after", method="POST", times=1)
    assert api.call("POST", "/debug/clock", json={"advance": 1}, idempotent=True)["epoch"]
    assert [e[2] for e in proxy.log] == ["reset before", "forwarded", "reset after", "forwarded"]


def test_refused_connections_are_retried_even_for_writes(api, proxy, reference):
    proxy.fault(refuse=0.3, method="GET", path="/version", times=1)
    api.call("GET", "/version")
    proxy.refuse_for(0.3)                          # nothing listens: the POST cannot have been seen
    assert api.create(NS)["metadata"]["name"] == "faults"
    assert upstream_has_namespace(reference)


def test_a_target_that_never_answers_is_unavailable(api, proxy):
    proxy.refuse_for(None)
    with pytest.raises(TargetUnavailable, match=r"connection failed \(.*refused.*\) \(5 attempts") as info:
        api.call("GET", "/version")
    assert "HTTPConnectionPool" not in str(info.value) and info.value.__cause__ is None


def test_timeouts_repeat_reads_but_not_writes(api, proxy):
    proxy.fault(delay=4, method="GET", times=1)
    assert api.call("GET", "/version")
    proxy.fault(delay=4, method="POST", times=1)
    with pytest.raises(TargetUnavailable, match=r"no answer within 2.5 s .*not repeated"):
        api.create(NS)
    assert len(proxy.requests("POST")) == 1


def test_other_5xx_are_the_targets_answer_quoted(api, proxy):
    proxy.fault(status=500, method="GET", message="etcdserver: leader changed")
    with pytest.raises(ApiStatusError, match='500 InternalError: "etcdserver: leader changed"') as info:
        api.call("GET", "/version")
    assert isinstance(info.value, AssertionError)          # a failure of the target, not an error
    assert len(proxy.requests("GET")) == 1


def test_refused_credentials_and_tls_are_named(api, proxy):
    proxy.require_token = "s3cret"
    with pytest.raises(AuthRefused, match="401"):
        api.call("GET", "/api/v1/nodes")
    assert ApiClient(proxy.url, token="s3cret").call("GET", "/api/v1/nodes")["kind"] == "NodeList"
    with pytest.raises(TlsRefused, match="TLS with https://127.0.0.1"):
        ApiClient(proxy.url.replace("http:", "https:")).call("GET", "/version")


# -- the clock probe ----------------------------------------------------------------------------
def test_the_clock_probe_is_retried(api, proxy):
    proxy.fault(status=503, path="/debug/clock", times=1)
    clock, how = base.choose_clock(api)
    assert clock.manual and how == "probed: GET /debug/clock answered 200 (attempt 2)"


def test_an_unclear_clock_is_not_guessed(api, proxy):
    proxy.fault(status=500, path="/debug/clock")
    with pytest.raises(ClockUnknown, match="cannot tell .* answered 500"):
        base.choose_clock(api)
    clock, how = base.choose_clock(api, "real")
    assert not clock.manual and how == "forced by --clock real"
    proxy.clear()
    proxy.fault(status=404, path="/debug/clock")
    clock, how = base.choose_clock(api)
    assert not clock.manual and how == "probed: GET /debug/clock answered 404"
    with pytest.raises(ClockUnknown, match="--clock manual, but the target has no manual clock"):
        base.choose_clock(api, "manual")
