"""Defaulting: the default NoExecute tolerations every pod receives.

kube32 follows upstream's DefaultTolerationSeconds admission: a pod that does not already tolerate
``node.kubernetes.io/not-ready:NoExecute`` (or ``unreachable``) gets ``operator: Exists`` with
``tolerationSeconds`` (300 by default; ``--eviction-timeout`` on the simulator). A toleration with
an empty key or an empty effect already counts, as upstream; the rule applies per taint.
DaemonSet pods get both tolerations without ``tolerationSeconds`` (tolerated for ever).

Controllers that create pods straight in the store (Deployment, Job, DaemonSet) call
``apply_default_tolerations(pod, cp.profile)``; the API's pod admission does the same on CREATE.
"""

from __future__ import annotations

from kube32.spec import constants

DEFAULT_TOLERATION_KEYS = (constants.TAINT_NOT_READY, constants.TAINT_UNREACHABLE)


def already_tolerates(tolerations: list[dict], key: str, effect: str = "NoExecute") -> bool:
    """True when some toleration already covers taint ``key:effect`` (empty key / effect = any;
    the operator is not looked at, as upstream)."""
    return any(
        (t.get("key") in (None, "", key)) and (t.get("effect") in (None, "", effect))
        for t in tolerations or []
    )


def add_default_tolerations(pod: dict, seconds: float | None) -> dict:
    """Append the default not-ready / unreachable tolerations the pod lacks (in that order).
    ``seconds=None`` adds them without tolerationSeconds (DaemonSet pods)."""
    spec = pod.setdefault("spec", {})
    tolerations = list(spec.get("tolerations") or [])
    for key in DEFAULT_TOLERATION_KEYS:
        if already_tolerates(tolerations, key):
            continue
        toleration = {"key": key, "operator": "Exists", "effect": "NoExecute"}
        if seconds is not None:
            toleration["tolerationSeconds"] = int(seconds)
        tolerations.append(toleration)
    spec["tolerations"] = tolerations
    return pod


def is_daemonset_pod(pod: dict) -> bool:
    """A pod owned by a DaemonSet (an ownerReference of kind DaemonSet)."""
    refs = (pod.get("metadata") or {}).get("ownerReferences") or []
    return any(ref.get("kind") == "DaemonSet" for ref in refs)


def default_toleration_seconds(pod: dict, profile) -> float | None:
    """tolerationSeconds of the defaults this pod gets: None for DaemonSet pods, else the profile's
    ``default_toleration_seconds`` (``--eviction-timeout``)."""
    return None if is_daemonset_pod(pod) else profile.default_toleration_seconds


def apply_default_tolerations(pod: dict, profile) -> dict:
    """The defaulting every new pod goes through, whoever creates it."""
    return add_default_tolerations(pod, default_toleration_seconds(pod, profile))
