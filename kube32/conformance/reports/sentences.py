"""The document's sentences with the verdicts of the scenarios that judge them (``clauses.json``
``sentences``, and the report's Document view).

A statement of the trace (``spec/trace``) is judged by the scenarios its sides name, at document
level and for the statement's own clauses: its verdict is the worst of theirs. A statement none of
whose scenarios ran this time is ``not-selected`` (``pending`` while a run is still going); a unit
of the document that states nothing an API client can see is ``not-judgeable``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from kube32.conformance import levels, suite
from kube32.spec import trace

NOT_JUDGEABLE = "not-judgeable"


@functools.lru_cache(maxsize=1)
def _trace() -> trace.Trace:
    return trace.load()


def _lines() -> dict[tuple[str, str], int]:
    """(feature, scenario name as written) -> its line: a run's results are known by feature and line
    (a Scenario Outline's runs carry their example values in their names)."""
    return {(sc.feature, sc.name): sc.line for sc in suite.scenarios()}


def verdicts(results: Iterable, *, complete: bool = True, tr: trace.Trace | None = None,
             lines: dict[tuple[str, str], int] | None = None) -> list[dict]:
    """Every traced unit in document order, each statement with its verdict, sides and scenarios."""
    tr = tr or _trace()
    lines = _lines() if lines is None else lines
    by_place: dict[tuple[str, int], list] = {}
    for r in results:
        by_place.setdefault((r.feature, r.line), []).append(r)
    unrun = "not-selected" if complete else "pending"
    out = []
    for unit in tr.units:
        entry = {"at": unit.at, "section": unit.section}
        if unit.not_judgeable is not None:
            out.append({**entry, "verdict": NOT_JUDGEABLE, "not_judgeable": unit.not_judgeable, "statements": []})
            continue
        statements = []
        for st in unit.statements:
            sides, seen = [], []
            for side in st.sides:
                runs = []
                for feature, name in side.scenarios:
                    for r in by_place.get((feature, lines.get((feature, name), -1)), []):
                        mine = [c for c in st.clauses if c in r.clauses]
                        verdict = _worst(r.verdict(levels.DOCUMENT, c) for c in mine)
                        runs.append({"feature": r.feature, "name": r.name, "nodeid": r.nodeid, "verdict": verdict})
                seen += [run["verdict"] for run in runs]
                sides.append({"side": side.name, "scenarios": runs, **({"reason": side.reason} if side.reason else {})})
            statements.append({"key": st.key, "says": st.says, "kind": st.kind, "clauses": list(st.clauses),
                               "verdict": _worst(seen) or unrun, "sides": sides})
        out.append({**entry, "verdict": _worst(s["verdict"] for s in statements), "statements": statements})
    return out


_RANK = {"failed": 7, "error": 6, "deviation": 5, "pending": 4, "passed": 3, "disabled": 2,
         levels.NOT_JUDGED: 1, "not-selected": 0}


def _worst(verdicts: Iterable[str]) -> str | None:
    return max(verdicts, key=lambda v: _RANK.get(v, -1), default=None)


def counts(units: list[dict]) -> dict[str, int]:
    """How many statements (and units not judgeable) have each verdict."""
    out: dict[str, int] = {}
    for unit in units:
        for verdict in [s["verdict"] for s in unit["statements"]] or [unit["verdict"]]:
            out[verdict] = out.get(verdict, 0) + 1
    return out
