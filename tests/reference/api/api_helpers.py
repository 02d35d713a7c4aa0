"""Helpers for the API tests: a JSON client over the Flask test client, manifests, Status checks."""

from __future__ import annotations

import json
import uuid

START = 1_800_000_000.0      # the manual clock's start (2027-01-15T08:00:00Z)


class Uids:
    """uuid4 for two servers (or apps) from one replayable sequence: each draws the
    uids the other drew when it is rewound (``next = n``)."""

    def __init__(self) -> None:
        self.next = 0

    def uuid4(self) -> uuid.UUID:
        self.next += 1
        return uuid.UUID(int=self.next)


class Api:
    """A thin JSON helper over the Flask test client."""

    def __init__(self, app):
        self.app = app
        self.client = app.test_client()
        self.cp = app.extensions["kube32"]

    @property
    def rv(self) -> int:
        return self.cp.store.resource_version

    def request(self, method: str, path: str, body=None, content_type: str = "application/json",
                headers: dict | None = None, raw: bytes | str | None = None):
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        return self.client.open(path, method=method, data=data,
                                content_type=content_type if data is not None else None, headers=headers or {})

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path, body=None, content_type="application/merge-patch+json", **kw):
        return self.request("PATCH", path, body, content_type=content_type, **kw)

    def delete(self, path, body=None, **kw):
        return self.request("DELETE", path, body, **kw)

    def create_pod(self, name: str, ns: str = "default", **spec) -> dict:
        body = pod(name, **spec)
        resp = self.post(f"/api/v1/namespaces/{ns}/pods", body)
        assert resp.status_code == 201, resp.json
        return resp.json

    def status_write(self, path: str, status: dict) -> dict:
        resp = self.patch(f"{path}/status", {"status": status})
        assert resp.status_code == 200, resp.json
        return resp.json


def pod(name: str, image: str = "nginx:1.25", labels: dict | None = None, **spec) -> dict:
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "app", "image": image}], **spec}}


def deployment(name: str, replicas: int = 2, image: str = "nginx:1.25") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "app", "image": image}]}}}}


def assert_status(resp, code: int, reason: str, message: str | None = None) -> dict:
    """The response is a Kubernetes Status with this code and reason (and message, when given)."""
    body = resp.get_json()
    assert resp.status_code == code, (resp.status_code, body)
    assert resp.mimetype == "application/json"
    assert body["kind"] == "Status" and body["apiVersion"] == "v1", body
    assert body["status"] == "Failure", body
    assert body["code"] == code and body["reason"] == reason, body
    if message is not None:
        assert body["message"] == message, body
    return body
