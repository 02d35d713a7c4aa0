"""The deployment controller (not yet written)."""


def install(cp) -> None:
    """Wire the deployment controller into the control plane."""
