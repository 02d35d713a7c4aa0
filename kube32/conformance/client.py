"""ApiClient: the one way the runner talks to a target's API (real HTTP: transport.py).

Every object the target returns is validated against the kube32 JSON Schemas; a violation names
the field and counts as a failure of the target.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator

import requests
from urllib3.exceptions import NewConnectionError

from kube32.conformance.errors import (
    ApiStatusError,
    AuthRefused,
    SchemaViolation,
    TargetUnavailable,
    TlsRefused,
)
from kube32.conformance.kinds import kind as kind_of
from kube32.conformance.transport import Transport
from kube32.spec import validate as schema

TIMEOUT = 30.0                                  # seconds one request may take (--request-timeout)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
GATEWAY_CODES = frozenset({502, 503, 504})      # a proxy or an overloaded server: no verdict on the target
RETRY_PAUSES = (0.25, 0.5, 1.0, 2.0)            # pauses before the retries: 5 attempts over ~4 s


class ApiClient:
    """Retry rules (docs/REPORTS.md, "Verdict rules"): a request that never reached the target
    (connection refused) is retried whatever its method; a read (GET/HEAD) or a write the caller
    declares idempotent is also retried after a reset, a timeout or a 502/503/504. A write that may
    have reached the target is never repeated. When the attempts are used up the request raises
    ``TargetUnavailable`` (an ``error`` verdict), never a failure of the target."""

    def __init__(self, base_url: str, token: str | None = None, validate: bool = True,
                 timeout: float = TIMEOUT, verify: bool | str = True,
                 cert: tuple[str, str] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.transport = Transport()
        # requests reads the environment (proxies, CA bundle, ~/.netrc) on every request: ~5 % of a
        # manual-clock run's CPU. The client reads it once per target URL instead (_environment).
        self._env: tuple[tuple, dict] | None = None
        self.verify, self.cert = verify, cert
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.validate = validate
        # callables (method, path, body) told of every valid object the target returns (observations.py)
        self.observers: list = []
        # callables (method, seconds) told how long each answered attempt took (timing.LatencyMeter)
        self.round_trips: list = []
        self.timeout = timeout
        self.retry_pauses = RETRY_PAUSES

    # -- raw ------------------------------------------------------------------------------
    def request(self, method: str, path: str, *, idempotent: bool | None = None, **kw) -> requests.Response:
        """One logical request, retried by the rules above. ``idempotent`` marks a write that may be
        repeated safely (a clock set, a cleanup delete); reads are idempotent by default."""
        __tracebackhide__ = True
        kw.setdefault("timeout", self.timeout)
        kw["headers"] = {**self.headers, **kw["headers"]} if kw.get("headers") else self.headers
        kw.setdefault("cert", self.cert)
        for key, value in self._environment().items():
            kw.setdefault(key, value)
        repeatable = method in SAFE_METHODS if idempotent is None else idempotent
        started, problems = time.monotonic(), []
        for pause in (0.0, *self.retry_pauses):
            if pause:                 # sleep(0) would hand the GIL to a server thread of an in-process target
                time.sleep(pause)
            try:
                sent = time.monotonic()
                resp = self.transport.send(method, self.base_url + path, **kw)
                for hook in self.round_trips:
                    hook(method, time.monotonic() - sent)
            except requests.exceptions.SSLError as exc:
                raise TlsRefused(f"TLS with {self.base_url} failed: {_root(exc)}") from None
            except (requests.ConnectionError, requests.Timeout) as exc:
                problems.append(_describe(exc, kw["timeout"]))
                if repeatable or _never_sent(exc):
                    continue
                raise TargetUnavailable(f"{method} {path}: {problems[-1]} (a write that may have reached "
                                        "the target is not repeated)") from None
            if resp.status_code not in GATEWAY_CODES:
                resp.attempts = len(problems) + 1
                return resp
            problems.append(f"{resp.status_code} {_status_message(resp)}")
            if not repeatable:
                raise TargetUnavailable(f"{method} {path}: {problems[-1]} (a write is not repeated)") from None
        raise TargetUnavailable(f"{method} {path}: {problems[-1]} ({len(problems)} attempts over "
                                f"{time.monotonic() - started:.1f} s)") from None

    def _environment(self) -> dict:
        """What requests would take from the environment for a request to this target, as it would:
        HTTP(S)_PROXY/ALL_PROXY unless NO_PROXY names the host; REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE
        unless the client was given its own CA (or verify=False); ~/.netrc credentials for the host."""
        key = (self.base_url, self.verify)
        if self._env is None or self._env[0] != key:
            verify = self.verify
            if verify is True:
                verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
            env = {"proxies": requests.utils.get_environ_proxies(self.base_url), "verify": verify}
            netrc = requests.utils.get_netrc_auth(self.base_url)
            if netrc:
                env["auth"] = netrc
            self._env = (key, env)
        return self._env[1]

    def call(self, method: str, path: str, **kw) -> dict:
        __tracebackhide__ = True
        resp = self.request(method, path, **kw)
        try:
            body = resp.json()
        except ValueError:
            body = resp.text
        if resp.status_code == 401:
            raise AuthRefused(f"{method} {path}: the target refused the runner's credentials (401); "
                              "check --token")
        if resp.status_code >= 300:
            raise ApiStatusError(method, path, resp.status_code, body)
        if not isinstance(body, dict):
            raise SchemaViolation(f"{method} {path} answered {resp.status_code} with a non-object body: {body!r:.200}")
        self.check(body, f"{method} {path}")
        for observer in list(self.observers):
            observer(method, path, body)
        return body

    def check(self, obj: dict, where: str) -> None:
        if not self.validate:
            return
        violations = schema.validate(obj)
        if violations:
            raise SchemaViolation(f"{where} returned an object that breaks the kube32 schema: "
                                  + "; ".join(str(v) for v in violations))

    # -- typed ----------------------------------------------------------------------------
    def create(self, obj: dict, namespace: str | None = None) -> dict:
        k = kind_of(obj["kind"])
        ns = namespace or obj.get("metadata", {}).get("namespace")
        return self.call("POST", k.path(ns), json=obj)

    def get(self, kind: str, name: str, namespace: str | None = None, sub: str | None = None) -> dict:
        return self.call("GET", kind_of(kind).path(namespace, name, sub))

    def try_get(self, kind: str, name: str, namespace: str | None = None) -> dict | None:
        try:
            return self.get(kind, name, namespace)
        except ApiStatusError as exc:
            if exc.code == 404:
                return None
            raise

    def list(self, kind: str, namespace: str | None = None, *, labels: str | None = None,
             fields: str | None = None) -> list[dict]:
        params = {k: v for k, v in (("labelSelector", labels), ("fieldSelector", fields)) if v}
        return self.call("GET", kind_of(kind).path(namespace), params=params).get("items", [])

    def update(self, obj: dict, sub: str | None = None) -> dict:
        k = kind_of(obj["kind"])
        meta = obj["metadata"]
        return self.call("PUT", k.path(meta.get("namespace"), meta["name"], sub), json=obj)

    def patch(self, kind: str, name: str, body: object, namespace: str | None = None, *, sub: str | None = None,
              patch_type: str = "application/merge-patch+json") -> dict:
        return self.call("PATCH", kind_of(kind).path(namespace, name, sub), data=json.dumps(body),
                         headers={"Content-Type": patch_type})

    def delete(self, kind: str, name: str, namespace: str | None = None, grace: int | None = None,
               idempotent: bool = False) -> dict:
        """``idempotent=True`` for deletes where a repeat answering 404 means the same (cleanup)."""
        params = {"gracePeriodSeconds": str(grace)} if grace is not None else None
        return self.call("DELETE", kind_of(kind).path(namespace, name), params=params, idempotent=idempotent)

    def watch(self, kind: str, namespace: str | None = None, resource_version: str = "0",
              timeout: float = 5) -> Iterator[dict]:
        params = {"watch": "true", "resourceVersion": resource_version, "timeoutSeconds": str(int(timeout))}
        with self.request("GET", kind_of(kind).path(namespace), params=params, stream=True,
                          timeout=timeout + 5) as resp:
            for line in resp.iter_lines():
                if line.strip():
                    yield json.loads(line)


# -- describing what went wrong, in one line ---------------------------------------------------
def _never_sent(exc: Exception) -> bool:
    """The connection was never made, so the target cannot have seen the request."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, NewConnectionError)


def _root(exc: BaseException) -> str:
    """The innermost cause, without urllib3's wrapping ('HTTPConnectionPool(...): Max retries ...')."""
    seen: BaseException = exc
    for _ in range(10):
        candidates = (getattr(seen, "reason", None), seen.args[0] if seen.args else None, seen.__cause__)
        inner = next((c for c in candidates if isinstance(c, BaseException) and c is not seen), None)
        if inner is None:
            break
        seen = inner
    text = str(seen)
    if ": " in text and "Connection" in type(seen).__name__:
        text = text.rsplit(": ", 1)[-1]      # "<urllib3.connection...>: Failed to establish ..." -> the reason
    return text.strip() or type(seen).__name__


def _describe(exc: Exception, timeout: float) -> str:
    if isinstance(exc, requests.ConnectTimeout):
        return f"no connection within {timeout:g} s"
    if isinstance(exc, requests.Timeout):
        return f"no answer within {timeout:g} s"
    if _never_sent(exc):
        return f"connection failed ({_root(exc)})"
    return f"connection lost ({_root(exc)})"


def _status_message(resp: requests.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return resp.reason or ""
    return f"{body.get('reason', '')}: {body.get('message', '')}" if isinstance(body, dict) else str(body)[:200]
