"""Lease renewals below Flask: the write every node sends every few seconds, without a Flask request.

``LeaseRenewals(app)`` is a ``Shortcut`` (``api.shortcut``: what every request answered below Flask
shares). A plain ``PUT`` of one Lease (JSON body, no query string, no Table asked for) runs here the
very checks and the store write the API's update handler runs (``resources.checked_update``,
``Store.update``); a renewal those checks refuse (a validation error, a stale resourceVersion, a
missing Lease, a body that is not JSON) goes to the Flask app, which answers it from scratch. Nothing
over the API tells the two paths apart but the CPU a renewal costs (``benchmarks/fleet_load.py``).
"""

from __future__ import annotations

from kube32.reference.api import bodies, resources
from kube32.reference.api.shortcut import Shortcut
from kube32.reference.resources import lookup

LEASES = lookup("coordination.k8s.io", "v1", "leases")
PREFIX = "/apis/coordination.k8s.io/v1/namespaces/"


def target(environ: dict) -> resources.Target | None:
    """The Lease a request may renew here, or None (the Flask app answers it)."""
    if environ.get("REQUEST_METHOD") != "PUT" or environ.get("QUERY_STRING"):
        return None
    path = environ.get("PATH_INFO", "")
    if not path.startswith(PREFIX) or not path.isascii():
        return None
    parts = path[len(PREFIX):].split("/")
    if len(parts) != 3 or parts[1] != "leases" or not parts[0] or not parts[2]:
        return None
    if (environ.get("CONTENT_TYPE") or "").split(";")[0].strip().lower() != "application/json":
        return None
    if "as=Table" in environ.get("HTTP_ACCEPT", ""):
        return None
    return resources.Target(LEASES, parts[0], parts[2], None)


class LeaseRenewals(Shortcut):
    target = staticmethod(target)

    def write(self, data: bytes, t: resources.Target) -> dict | None:
        body = bodies.decode(data, "json")
        if not isinstance(body, dict):
            return None
        store = self.cp.store
        with store.lock:
            resources.writable(self.cp, t.resource)
            old = store.peek(t.resource.key, t.namespace, t.name)
            if old is None:
                return None
            new = resources.checked_update(self.cp, t.resource, t, old, resources.check_identity(t.resource, t, body))
            return store.update(t.resource.key, new, copy=False)
