"""The kube32 scheduler (filters in the documented order, scoring, FailedScheduling)."""


def install(cp) -> None:
    """Wire the scheduler into the control plane (issue: scheduler)."""
