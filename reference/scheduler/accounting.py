"""Which bound pods the scheduler still subtracts from a node's reported figures.

The kubelet measures free heap, free PSRAM and unclaimed pins, so a pod already running on the
board is inside the node's report. Only pods the report cannot include yet are subtracted:
- Pending pods (bound, not started yet);
- pods with a container waiting to restart (their resources were released on the board);
- pods written after the node's last status write.

"Written after the node's last status write" is observed through resourceVersions (store-wide and
monotonic): a pod counts when its resourceVersion is greater than the node's. Any write to the
Node advances the node's resourceVersion, so a label or taint write also stops the subtraction
until the kubelet's next report (the document's Limitations; catalogue
SCHED-ACCOUNT-MODIFIED-AFTER-STATUS). Succeeded and Failed pods are never subtracted.
"""

from __future__ import annotations

from collections.abc import Iterable

from kube32.reference.scheduler import resources

TERMINAL_PHASES = ("Succeeded", "Failed")


def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def is_terminal(pod: dict) -> bool:
    return phase(pod) in TERMINAL_PHASES


def is_pending(pod: dict) -> bool:
    return phase(pod) == "Pending"


def waiting_to_restart(pod: dict) -> bool:
    """Any container status whose state is ``waiting``."""
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if isinstance(status, dict) and (status.get("state") or {}).get("waiting") is not None:
            return True
    return False


def resource_version(obj: dict) -> int:
    return int((obj.get("metadata") or {}).get("resourceVersion") or 0)


def modified_after_status(pod: dict, node_resource_version: int) -> bool:
    """The pod was written after the node's last write (so after its last status report)."""
    return resource_version(pod) > node_resource_version


def counts_against_node(pod: dict, node_resource_version: int) -> bool:
    """True when the node's report cannot include this bound pod yet."""
    if is_terminal(pod):
        return False
    return (is_pending(pod) or waiting_to_restart(pod)
            or modified_after_status(pod, node_resource_version))


def usage(bound: Iterable[tuple[dict, dict[str, int]]], node_resource_version: int) -> dict[str, int]:
    """Sum of the amounts of the bound (pod, amounts) pairs that still count against the node."""
    out = resources.zero()
    for pod, amounts in bound:
        if counts_against_node(pod, node_resource_version):
            for name, value in amounts.items():
                out[name] += value
    return out
