"""Which clause a generic check judges when a scenario carries several (see levels.py): the clause
that states the event, the taint or the condition the check looks for. In a scenario of one clause
the check simply judges that clause."""

from __future__ import annotations

from kube32.spec import constants

EVENTS = {
    "NodeNotReady": "NODE-NOTREADY-EVENT",
    "NodeReady": "NODE-RECOVERY-CLEARS-TAINTS",
    "Evicted": "NODE-EVICT-EVENT",
}
TAINTS = {
    f"{constants.TAINT_UNREACHABLE}:NoSchedule": "NODE-NOTREADY-NOSCHEDULE-TAINT",
    f"{constants.TAINT_UNREACHABLE}:NoExecute": "NODE-NOEXECUTE-AFTER-DELAY",
}
CONDITION_REASONS = {
    "NodeStatusUnknown": "NODE-NOTREADY-AT-LEASE-DURATION",
    "DisruptionTarget": "NODE-EVICT-RETURNS-TO-PENDING",
}
