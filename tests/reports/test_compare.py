"""``kube32-conformance compare``: runs side by side, differences first and highlighted; and
``run --list``: the selection without running anything."""

from __future__ import annotations

import json
import subprocess
import sys

from kube32.conformance import cli


def _doc(target: str, statuses: dict[str, str]) -> dict:
    return {"format": 1, "target": {"name": "http", "url": target}, "profile": "simulator",
            "started": "2026-12-01T06:00:00Z", "run": {"complete": True},
            "summary": {"clauses": {}},
            "clauses": [{"id": cid, "area": "scheduler", "title": cid.lower(), "status": status,
                         "interpretation": False, "scenarios": []} for cid, status in statuses.items()]}


def _runs(tmp_path):
    a, b = tmp_path / "impl-a", tmp_path / "impl-b"
    for run, target, statuses in ((a, "http://a", {"SCHED-A": "passed", "SCHED-B": "passed", "SCHED-C": "passed"}),
                                  (b, "http://b", {"SCHED-A": "passed", "SCHED-B": "failed", "SCHED-C": "not-selected"})):
        run.mkdir()
        (run / "clauses.json").write_text(json.dumps(_doc(target, statuses)))
    return a, b


def test_compare_puts_disagreements_first_in_json_and_html(tmp_path, capsys):
    a, b = _runs(tmp_path)
    out, js = tmp_path / "site" / "compare.html", tmp_path / "compare.json"
    out.parent.mkdir()
    assert cli.main(["compare", str(a), str(b / "clauses.json"), "--out", str(out), "--json", str(js)]) == 0
    cmp = json.loads(js.read_text())
    assert [r["id"] for r in cmp["clauses"]] == ["SCHED-B", "SCHED-C", "SCHED-A"]
    assert cmp["clauses"][0]["statuses"] == ["passed", "failed"] and cmp["clauses"][0]["verdicts_differ"]
    assert cmp["clauses"][1]["differs"] and not cmp["clauses"][1]["verdicts_differ"]
    assert not cmp["clauses"][2]["differs"]
    assert (cmp["differences"], cmp["verdict_differences"]) == (2, 1)
    assert [r["label"] for r in cmp["runs"]] == ["impl-a (http://a)", "impl-b (http://b)"]
    page = out.read_text()
    assert 'class="verdicts-differ"' in page and 'id="SCHED-B"' in page
    assert 'href="../impl-b/index.html#SCHED-B"' in page          # each cell opens that run's report
    text = capsys.readouterr().out
    assert "! SCHED-B" in text and "SCHED-A " not in text


def test_compare_rejects_what_is_not_a_report(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert cli.main(["compare", str(bad)]) == 2
    assert cli.main(["compare", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kube32-conformance compare: {bad}: not a kube32 clauses.json (no 'clauses' list)",
                   f"kube32-conformance compare: {tmp_path / 'missing'}: no clauses.json there"]


def test_run_list_prints_the_selection_and_touches_no_report(tmp_path):
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "run", "--list", "--area", "job",
                           "--clause", "JOB-BACKOFF-*", "--report", str(report)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "3 scenarios of 2 clauses selected:" in lines
    assert any(line.startswith("JOB-BACKOFF-LIMIT ") and "job/failures.feature:" in line for line in lines)
    assert {line.split()[0] for line in lines[lines.index("3 scenarios of 2 clauses selected:") + 1:]} == \
        {"JOB-BACKOFF-LIMIT", "JOB-BACKOFF-LIMIT-DEFAULT"}
    assert not report.exists()


def test_a_comparison_says_why_each_clause_failed(tmp_path, capsys):
    a, b = _runs(tmp_path)
    doc = json.loads((b / "clauses.json").read_text())
    doc["clauses"][1]["scenarios"] = [
        {"status": "passed", "message": ""},
        {"status": "failed", "message": "[SCHED-B @ document] Then ...: long",
         "findings": [{"clauses": ["SCHED-B"], "level": "document", "step": "Then",
                       "message": 'pod "p" bound to "node-b": expected node-a\nmore lines'}]}]
    (b / "clauses.json").write_text(json.dumps(doc))
    out = tmp_path / "compare.html"
    assert cli.main(["compare", str(a), str(b), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert '      [2] pod "p" bound to "node-b": expected node-a' in text.splitlines()
    assert '<div class="reason">pod &#34;p&#34; bound to &#34;node-b&#34;: expected node-a</div>' in out.read_text()


def test_run_with_several_targets_runs_each_and_compares_them(tmp_path):
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "run", "--target", "reference", "--target",
                           "process", "--clause", "JOB-COMPLETE*", "--report", str(report), "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(p.name for p in report.iterdir()) == ["1-reference", "2-process", "compare.html", "compare.json"]
    cmp = json.loads((report / "compare.json").read_text())
    assert [r["target"].get("name") for r in cmp["runs"]] == ["reference", "process"]
    assert f"comparison: {report / 'compare.html'}" in done.stdout
