"""Namespace deletion as upstream: the namespace goes ``Terminating`` (deletionTimestamp set and
stored first), everything in it is deleted, then the namespace itself goes.

The API's DELETE runs all three steps at once; because the Terminating mark is stored before any
content goes, a server killed in the middle finds the namespace Terminating on restart, and this
controller finishes the job — at start and on every pass.
"""

from __future__ import annotations

import copy

from kube32.reference import errors
from kube32.reference.controllers import loop
from kube32.reference.resources import RESOURCES
from kube32.spec import timefmt

NAMESPACES = "namespaces"
TERMINATING = "Terminating"


def is_terminating(ns: dict | None) -> bool:
    return bool(ns) and bool(ns["metadata"].get("deletionTimestamp"))


def mark_terminating(cp, ns: dict) -> dict:
    """Store the Terminating mark (once); returns the namespace as stored."""
    if is_terminating(ns):
        return ns
    marked = copy.deepcopy(ns)
    marked["metadata"]["deletionTimestamp"] = timefmt.rfc3339(cp.clock.now())
    marked["metadata"]["deletionGracePeriodSeconds"] = 0
    marked["status"] = {**(marked.get("status") or {}), "phase": TERMINATING}
    return cp.store.update(NAMESPACES, marked, check_rv=False)


def finalize(cp, name: str) -> None:
    """Delete what the namespace holds, then the namespace (caller holds the store lock)."""
    for r in RESOURCES:
        if r.namespaced and not r.read_only and r.key not in cp.views:
            for obj in list(cp.store.head.list(r.key, name)):
                cp.store.delete(r.key, name, obj["metadata"]["name"])
    try:
        cp.store.delete(NAMESPACES, "", name)
    except errors.NotFound:
        pass


def delete(cp, ns: dict) -> dict:
    """The API's namespace DELETE: Terminating, contents, gone. Returns the Terminating namespace
    (what upstream's DELETE answers)."""
    marked = mark_terminating(cp, ns)
    finalize(cp, marked["metadata"]["name"])
    return marked


class NamespaceController:
    """Finishes deletions a restart interrupted."""

    NAME = "namespace-controller"

    def __init__(self, cp) -> None:
        self.cp = cp

    def interval(self) -> float:
        return self.cp.profile.reconcile_interval

    def reconcile(self, now: float) -> None:
        with self.cp.store.lock:
            for ns in self.cp.store.head.list(NAMESPACES):
                if is_terminating(ns):
                    loop.isolated(self.cp, self.NAME, ns, finalize, self.cp, ns["metadata"]["name"])


def install(cp) -> None:
    controller = NamespaceController(cp)
    controller.reconcile(cp.clock.now())        # resume at start: a crash may have cut one short
    cp.loops.register(controller)
