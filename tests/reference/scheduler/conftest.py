"""Fixtures for the scheduler's unit tests: a control plane with only the scheduler installed, on a
manual clock (builders for nodes and pods are in ``sched_helpers``)."""

from __future__ import annotations

import pytest
from sched_helpers import START

from kube32.reference import controlplane
from kube32.reference.config import Config


@pytest.fixture
def cp(monkeypatch):
    monkeypatch.setattr(controlplane, "EXTENSIONS", ("kube32.reference.scheduler",))
    plane = controlplane.ControlPlane(Config(clock="manual", clock_start=START))
    plane.start()
    yield plane
    plane.stop()
