"""The trace held against the features, the catalogue and (when the user has it) the document.

A sentence with no scenario, a side missing without a reason, or a document-level check with no
sentence behind it is a problem of ``clauses --check``:

- every side of every statement names scenarios that exist, judge at document level and carry one of
  the statement's clauses (or gives the reason it cannot be shown);
- every clause the catalogue keeps at document level is named by a statement;
- every scenario that judges at document level is named by a side of a statement: anything else it
  checks is the implementation's free choice, so it belongs at reference level (``@interpretation``);
- with the document: every unit of it is traced, under its locator, with the digest of its text, and no
  paraphrase copies it (eight words in a row).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kube32.conformance.suite import CoverageProblem, ScenarioInfo
from kube32.spec import catalogue, document, trace

COPY_WORDS = 8


def _words(text: str) -> list[str]:
    return re.findall(r"\S+", text.lower())


def _copied(says: str, source: str) -> str | None:
    grams = {" ".join(w[i:i + COPY_WORDS]) for w in [_words(source)] for i in range(len(w) - COPY_WORDS + 1)}
    mine = _words(says)
    for i in range(len(mine) - COPY_WORDS + 1):
        if " ".join(mine[i:i + COPY_WORDS]) in grams:
            return " ".join(mine[i:i + COPY_WORDS])
    return None


def check(tr: trace.Trace, cat: catalogue.Catalogue, scenarios: Iterable[ScenarioInfo],
          units: list[document.Unit] | None = None) -> list[CoverageProblem]:
    scenarios = list(scenarios)
    problems: list[CoverageProblem] = []
    by_ref = {(sc.feature, sc.name): sc for sc in scenarios}
    named: set[tuple[str, str]] = set()
    traced: set[str] = set()
    for st in tr.statements():
        traced.update(st.clauses)
        for cid in st.clauses:
            if cid not in cat:
                problems.append(CoverageProblem("trace-clause", st.key, f"{cid} is not in the catalogue"))
        for side in st.sides:
            for ref in side.scenarios:
                named.add(ref)
                sc = by_ref.get(ref)
                where = f"{st.key} side {side.name}"
                if sc is None:
                    problems.append(CoverageProblem("trace-scenario", where, f"no scenario {ref[1]!r} in {ref[0]}"))
                elif not sc.judges_document:
                    problems.append(CoverageProblem("trace-scenario", where, f"{ref[0]}: {ref[1]!r} is "
                                                    "@interpretation: it cannot judge what the document says"))
                elif not set(sc.clauses) & set(st.clauses):
                    problems.append(CoverageProblem("trace-scenario", where, f"{ref[0]}: {ref[1]!r} carries none "
                                                    f"of {', '.join(st.clauses)}"))
    for clause in cat:
        if clause.level == "document" and clause.area in tr.areas and clause.id not in traced:
            problems.append(CoverageProblem("untraced-clause", clause.id, "a document-level clause that no "
                                            "sentence of the trace names (spec/trace/*.yaml)"))
    for sc in scenarios:
        documented = [cat.get(c) for c in sc.clauses if c in cat and cat.get(c).level == "document"]
        if sc.judges_document and documented and all(c.area in tr.areas for c in documented) \
                and (sc.feature, sc.name) not in named:
            problems.append(CoverageProblem("untraced-scenario", f"{sc.feature}:{sc.line} {sc.name!r}",
                                            "judges at document level, but no sentence of the trace names it: "
                                            "name it under the side it judges, or tag it @interpretation"))
    if units is not None:
        problems += _against_document(tr, units)
    return problems


def missing_files(tr: trace.Trace) -> list[CoverageProblem]:
    """The shipped trace answers for the whole document: one file per traced area."""
    present = {u.area for u in tr.units}
    return [CoverageProblem("trace-missing", f"spec/trace/{area}.yaml", "the document's sections "
                            f"{', '.join(s for s, a in trace.SECTIONS.items() if a == area)} are not traced")
            for area in trace.TRACE_AREAS if area not in present]


def _against_document(tr: trace.Trace, units: list[document.Unit]) -> list[CoverageProblem]:
    problems = []
    mine = tr.by_locator()
    theirs = {u.locator: u for u in units}
    for u in units:
        entry = mine.get(u.locator)
        if entry is None:
            problems.append(CoverageProblem("trace-gap", u.locator, "this unit of the document is not traced"))
            continue
        if entry.digest != document.digest(u.text):
            problems.append(CoverageProblem("trace-stale", u.locator, "the document's wording changed since it "
                                            f"was traced (digest {document.digest(u.text)}, traced {entry.digest})"))
        for st in entry.statements:
            copied = _copied(st.says, u.text)
            if copied:
                problems.append(CoverageProblem("trace-copy", st.key, f"says {copied!r} in the document's words"))
    for at in mine:
        if at not in theirs:
            problems.append(CoverageProblem("trace-unknown-unit", at, "the document has no such unit"))
    return problems


def summary(tr: trace.Trace) -> str:
    """``69 units (3 not judgeable), 112 statements: 96 every side, 16 a side with a reason``"""
    statements = tr.statements()
    reasoned = sum(any(s.reason for s in st.sides) for st in statements)
    skipped = sum(u.not_judgeable is not None for u in tr.units)
    return (f"{len(tr.units)} units ({skipped} not judgeable), {len(statements)} statements: "
            f"{len(statements) - reasoned} every side, {reasoned} a side with a reason")


def skeleton(units: list[document.Unit]) -> str:
    """Trace entries to fill in, per file: every unit's locator and digest."""
    out, area = [], None
    for u in units:
        if trace.SECTIONS.get(u.section) != area:
            area = trace.SECTIONS.get(u.section)
            out.append(f"# spec/trace/{area}.yaml\narea: {area}\nunits:")
        out.append(f'  - at: "{u.locator}"\n    digest: {document.digest(u.text)}\n    statements: []')
    return "\n".join(out) + "\n"
