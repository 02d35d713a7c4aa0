"""Fault modules, one per area: each registers faults with ``tests.sensitivity.registry.fault``."""
