"""Fixtures for the API tests: a Flask test client over an in-memory control plane on a manual clock.

The behaviour areas (scheduler, controllers, Endpoints views) are left out (``EXTENSIONS = ()``) so
these tests see the API machinery alone; tests/integration runs the whole control plane.
"""

from __future__ import annotations

import pytest
from api_helpers import START, Api

from kube32.reference import controlplane
from kube32.reference.app import create_app
from kube32.reference.config import Config


@pytest.fixture
def app(monkeypatch):
    monkeypatch.setattr(controlplane, "EXTENSIONS", ())
    application = create_app(Config(clock="manual", clock_start=START, run_loops=False))
    yield application
    application.extensions["kube32"].stop()


@pytest.fixture
def api(app) -> Api:
    return Api(app)
