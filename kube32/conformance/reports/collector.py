"""Collects scenario verdicts and folds them into the per-clause matrix (``clauses.json``).

Scenario verdicts: passed | failed (the target broke a clause) | error (harness, network or board
broke) | deviation (failed, but the target declared that deviation) | disabled (capability missing).
A clause's status: failed > error > deviation > passed > disabled; ``uncovered`` when no scenario
of it ran. The format is documented in docs/REPORTS.md.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re

import pytest

from kube32.conformance import __version__
from kube32.conformance.reports import html
from kube32.conformance.suite import item_clauses
from kube32.spec import catalogue

CATALOGUE = pytest.StashKey[catalogue.Catalogue]()
COLLECTOR = pytest.StashKey["Collector"]()
DEVIATIONS = pytest.StashKey[dict]()
SCENARIO = pytest.StashKey[tuple[str, str]]()   # (scenario name, feature file) set before it runs

FORMAT_VERSION = 1
RANK = {"failed": 5, "error": 4, "deviation": 3, "passed": 2, "disabled": 1}


@dataclasses.dataclass
class ScenarioResult:
    nodeid: str
    name: str
    feature: str
    clauses: list[str]
    status: str
    duration: float
    message: str = ""
    logs: dict[str, str] = dataclasses.field(default_factory=dict)   # board -> console text (rigs)


class Collector:
    def __init__(self, cat: catalogue.Catalogue) -> None:
        self.catalogue = cat
        self.results: dict[str, ScenarioResult] = {}
        self.target: dict = {}
        self.started = dt.datetime.now(dt.UTC)

    def record(self, item: pytest.Item, verdict: str, report: pytest.TestReport) -> None:
        previous = self.results.get(item.nodeid)
        if previous is not None and RANK[previous.status] >= RANK[verdict]:
            return
        message = ""
        if verdict in ("failed", "error", "deviation", "disabled"):
            message = getattr(report, "wasxfail", "") or _short(report.longrepr)
        name, feature = item.stash.get(SCENARIO, (item.name, str(item.path.name)))
        self.results[item.nodeid] = ScenarioResult(item.nodeid, name, feature, item_clauses(item), verdict,
                                                   round(getattr(report, "duration", 0.0), 3), message)

    def attach_logs(self, nodeid: str, logs: dict[str, str]) -> None:
        """Keep a scenario's console logs (board -> text); written under logs/ next to clauses.json."""
        if nodeid in self.results:
            self.results[nodeid].logs = dict(logs)

    # -- the matrix -------------------------------------------------------------------------
    def clauses(self) -> list[dict]:
        by_clause: dict[str, list[ScenarioResult]] = {c.id: [] for c in self.catalogue}
        for r in self.results.values():
            for cid in r.clauses:
                by_clause.setdefault(cid, []).append(r)
        out = []
        for c in self.catalogue:
            runs = by_clause[c.id]
            status = max((r.status for r in runs), key=RANK.get) if runs else "uncovered"
            out.append({
                "id": c.id, "area": c.area, "title": c.title, "status": status,
                "interpretation": bool(c.interpretation),
                "scenarios": [{"name": r.name, "feature": r.feature, "nodeid": r.nodeid, "status": r.status,
                               "duration": r.duration, **({"message": r.message} if r.message else {}),
                               **({"logs": log_paths(r)} if r.logs else {})}
                              for r in runs],
            })
        return out

    def counts(self, rows: list[dict]) -> dict[str, int]:
        counts = {k: 0 for k in ("passed", "failed", "error", "deviation", "disabled", "uncovered")}
        for row in rows:
            counts[row["status"]] += 1
        return counts

    def document(self, selected_only: bool = False) -> dict:
        rows = self.clauses()
        return {
            "format": FORMAT_VERSION,
            "suite": {"name": "kube32-conformance", "version": __version__},
            "target": self.target,
            "profile": self.target.get("profile"),
            "started": self.started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "summary": {"clauses": self.counts(rows),
                        "scenarios": self.counts([{"status": r.status} for r in self.results.values()])},
            "clauses": rows,
        }

    def summary_lines(self) -> list[str]:
        rows = [r for r in self.clauses() if r["status"] != "uncovered" or not self.results]
        counts = self.counts(self.clauses())
        lines = ["", "kube32 conformance: " + ", ".join(
            f"{counts[k]} {k}" for k in ("passed", "failed", "error", "deviation", "disabled", "uncovered"))
            + " clauses"]
        bad = sorted((r for r in rows if r["status"] in ("failed", "error")), key=lambda r: r["id"])
        for r in bad:
            lines.append(f"  {r['status'].upper():7} {r['id']}: {r['title']}")
            for s in r["scenarios"]:
                if s["status"] in ("failed", "error"):
                    lines.append(f"          {s['feature']}: {s['name']}: {s.get('message', '')[:300]}")
        if not bad:
            lines.append("  0 failed, 0 errors")
        return lines

    def write(self, directory: str) -> list[str]:
        os.makedirs(directory, exist_ok=True)
        doc = self.document()
        path_json = os.path.join(directory, "clauses.json")
        with open(path_json, "w") as fh:
            json.dump(doc, fh, indent=2)
        for r in self.results.values():
            for board, rel in log_paths(r).items():
                path = os.path.join(directory, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as fh:
                    fh.write(r.logs[board])
        path_html = os.path.join(directory, "index.html")
        with open(path_html, "w") as fh:
            fh.write(html.render(doc))
        return [path_json, path_html]


def log_paths(result: ScenarioResult) -> dict[str, str]:
    """board -> ``logs/<scenario-slug>/<board>.log`` (relative to the report directory)."""
    raw = f"{result.feature.removesuffix('.feature')}--{result.nodeid.split('::')[-1].removeprefix('test_')}"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip("-")[:150] or "scenario"
    return {board: f"logs/{slug}/{re.sub(r'[^A-Za-z0-9._-]+', '-', board)}.log" for board in sorted(result.logs)}


def _short(longrepr) -> str:
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):
        return str(longrepr[-1])
    crash = getattr(longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(longrepr)
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " / ".join(lines[:3])[:500]
