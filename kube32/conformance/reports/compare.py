"""Several runs' clauses.json side by side, clause by clause (``kube32-conformance compare``):
different implementations against the same suite, or one implementation over time."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kube32.conformance.reports import text

VERDICTS = {"passed", "failed", "error", "deviation", "disabled"}
NOT_RUN = {"not-selected", "uncovered", "pending", "absent"}     # alike when comparing: the run has no verdict


class CompareError(ValueError):
    """A run that cannot be read; the message is one line for the CLI."""


def load(path: str) -> tuple[str, dict]:
    """(the clauses.json path, its document) for a report directory or a clauses.json file."""
    file = Path(path) / "clauses.json" if Path(path).is_dir() else Path(path)
    try:
        doc = json.loads(file.read_text())
    except FileNotFoundError:
        raise CompareError(f"{path}: no clauses.json there") from None
    except (OSError, ValueError) as exc:
        raise CompareError(f"{file}: not a readable clauses.json ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("clauses"), list):
        raise CompareError(f"{file}: not a kube32 clauses.json (no 'clauses' list)")
    return str(file), doc


def _label(file: str, doc: dict, taken: set[str]) -> str:
    target = doc.get("target") or {}
    base = Path(file).parent.name or Path(file).stem
    label = f"{base} ({target.get('url') or target.get('name', '?')})"
    n = 2
    while label in taken:
        label, n = f"{base} #{n}", n + 1
    taken.add(label)
    return label


def reason(row: dict) -> str:
    """Why a clause did not pass in a run, in one line: the first finding (or message) of its first
    scenario with the clause's own status; empty for a clause that passed or did not run."""
    status = row.get("status")
    if status not in ("failed", "error", "deviation", "disabled"):
        return ""
    for s in row.get("scenarios") or []:
        if s.get("status") != status:
            continue
        findings = [f for f in s.get("findings") or [] if f.get("message")]
        return text.one_line(findings[0]["message"] if findings else s.get("message", ""), 160)
    return ""


def compare(paths: list[str], out_dir: str | None = None) -> dict:
    """The comparison document; ``out_dir`` makes each run's report link relative to it."""
    if len(paths) < 1:
        raise CompareError("compare needs at least one report directory or clauses.json")
    loaded = [load(p) for p in paths]
    taken: set[str] = set()
    runs, order, rows = [], [], {}
    for i, (file, doc) in enumerate(loaded):
        index = Path(file).with_name("index.html")
        link = os.path.relpath(index, out_dir) if out_dir is not None else str(index)
        runs.append({"label": _label(file, doc, taken), "file": file, "index": link.replace(os.sep, "/"),
                     "target": doc.get("target") or {}, "profile": doc.get("profile"), "started": doc.get("started"),
                     "complete": (doc.get("run") or {}).get("complete", True),
                     "summary": (doc.get("summary") or {}).get("clauses", {})})
        for row in doc["clauses"]:
            if row["id"] not in rows:
                order.append(row["id"])
                rows[row["id"]] = {"id": row["id"], "area": row.get("area", ""), "title": row.get("title", ""),
                                   "interpretation": bool(row.get("interpretation")),
                                   "statuses": ["absent"] * len(loaded), "reasons": [""] * len(loaded)}
            rows[row["id"]]["statuses"][i] = row.get("status", "absent")
            rows[row["id"]]["reasons"][i] = reason(row)
    clauses = []
    for cid in order:
        row = rows[cid]
        verdicts = {s for s in row["statuses"] if s in VERDICTS}
        row["differs"] = len({"not run" if s in NOT_RUN else s for s in row["statuses"]}) > 1
        row["verdicts_differ"] = len(verdicts) > 1     # two runs that ran it disagree
        clauses.append(row)
    clauses.sort(key=lambda r: (not r["verdicts_differ"], not r["differs"]))
    return {"format": 1, "runs": runs, "clauses": clauses,
            "differences": sum(r["differs"] for r in clauses),
            "verdict_differences": sum(r["verdicts_differ"] for r in clauses)}


def text_lines(cmp: dict) -> list[str]:
    lines = [f"{len(cmp['runs'])} runs, {len(cmp['clauses'])} clauses: {cmp['verdict_differences']} with "
             f"different verdicts, {cmp['differences']} with different statuses"]
    for i, run in enumerate(cmp["runs"], 1):
        lines.append(f"  [{i}] {run['label']}  {run['file']}" + ("" if run["complete"] else "  (incomplete)"))
    for row in cmp["clauses"]:
        if row["differs"]:
            mark = "!" if row["verdicts_differ"] else " "
            lines.append(f"{mark} {row['id']:45} " + "  ".join(f"[{i}] {s:12}" for i, s in
                                                             enumerate(row["statuses"], 1)))
            lines += [f"      [{i}] {why}" for i, why in enumerate(row.get("reasons") or [], 1) if why]
    return lines
