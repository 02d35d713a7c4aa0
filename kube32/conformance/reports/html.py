"""index.html (and the comparison page): Jinja2 templates over clauses.json and the scenario records.

Failures and errors come first; every clause (``#SCHED-TIE-BREAK``) and scenario (``#sc-…``) is an
anchor; status and area filters are a few lines of inline script; the page is one file with no
outside resources, so it opens from a CI artifact as well as from disk.
"""

from __future__ import annotations

import re

import jinja2

from kube32.conformance.reports import explain, timelines
from kube32.conformance.reports.collector import log_paths
from kube32.spec import catalogue

STATUS_ORDER = ("failed", "error", "deviation", "pending", "passed", "disabled", "reference-only", "not-selected",
                "uncovered")
COLOURS = {"passed": "#2e7d32", "failed": "#c62828", "error": "#ef6c00", "deviation": "#6a1b9a",
           "disabled": "#757575", "reference-only": "#90a4ae", "pending": "#0277bd", "not-selected": "#b0bec5", "uncovered": "#9e9e9e",
           "skipped": "#9e9e9e", "undefined": "#ef6c00", "running": "#0277bd", "not-judgeable": "#cfd8dc"}

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("kube32.conformance.reports", "templates"),
                          autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                          trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
FOLDED_PARTS = ("objects", "events")      # long explanation parts start folded
_ENV.globals.update(COLOURS=COLOURS, STATUS_ORDER=STATUS_ORDER, FOLDED_PARTS=FOLDED_PARTS)


def anchor(result) -> str:
    """A scenario's anchor: feature path and test name, readable and unique within a run."""
    tail = result.nodeid.split("::")[-1].removeprefix("test_")
    raw = f"{result.feature.removesuffix('.feature')}-{tail}"
    return "sc-" + re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-")


def _scenario_view(result) -> dict:
    return {"r": result, "anchor": anchor(result), "explanation": explain.parts(result),
            "log_paths": log_paths(result),
            "failing": explain.failing_step(result),
            "pictures": timelines.pictures(result.observations, result.timing, result.steps)
            if result.observations or result.timing else []}


def _area_bars(rows: list[dict]) -> list[dict]:
    order = [a for a in catalogue.AREAS if any(r["area"] == a for r in rows)]
    order += sorted({r["area"] for r in rows} - set(order))
    bars = []
    for area in order:
        counts = {s: sum(1 for r in rows if r["area"] == area and r["status"] == s) for s in STATUS_ORDER}
        bars.append({"area": area, "total": sum(counts.values()),
                     "parts": [(s, n) for s, n in counts.items() if n]})
    return bars


def render(doc: dict, results: list) -> str:
    by_nodeid = {r.nodeid: r for r in results}
    rank = {s: i for i, s in enumerate(STATUS_ORDER)}
    area_rank = {a: i for i, a in enumerate(catalogue.AREAS)}
    rows = sorted(doc["clauses"], key=lambda r: (rank.get(r["status"], 99), area_rank.get(r["area"], 99), r["id"]))
    placed: dict[str, str] = {}     # nodeid -> the clause it is drawn under
    clauses = []
    for row in rows:
        scenarios = []
        for s in row["scenarios"]:
            result = by_nodeid.get(s["nodeid"])
            if result is None:
                continue
            first = s["nodeid"] not in placed
            placed.setdefault(s["nodeid"], row["id"])
            scenarios.append({**_scenario_view(result), "here": first, "home": placed[s["nodeid"]], "entry": s})
        clauses.append({"row": row, "scenarios": scenarios})
    first_failure = next((c["row"]["id"] for c in clauses if c["row"]["status"] in ("failed", "error")), None)
    return _ENV.get_template("index.html.j2").render(
        doc=doc, clauses=clauses, areas=_area_bars(doc["clauses"]), first_failure=first_failure,
        statuses=[s for s in STATUS_ORDER if doc["summary"]["clauses"].get(s)],
        sentence_sections=_sentence_sections(doc.get("sentences", []), by_nodeid))


def _sentence_sections(units: list[dict], by_nodeid: dict) -> list[tuple[str, list[dict]]]:
    """The Document view's units by section, in document order; every scenario dot links to its record."""
    sections: dict[str, list[dict]] = {}
    for unit in units:
        for st in unit["statements"]:
            for side in st["sides"]:
                for run in side["scenarios"]:
                    result = by_nodeid.get(run["nodeid"])
                    run["anchor"] = anchor(result) if result is not None else ""
        sections.setdefault(unit["section"], []).append(
            {**unit, "anchor": re.sub(r"[^A-Za-z0-9]+", "-", unit["at"]).strip("-").lower()})
    return list(sections.items())


def render_comparison(comparison: dict) -> str:
    return _ENV.get_template("compare.html.j2").render(cmp=comparison)
