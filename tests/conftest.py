"""Shared fixtures of the toolkit's own tests."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parent.parent
FEATURES = REPO / "features"
