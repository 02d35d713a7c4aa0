"""The node_lifecycle controller (not yet written)."""


def install(cp) -> None:
    """Wire the node_lifecycle controller into the control plane."""
