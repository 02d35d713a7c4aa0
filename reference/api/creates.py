"""Creates without Flask's dispatch: a plain ``POST`` of one object to a collection (a pod, most
often: a burst of replicas, a scheduling benchmark).

``Creates(app)`` is a ``Shortcut`` (``api.shortcut``: what it recognises, and how it answers) that
runs the create view's plan, ``writes.create`` (checks, admission, store write, the scheduler's
binding of a pod), for a POST to any collection URL. Behind ``LeaseRenewals`` when the server runs
both.
"""

from __future__ import annotations

from kube32.reference.api import writes
from kube32.reference.api.shortcut import Shortcut
from kube32.reference.api.targets import Target


class Creates(Shortcut):
    METHOD = "POST"
    CODE = 201
    plan = staticmethod(writes.create)

    def takes(self, t: Target) -> bool:
        return t.name is None
