"""Fixtures for the scheduler's unit tests: a control plane with only the scheduler installed, on a
manual clock (builders for nodes and pods are in ``sched_helpers``)."""

from __future__ import annotations

import pytest
from sched_helpers import START

from reference import controlplane
from reference.config import Config


@pytest.fixture
def cp(monkeypatch):
    monkeypatch.setattr(controlplane, "EXTENSIONS", ("reference.scheduler",))
    plane = controlplane.ControlPlane(Config(clock="manual", clock_start=START))
    plane.start()
    yield plane
    plane.stop()
