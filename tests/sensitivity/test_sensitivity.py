"""The sensitivity suite: every registered fault must make the scenarios of the clauses it names
FAIL against the in-process reference (the proof that the features can fail), and every fair
variant (another reasonable implementation) must leave the clauses it names PASSING at document
level (the proof that the features fail only for what the document requires)."""

from __future__ import annotations

import sys

import pytest

from kube32.spec import catalogue
from tests.conftest import FEATURES, run_features
from tests.sensitivity.registry import load_all

FAULTS = load_all()


def run_clauses(pytester: pytest.Pytester, tmp_path, clauses: list[str], args=()) -> dict[str, dict]:
    _, doc = run_features(pytester, tmp_path / "report", *args, *(f"--clause={c}" for c in clauses))
    return {row["id"]: row for row in doc["clauses"]}


def _forget_cached_answers() -> None:
    """Empty every functools cache of the reference and the spec: an answer cached before a fault
    (a parsed quantity) would hide the fault, and one cached under it would outlive it."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("kube32.reference", "kube32.spec")):
            for value in list(vars(module).values()):
                if callable(getattr(type(value), "cache_clear", None)):   # (not a proxy's __getattr__)
                    value.cache_clear()


def _with(fault, pytester, monkeypatch, tmp_path) -> dict[str, dict]:
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    with pytest.MonkeyPatch.context() as mp:
        _forget_cached_answers()
        try:
            fault.apply(mp)
            return run_clauses(pytester, tmp_path, list(fault.clauses), fault.args)
        finally:
            _forget_cached_answers()


def _scenarios(row: dict, level: str) -> list:
    return [(s["name"], s["verdicts"][level], s.get("message", "")[:200]) for s in row["scenarios"]]


@pytest.mark.parametrize("fault", sorted((f for f in FAULTS.values() if not f.fair), key=lambda f: f.name),
                         ids=lambda f: f.name)
def test_fault_makes_its_clauses_fail(fault, pytester, monkeypatch, tmp_path):
    rows = _with(fault, pytester, monkeypatch, tmp_path)
    survivors = {c: _scenarios(rows[c], fault.level) for c in fault.breaks
                 if rows[c]["verdicts"][fault.level] != "failed"}
    assert not survivors, (f"fault {fault.name!r} ({fault.module}) should make these clauses fail at "
                           f"{fault.level} level, but their scenarios did not: {survivors}")


@pytest.mark.parametrize("fault", sorted((f for f in FAULTS.values() if f.fair), key=lambda f: f.name),
                         ids=lambda f: f.name)
def test_fair_variant_passes_at_document_level(fault, pytester, monkeypatch, tmp_path):
    rows = _with(fault, pytester, monkeypatch, tmp_path)
    failed = {c: _scenarios(rows[c], "document") for c in fault.passes if rows[c]["verdicts"]["document"] != "passed"}
    assert not failed, (f"fair variant {fault.name!r} ({fault.module}) follows the document, yet these clauses "
                        f"do not pass at document level: {failed}")
    judged = {c: _scenarios(rows[c], "document") for c in fault.cannot_tell if rows[c]["verdicts"]["document"] != "disabled"}
    assert not judged, f"fair variant {fault.name!r}: the runner should say it cannot judge {judged}"
    same = [c for c in fault.differs if rows[c]["verdicts"]["reference"] != "failed"]
    assert not same, f"fair variant {fault.name!r} should differ from our reading (fail at reference level) in {same}"


def test_every_clause_has_a_fault():
    """Clauses that only a real kubelet can show are proven on the virtual rig instead."""
    cat = catalogue.load()
    named = {c for f in FAULTS.values() for c in f.clauses}
    unknown = sorted(named - set(cat.ids))
    assert not unknown, f"faults name clauses the catalogue does not have: {unknown}"
    breaking = {c for f in FAULTS.values() for c in f.breaks}
    missing = sorted(c.id for c in cat if c.id not in breaking and "real-kubelet" not in c.needs)
    assert not missing, f"{len(missing)} clauses have no sensitivity fault: {missing}"
