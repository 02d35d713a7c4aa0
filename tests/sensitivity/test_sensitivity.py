"""The sensitivity suite: every registered fault must make the scenarios of the clauses it names
FAIL against the in-process reference. This is the proof that the features can fail."""

from __future__ import annotations

import pytest

from kube32.spec import catalogue
from tests.conftest import FEATURES, run_features
from tests.sensitivity.registry import load_all

FAULTS = load_all()


def run_clauses(pytester: pytest.Pytester, tmp_path, clauses: list[str]) -> dict[str, dict]:
    _, doc = run_features(pytester, tmp_path / "report", *(f"--clause={c}" for c in clauses))
    return {row["id"]: row for row in doc["clauses"]}


@pytest.mark.parametrize("fault", sorted(FAULTS.values(), key=lambda f: f.name), ids=lambda f: f.name)
def test_fault_makes_its_clauses_fail(fault, pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    with pytest.MonkeyPatch.context() as mp:
        fault.apply(mp)
        rows = run_clauses(pytester, tmp_path, list(fault.breaks))
    survivors = {c: [(s["name"], s["status"]) for s in rows[c]["scenarios"]]
                 for c in fault.breaks if rows[c]["status"] != "failed"}
    assert not survivors, (f"fault {fault.name!r} ({fault.module}) should make these clauses fail, "
                           f"but their scenarios did not: {survivors}")


def test_every_clause_has_a_fault():
    """Clauses that only a real kubelet can show are proven on the virtual rig instead."""
    cat = catalogue.load()
    named = {c for f in FAULTS.values() for c in f.breaks}
    unknown = sorted(named - set(cat.ids))
    assert not unknown, f"faults name clauses the catalogue does not have: {unknown}"
    missing = sorted(c.id for c in cat if c.id not in named and "real-kubelet" not in c.needs)
    assert not missing, f"{len(missing)} clauses have no sensitivity fault: {missing}"
