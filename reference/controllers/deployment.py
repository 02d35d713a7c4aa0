"""The Deployment controller: every ``profile.deployment_interval`` (1 s) it reconciles each
Deployment against the pods that carry its owner reference.

Level-triggered: each pass lists Deployments and pods from the store and applies the actions
``deployment_plan.plan`` derives from them, then writes the status ``deployment_status`` computes
from the pods as they are after those actions. Nothing is remembered between passes, so a change
the controller missed (a pod removed behind its back) is repaired by the next pass.

Pods are created through the store with the default NoExecute tolerations already added (the
plan does it) and handed to the scheduler, as the API server does for a create request. Pods are
deleted as the API deletes them: a bound pod is marked terminating (deletionTimestamp) until its
kubelet confirms; an unbound pod goes at once.
"""

from __future__ import annotations

import contextlib
import logging

from kube32.reference import errors
from kube32.reference.controllers import deployment_plan, deployment_status, loop
from kube32.spec import timefmt

DEPLOYMENTS = "deployments.apps"
PODS = "pods"
DEFAULT_GRACE_SECONDS = 30          # upstream's default terminationGracePeriodSeconds

log = logging.getLogger(__name__)


def delete_pod(cp, pod: dict, now: float) -> None:
    """Delete a pod with the API's semantics (graceful for bound pods)."""
    meta = pod["metadata"]
    current = cp.store.head.try_get(PODS, meta["namespace"], meta["name"])
    if current is None or current["metadata"].get("deletionTimestamp"):
        return
    if not (current.get("spec") or {}).get("nodeName"):
        cp.store.delete(PODS, meta["namespace"], meta["name"])
        return
    grace = int((current.get("spec") or {}).get("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS))
    current["metadata"]["deletionTimestamp"] = timefmt.rfc3339(now + grace)
    current["metadata"]["deletionGracePeriodSeconds"] = grace
    cp.store.update(PODS, current, check_rv=False)


def create_pod(cp, manifest: dict) -> dict:
    """Store a pod and let the scheduler bind it, as a create request would."""
    created = cp.store.create(PODS, manifest)
    if not (created.get("spec") or {}).get("nodeName") and cp.scheduler is not None:
        try:
            cp.scheduler.schedule(created)
        except Exception:           # the pod exists; the scheduler's own loop retries unbound pods
            log.exception("scheduling %s failed", created["metadata"]["name"])
    return created


def apply(cp, actions: list, now: float) -> None:
    for action in actions:
        if isinstance(action, deployment_plan.DeletePod):
            delete_pod(cp, action.pod, now)
        elif isinstance(action, deployment_plan.CreatePod):
            create_pod(cp, action.manifest)


def write_status(cp, deployment: dict, now: float) -> None:
    """Recompute the status from the pods now in the store; write it only when it changed."""
    ns = deployment["metadata"]["namespace"]
    owned = deployment_plan.owned_pods(deployment, cp.store.head.list(PODS, ns))
    status = deployment_status.compute_status(deployment, owned, now)
    if status == deployment.get("status"):
        return
    updated = dict(deployment)
    updated["status"] = status
    # changed or gone meanwhile: the next pass sees the new state
    with contextlib.suppress(errors.Conflict, errors.NotFound):
        cp.store.update(DEPLOYMENTS, updated)


class DeploymentController:
    NAME = "deployment"

    def __init__(self, cp) -> None:
        self.cp = cp

    def interval(self) -> float:
        return self.cp.profile.deployment_interval

    def reconcile(self, now: float) -> None:
        cp = self.cp
        with cp.store.lock:
            deployments = cp.store.head.list(DEPLOYMENTS)
            apply(cp, deployment_plan.orphans(cp.store.head.list(PODS), deployments), now)
            for deployment in deployments:    # e.g. maxUnavailable "25" (no %) skips only this one
                loop.isolated(cp, self.NAME, deployment, self.sync, deployment, now)

    def sync(self, deployment: dict, now: float) -> None:
        cp = self.cp
        ns = deployment["metadata"]["namespace"]
        actions = deployment_plan.plan(deployment, cp.store.head.list(PODS, ns), now,
                                       cp.profile.default_toleration_seconds)
        apply(cp, actions, now)
        write_status(cp, deployment, now)


def install(cp) -> None:
    """Register the Deployment controller on the control plane's loops."""
    cp.loops.register(DeploymentController(cp))
