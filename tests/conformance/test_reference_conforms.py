"""The whole feature suite against the reference, one area per test (so workers share it): every
clause passes at both levels, document and reference (or is disabled for a capability the reference
cannot have); none fails, errs or goes uncovered."""

from __future__ import annotations

import json

import pytest

from kube32.spec import catalogue
from tests.conftest import FEATURES, run_features

CATALOGUE = catalogue.load()


def run_area(pytester: pytest.Pytester, tmp_path, area: str) -> dict:
    return run_features(pytester, tmp_path / "report", "--area", area)[1]


@pytest.mark.parametrize("area", sorted(CATALOGUE.by_area()))
def test_reference_passes_every_clause_of(area, pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    doc = run_area(pytester, tmp_path, area)
    rows = [r for r in doc["clauses"] if r["area"] == area]
    bad = [r for r in rows if r["status"] in ("failed", "error", "uncovered")
           or r["verdicts"]["reference"] in ("failed", "error")]
    assert not bad, json.dumps(bad, indent=1)[:6000]
    allowed = {c.id for c in CATALOGUE if "real-kubelet" in c.needs}
    disabled = {r["id"] for r in rows if "disabled" in r["verdicts"].values()}
    assert disabled <= allowed, f"disabled on the reference without reason: {sorted(disabled - allowed)}"
