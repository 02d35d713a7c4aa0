"""Lease renewals without Flask's dispatch: the write every node sends every few seconds.

``LeaseRenewals(app)`` is a ``Shortcut`` (``api.shortcut``: what it recognises, and how it answers)
that runs the update view's plan, ``writes.update`` (checks, admission, the optimistic store
update), for a plain ``PUT`` of one Lease.
"""

from __future__ import annotations

from kube32.reference.api import writes
from kube32.reference.api.shortcut import Shortcut
from kube32.reference.api.targets import Target
from kube32.reference.resources import lookup

LEASES = lookup("coordination.k8s.io", "v1", "leases")


class LeaseRenewals(Shortcut):
    METHOD = "PUT"
    plan = staticmethod(writes.update)

    def takes(self, t: Target) -> bool:
        return t.resource is LEASES and t.name is not None and t.sub is None
