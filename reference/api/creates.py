"""Creates below Flask: a plain ``POST`` of one object to a collection (a pod, most often: a burst of
replicas, a scheduling benchmark), without a Flask request.

``Creates(app)`` is a ``Shortcut`` (``api.shortcut``: what every request answered below Flask
shares), behind ``LeaseRenewals`` when the server runs both. A POST to a collection URL (``/api/v1[/namespaces/NS]/PLURAL``,
``/apis/GROUP/VERSION[/namespaces/NS]/PLURAL``; plain names only, no query string, a JSON body with
its length, no Table asked for) runs here the very steps the API's create handler runs
(``resources.resolve``, ``writable``, ``bodies.decode``, ``check_identity``,
``resources.created_object``: checks, store write, the scheduler's binding of a pod) and is answered
as that handler answers. A create those steps refuse (an invalid object, a missing namespace, a name
taken, a body that is not JSON) goes to the Flask app, which answers it from scratch. Nothing over the
API tells the two paths apart but the CPU a create costs (``benchmarks/request_cpu.py``,
``benchmarks/schedule_load.py``).
"""

from __future__ import annotations

import re

from kube32.reference import errors
from kube32.reference.api import bodies, resources
from kube32.reference.api.shortcut import Shortcut

_NAME = r"[a-z0-9][a-z0-9.-]*"
# (group, version, the rest resources.resolve reads); Flask routes these paths to resources.core/grouped
_COLLECTION = re.compile(rf"/api/(?P<v>{_NAME})/(?P<rest>(?:namespaces/{_NAME}/)?{_NAME})"
                         rf"|/apis/(?P<g>{_NAME})/(?P<gv>{_NAME})/(?P<grest>(?:namespaces/{_NAME}/)?{_NAME})")


def target(environ: dict) -> resources.Target | None:
    """The collection a request may create in here, or None (the Flask app answers it)."""
    if environ.get("REQUEST_METHOD") != "POST" or environ.get("QUERY_STRING"):
        return None
    m = _COLLECTION.fullmatch(environ.get("PATH_INFO", ""))
    if m is None:
        return None
    if (environ.get("CONTENT_TYPE") or "").split(";")[0].strip().lower() != "application/json":
        return None
    if "as=Table" in environ.get("HTTP_ACCEPT", ""):
        return None
    try:
        t = resources.resolve(m["g"] or "", m["v"] or m["gv"], m["rest"] or m["grest"])
    except errors.ApiError:
        return None
    return t if t.name is None else None


class Creates(Shortcut):
    CODE = 201
    target = staticmethod(target)

    def write(self, data: bytes, t: resources.Target) -> dict | None:
        resources.writable(self.cp, t.resource)
        body = bodies.decode(data, "application/json")
        if not isinstance(body, dict):
            return None
        return resources.created_object(self.cp, t.resource, resources.check_identity(t.resource, t, body),
                                        dry=lambda: False)
