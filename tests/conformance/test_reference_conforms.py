"""The whole feature suite against the reference: every clause passes (or is disabled for a
capability the reference cannot have), none fails, errs or goes uncovered."""

from __future__ import annotations

import json

import pytest

from spec import catalogue
from tests.conftest import FEATURES


def run_suite(pytester: pytest.Pytester, tmp_path, *args: str) -> dict:
    report = tmp_path / "report"
    pytester.runpytest_inprocess("--pyargs", "kube32_conformance.bind", "-p", "no:cacheprovider", "-q",
                                 "--report", str(report), *args)
    return json.loads((report / "clauses.json").read_text())


def verdicts(doc: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in doc["clauses"]:
        out.setdefault(row["status"], []).append(row["id"])
    return out


def test_reference_passes_every_clause(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    doc = run_suite(pytester, tmp_path)
    by_status = verdicts(doc)
    assert not by_status.get("failed") and not by_status.get("error"), json.dumps(
        [r for r in doc["clauses"] if r["status"] in ("failed", "error")], indent=1)[:6000]
    assert not by_status.get("uncovered"), f"uncovered clauses: {by_status.get('uncovered')}"
    cat = catalogue.load()
    disabled = set(by_status.get("disabled", []))
    allowed = {c.id for c in cat if "real-kubelet" in c.needs}
    assert disabled <= allowed, f"disabled on the reference without reason: {sorted(disabled - allowed)}"
