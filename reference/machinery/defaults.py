"""Defaulting: the default NoExecute tolerations every non-DaemonSet pod receives.

kube32 follows upstream's DefaultTolerationSeconds admission: a pod that does not already tolerate
``node.kubernetes.io/not-ready:NoExecute`` (or ``unreachable``) gets ``operator: Exists`` with
``tolerationSeconds`` (300 by default; ``--eviction-timeout`` on the simulator). A toleration with
an empty key or an empty effect already counts, as upstream.
"""

from __future__ import annotations

from spec import constants


def tolerates(tolerations: list[dict], key: str, effect: str = "NoExecute") -> bool:
    return any(
        (t.get("key") in (None, "", key)) and (t.get("effect") in (None, "", effect))
        for t in tolerations or []
    )


def add_default_tolerations(pod: dict, seconds: float | None) -> dict:
    """Append the default not-ready / unreachable tolerations the pod lacks (in that order).
    ``seconds=None`` adds them without tolerationSeconds (DaemonSet pods)."""
    spec = pod.setdefault("spec", {})
    tolerations = list(spec.get("tolerations") or [])
    for key in (constants.TAINT_NOT_READY, constants.TAINT_UNREACHABLE):
        if tolerates(tolerations, key):
            continue
        toleration = {"key": key, "operator": "Exists", "effect": "NoExecute"}
        if seconds is not None:
            toleration["tolerationSeconds"] = int(seconds)
        tolerations.append(toleration)
    spec["tolerations"] = tolerations
    return pod
