"""Collects scenario verdicts and folds them into the per-clause matrix (``clauses.json``).

Scenario verdicts: passed | failed (the target broke a clause) | error (harness, network or board
broke) | deviation (failed, but the target declared that deviation) | disabled (capability missing)
| reference-only (judged only at reference level, see conformance/levels.py).
Every clause and scenario has a verdict per level (``verdicts``: document, reference); ``status`` is
the one at the level the run chose (``--level``, document by default).
A clause's status: failed > error > deviation > passed > disabled > reference-only from its scenarios; when none ran:
``not-selected`` (the features have scenarios for it, this run did not select them), ``pending`` (selected,
not run yet: only in the report of an unfinished run) or ``uncovered`` (no scenario at all).
The format is documented in docs/REPORTS.md.

Where things happen: ``record`` runs where the scenario ran (the main process, or a pytest-xdist
worker) and puts the scenario's record on the pytest report; ``add`` runs where reports are written
(the main or controller process), from ``pytest_runtest_logreport``. So ``--jobs`` runs merge here.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import time

import pytest

from kube32.conformance import __version__, levels, reachability
from kube32.conformance.reports import sentences, text
from kube32.conformance.reports.gherkin import SCENARIO_LOG
from kube32.conformance.suite import item_clauses
from kube32.spec import catalogue

CATALOGUE = pytest.StashKey[catalogue.Catalogue]()
COLLECTOR = pytest.StashKey["Collector"]()
DEVIATIONS = pytest.StashKey[dict]()
CONTEXT = pytest.StashKey[object]()      # the scenario's ScenarioContext (its observations)
EXPLANATION = pytest.StashKey[dict]()    # a failed scenario's structured explanation (explanation.py)
REPORT_ATTR = "kube32_scenario"          # the record's attribute on a pytest TestReport (survives xdist)
TARGET_ATTR = "kube32_target"            # the target's description, beside it (an xdist controller has none)

FORMAT_VERSION = 1
ASSERT_REPR = re.compile(r"\s+assert\s")          # where pytest's rewritten assertion starts in a message
V = levels.Verdict
RANK = {V.FAILED: 5, V.ERROR: 4, V.DEVIATION: 3, V.PASSED: 2, V.DISABLED: 1, V.NOT_JUDGED: 0}
VERDICTS = (V.PASSED, V.FAILED, V.ERROR, V.DEVIATION, V.DISABLED)
CLAUSE_STATUSES = (*VERDICTS, levels.NOT_JUDGED, "pending", "not-selected", "uncovered")


def combine(statuses) -> str | None:
    """The worst of several verdicts (None for none)."""
    return max(statuses, key=RANK.get, default=None)
TIMELINE_AREAS = frozenset({"node_lifecycle", "kubelet"})   # scenarios whose record keeps observations


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
    line: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)         # feature + rule + scenario tags
    gherkin: dict = dataclasses.field(default_factory=dict)           # gherkin.ScenarioLog.as_dict()
    observations: dict | None = None                                  # observations.Observations.to_dict()
    timing: list[dict] = dataclasses.field(default_factory=list)      # timing verdicts (docs/REPORTS.md)
    explanation: dict | None = None                                   # structured failure explanation
    finished: float = 0.0                                             # wall-clock epoch
    where: dict | None = None                                         # rigs: {"rig": file, "boards": [...]}
    level: str = levels.DOCUMENT                                      # the scenario's own (@interpretation: reference)
    by_clause: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)   # clause -> level -> verdict
    findings: list[dict] = dataclasses.field(default_factory=list)    # levels.Finding.as_dict()
    nodes: dict[str, str] = dataclasses.field(default_factory=dict)    # feature's node name -> the one used (naming.py)

    def verdict(self, level: str, clause: str | None = None) -> str:
        """The scenario's verdict at ``level`` (for one of its clauses, or all)."""
        if clause is not None:
            return self.by_clause.get(clause, {}).get(level, self.status)
        return combine(v[level] for v in self.by_clause.values()) or self.status

    @property
    def steps(self) -> list[dict]:
        return self.gherkin.get("steps", [])

    @classmethod
    def from_dict(cls, data: dict) -> ScenarioResult:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def scenario_tags(log: dict) -> list[str]:
    rule = log.get("rule") or {}
    return sorted({*log.get("feature_tags", ()), *rule.get("tags", ()), *log.get("scenario_tags", ())})


class Collector:
    def __init__(self, cat: catalogue.Catalogue, level: str = levels.DOCUMENT) -> None:
        self.catalogue = cat
        self.level = level                             # the level that decides (--level)
        self.results: dict[str, ScenarioResult] = {}
        self.target: dict = {}
        self.started = dt.datetime.now(dt.UTC)
        self.finished: dt.datetime | None = None
        self.complete = False
        self.exit_status: int | None = None
        self.expected: dict[str, dict] | None = None   # clause -> {"scenarios": n, "selected": n}

    # -- where the scenario ran ---------------------------------------------------------------
    def record(self, item: pytest.Item, verdict: str, report: pytest.TestReport, where: dict | None = None,
               judge: levels.Judge | None = None, by_clause: dict[str, dict[str, str]] | None = None) -> None:
        """Build the scenario's record and put it on ``report`` (sent to the controller by xdist)."""
        findings = judge.findings if judge is not None and verdict != "error" else []
        message = ""
        if findings:   # which clause the failing step judged, at which level (the chosen level's first)
            message = str(sorted(findings, key=lambda f: f.level != self.level)[0])[:500]
        elif verdict in ("failed", "error", "deviation", "disabled"):
            message = getattr(report, "wasxfail", "") or _short(report.longrepr)
        log = item.stash.get(SCENARIO_LOG, None)
        gherkin = log.as_dict(verdict in ("failed", "error", "deviation")) if log is not None else {}
        clauses = item_clauses(item)
        ctx = item.stash.get(CONTEXT, None)
        observations = getattr(ctx, "observations", None)
        keep = observations is not None and (observations.eventful or any(
            c in self.catalogue.ids and self.catalogue.get(c).area in TIMELINE_AREAS for c in clauses))
        recorded = observations.to_dict() if keep else None
        if recorded is not None:
            recorded["origin"] = getattr(getattr(ctx, "timeline", None), "origin", recorded["t0"])
        result = ScenarioResult(
            nodeid=item.nodeid, name=gherkin.get("name", item.name),
            feature=gherkin.get("feature", str(item.path.name)), clauses=clauses, status=str(verdict),
            duration=round(getattr(report, "duration", 0.0), 3), message=message,
            line=gherkin.get("line", 0), tags=scenario_tags(gherkin) if gherkin else [], gherkin=gherkin,
            observations=recorded, timing=list(getattr(ctx, "timings", None) or []), finished=time.time(),
            where=where,
            explanation=item.stash.get(EXPLANATION, None) if verdict in ("failed", "deviation") else None,
            level=judge.level if judge is not None else levels.DOCUMENT,
            by_clause={c: {lv: str(v) for lv, v in by_level.items()} for c, by_level in (by_clause or {}).items()},
            findings=[f.as_dict() for f in findings],
            nodes=dict(getattr(ctx, "node_names", None) or {}))
        setattr(report, REPORT_ATTR, text.plain_all(dataclasses.asdict(result)))
        if self.target:
            setattr(report, TARGET_ATTR, self.target)

    # -- where the reports are written ----------------------------------------------------------
    def add(self, data: dict, target: dict | None = None) -> None:
        """A scenario's record (and the description of the target it ran on, where this process
        has none of its own: an xdist controller)."""
        if target and not self.target:
            self.target = target
        result = ScenarioResult.from_dict(data)
        previous = self.results.get(result.nodeid)
        if previous is not None:
            if RANK[previous.status] >= RANK[result.status]:
                return
            result.logs = result.logs or previous.logs
        self.results[result.nodeid] = result

    def attach_logs(self, nodeid: str, logs: dict[str, str]) -> None:
        """Keep a scenario's console logs (board -> text); written under logs/ next to clauses.json."""
        if nodeid in self.results:
            self.results[nodeid].logs = {board: text.plain(log) for board, log in logs.items()}

    def finish(self, exit_status: int, complete: bool) -> None:
        self.finished = dt.datetime.now(dt.UTC)
        self.exit_status = int(exit_status)
        self.complete = complete

    # -- the matrix -------------------------------------------------------------------------
    def _unrun_status(self, clause_id: str) -> str:
        expected = (self.expected or {}).get(clause_id)
        if not expected or not expected["scenarios"]:
            return "uncovered"
        if expected["selected"] and not self.complete:
            return "pending"
        return "not-selected"

    def clauses(self) -> list[dict]:
        by_clause: dict[str, list[ScenarioResult]] = {c.id: [] for c in self.catalogue}
        for r in self.results.values():
            for cid in r.clauses:
                by_clause.setdefault(cid, []).append(r)
        out = []
        for c in self.catalogue:
            runs = by_clause[c.id]
            verdicts = {level: combine(r.verdict(level, c.id) for r in runs) or self._unrun_status(c.id)
                        for level in levels.LEVELS}
            out.append({
                "id": c.id, "area": c.area, "title": c.title, "status": verdicts[self.level],
                "interpretation": bool(c.interpretation), "level": c.level, "verdicts": verdicts,
                "statement": c.statement.strip(), "section": c.section,
                "scenarios": [{"name": r.name, "feature": r.feature, "line": r.line, "nodeid": r.nodeid,
                               "status": r.verdict(self.level, c.id), "duration": r.duration, "level": r.level,
                               "verdicts": {level: r.verdict(level, c.id) for level in levels.LEVELS},
                               **({"message": r.message} if r.message else {}),
                               **({"explanation": r.explanation} if r.explanation else {}),
                               **({"findings": [f for f in r.findings if c.id in f["clauses"]]}
                                  if any(c.id in f["clauses"] for f in r.findings) else {}),
                               **({"logs": log_paths(r)} if r.logs else {}),
                               **({"timing": r.timing} if r.timing else {}),
                               **({"where": r.where} if r.where else {}),
                               **({"nodes": r.nodes} if r.nodes else {})}
                              for r in runs],
            })
        return out

    @staticmethod
    def counts(rows: list[dict], keys=CLAUSE_STATUSES, level: str | None = None) -> dict[str, int]:
        counts = dict.fromkeys(keys, 0)
        for row in rows:
            status = row["verdicts"][level] if level else row["status"]
            counts[status] = counts.get(status, 0) + 1
        return counts

    def run_info(self) -> dict:
        end = self.finished or dt.datetime.now(dt.UTC)
        return {"complete": self.complete, "finished": _iso(self.finished) if self.finished else None,
                "duration": round((end - self.started).total_seconds(), 1), "exit_status": self.exit_status}

    def document(self) -> dict:
        rows = self.clauses()
        units = sentences.verdicts(self.results.values(), complete=self.complete)
        return {
            "format": FORMAT_VERSION,
            "suite": {"name": "kube32-conformance", "version": __version__},
            "target": self.target,
            "profile": self.target.get("profile"),
            "started": _iso(self.started),
            "run": self.run_info(),
            "level": self.level,
            "summary": {"clauses": self.counts(rows),
                        "scenarios": self.scenario_counts(),
                        **{level: {"clauses": self.counts(rows, level=level)} for level in levels.LEVELS},
                        "sentences": sentences.counts(units)},
            "clauses": rows,
            "sentences": units,
        }

    def scenario_counts(self) -> dict[str, int]:
        """Scenarios (each Examples row one) by their verdict at the deciding level."""
        return self.counts([{"status": r.verdict(self.level)} for r in self.results.values()],
                           (*VERDICTS, levels.NOT_JUDGED, "uncovered"))

    def summary_lines(self) -> list[str]:
        rows = self.clauses()
        lines = [""]
        for level in (self.level, *(lv for lv in levels.LEVELS if lv != self.level)):
            counts = self.counts(rows, level=level)
            lines.append(f"kube32 conformance, {level} level{' (decides)' if level == self.level else ''}: "
                         + ", ".join(f"{counts[k]} {k.replace('-', ' ')}" for k in CLAUSE_STATUSES
                                     if counts[k] or k in VERDICTS) + " clauses")
        bad = sorted((r for r in rows if r["status"] in ("failed", "error")), key=lambda r: r["id"])
        not_run: dict[str, str] = {}      # clause -> why (the target had stopped answering): one line for all
        for r in bad:
            shown = []
            for s in r["scenarios"]:
                if reachability.not_run(s["status"], s.get("message", "")):
                    not_run.setdefault(r["id"], s["message"])
                elif s["status"] in ("failed", "error"):
                    shown.append(s)
            if shown:
                lines.append(f"  {r['status'].upper():7} {r['id']}: {r['title']}")
            for s in shown:
                judged = [f"{f['level']} check at {f['step']}: {f['message']}"
                          for f in sorted(s.get("findings", []), key=lambda f: f["level"] != self.level)]
                why = (judged or [s.get("message", "")])[0]
                # the terminal keeps the step's own words; pytest's rewritten assert after them is in the report
                why = ASSERT_REPR.split(why, maxsplit=1)[0] or why
                lines.append(f"          {s['feature']}:{s['line']}: {s['name']}: {why[:300]}")
        if not_run:
            ids = sorted(not_run)
            why = next(iter(not_run.values())).partition(": ")[2]
            lines.append(f"  NOT RUN {len(ids)} clauses ({', '.join(ids[:6])}{' …' if len(ids) > 6 else ''}): {why}")
        if not bad:
            lines.append("  0 failed, 0 errors")
        reasons: dict[str, list[str]] = {}
        for r in rows:
            if r["status"] == "disabled":
                why = sorted({s.get("message", "") for s in r["scenarios"] if s["status"] == "disabled"})
                reasons.setdefault("; ".join(why) or "disabled", []).append(r["id"])
        for why, ids in sorted(reasons.items()):
            lines.append(f"  DISABLED {', '.join(ids)}: {why}")
        return lines

    # -- files ------------------------------------------------------------------------------
    def write(self, directory: str) -> list[str]:
        """All reports, each replaced atomically: a reader never sees half a file."""
        from kube32.conformance.reports import cucumber, html, junit

        os.makedirs(directory, exist_ok=True)
        doc = self.document()
        results = list(self.results.values())
        for r in results:
            for board, rel in log_paths(r).items():
                write_atomic(os.path.join(directory, rel), r.logs[board])
        written = []
        for name, content in (
                ("clauses.json", json.dumps(doc, indent=2)),
                ("junit.xml", junit.render(doc, results, self.catalogue)),
                ("cucumber.json", json.dumps(cucumber.render(results), indent=2)),
                ("index.html", html.render(doc, results))):
            path = os.path.join(directory, name)
            write_atomic(path, content)
            written.append(path)
        return written


def write_atomic(path: str, content: str) -> None:
    """Write beside ``path``, then rename over it: readers see the old file or the new one, never half."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _iso(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def log_paths(result: ScenarioResult) -> dict[str, str]:
    """board -> ``logs/<scenario-slug>/<board>.log`` (relative to the report directory)."""
    raw = f"{result.feature.removesuffix('.feature')}--{result.nodeid.split('::')[-1].removeprefix('test_')}"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip("-")[:150] or "scenario"
    return {board: f"logs/{slug}/{re.sub(r'[^A-Za-z0-9._-]+', '-', board)}.log" for board in sorted(result.logs)}


def _short(longrepr) -> str:
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):   # a skip: (path, line, "Skipped: disabled: ...")
        return text.plain(str(longrepr[-1])).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(longrepr)
    lines = [ln for ln in text.plain(message).strip().splitlines() if ln.strip()]
    return " / ".join(lines[:3])[:500]
