"""Fixtures shared by the runner's tests."""

from __future__ import annotations

import pytest

from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread


@pytest.fixture(scope="module")
def reference():
    """A real reference server on a manual clock, one per test module."""
    server = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", clock_start=1767225600.0))
    yield server
    server.stop()
