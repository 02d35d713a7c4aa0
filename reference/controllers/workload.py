"""The workload controller (not yet written)."""


def install(cp) -> None:
    """Wire the workload controller into the control plane."""
