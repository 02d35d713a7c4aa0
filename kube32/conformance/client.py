"""ApiClient: the one way the runner talks to a target's API (requests over real HTTP).

Every object the target returns is validated against the kube32 JSON Schemas; a violation names
the field and counts as a failure of the target.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import requests

from kube32.conformance.errors import ApiStatusError, SchemaViolation, TargetUnavailable
from kube32.conformance.kinds import kind as kind_of
from kube32.spec import validate as schema

TIMEOUT = 30


class ApiClient:
    def __init__(self, base_url: str, token: str | None = None, validate: bool = True) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.validate = validate
        # callables (method, path, body) told of every valid object the target returns (observations.py)
        self.observers: list = []

    # -- raw ------------------------------------------------------------------------------
    def request(self, method: str, path: str, **kw) -> requests.Response:
        kw.setdefault("timeout", TIMEOUT)
        try:
            return self.session.request(method, self.base_url + path, **kw)
        except requests.ConnectionError as exc:
            raise TargetUnavailable(f"cannot reach the target at {self.base_url}: {exc}") from exc
        except requests.Timeout as exc:
            raise TargetUnavailable(f"{method} {path} timed out after {kw['timeout']} s") from exc

    def call(self, method: str, path: str, **kw) -> dict:
        resp = self.request(method, path, **kw)
        try:
            body = resp.json()
        except ValueError:
            body = resp.text
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

    def delete(self, kind: str, name: str, namespace: str | None = None, grace: int | None = None) -> dict:
        params = {"gracePeriodSeconds": str(grace)} if grace is not None else None
        return self.call("DELETE", kind_of(kind).path(namespace, name), params=params)

    def watch(self, kind: str, namespace: str | None = None, resource_version: str = "0",
              timeout: float = 5) -> Iterator[dict]:
        params = {"watch": "true", "resourceVersion": resource_version, "timeoutSeconds": str(int(timeout))}
        with self.session.get(self.base_url + kind_of(kind).path(namespace), params=params, stream=True,
                              timeout=timeout + 5) as resp:
            for line in resp.iter_lines():
                if line.strip():
                    yield json.loads(line)
