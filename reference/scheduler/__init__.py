"""The kube32 scheduler: filters in the documented order, the free-share score, FailedScheduling.

Layout (kube-scheduler's framework in miniature): ``framework`` (Status, PodInfo, NodeInfo, plugin
protocols), ``plugins/`` (one module per filter and one for the score), ``registry`` (the order),
``resources`` (quantity maths), ``accounting`` (which bound pods are subtracted), ``cache`` (NodeInfo
per node resourceVersion + bound pods by node), ``memo`` and ``ranking`` (verdicts and scores kept
per value of the pod fields the plugins read, grouped by score), ``messages`` (kube-scheduler texts),
``scheduler`` (decide, ``select_host`` with the tie-break, bind, report, the reconcile loop).
Imports ``spec`` only; no I/O besides the store.
"""

from __future__ import annotations

import functools

from kube32.reference.controllers import loop
from kube32.reference.scheduler.scheduler import ReconcileLoop, Scheduler


def install(cp) -> None:
    """Make ``cp.scheduler`` the pod-create hook and register the reconcile loop on ``cp.loops``."""
    cp.scheduler = Scheduler(cp.store, cp.events, cp.clock)
    cp.scheduler.guard = functools.partial(loop.isolated, cp, "default-scheduler")
    cp.loops.register(ReconcileLoop(cp.scheduler, cp.profile))
