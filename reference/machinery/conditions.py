"""The Ready condition of a pod or a node, read one way everywhere.

``ready_condition`` gives the condition itself (its reason, lastTransitionTime); ``ready_status``
only its status string (``"True"``, ``"False"``, ``"Unknown"``, or None when there is none), and
``is_ready`` whether that is ``"True"``.
"""

from __future__ import annotations

READY = "Ready"


def ready_condition(obj: dict) -> dict | None:
    """``status.conditions``' Ready entry, or None when the object has no status or no such condition."""
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == READY:
            return condition
    return None


def ready_status(obj: dict) -> str | None:
    """The Ready condition's status, or None when there is no Ready condition."""
    condition = ready_condition(obj)
    return None if condition is None else condition.get("status")


def is_ready(obj: dict) -> bool:
    """The Ready condition says True."""
    return ready_status(obj) == "True"
