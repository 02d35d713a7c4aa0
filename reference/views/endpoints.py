"""Endpoints and EndpointSlices computed on read (not yet written)."""


def install(cp) -> None:
    """Register the computed views."""
