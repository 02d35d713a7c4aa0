"""Computed read-only resources (Endpoints, EndpointSlices), built from the store on every read."""
