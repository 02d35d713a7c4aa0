"""The console script end to end, as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from kube32.spec import catalogue

FEATURE = textwrap.dedent('''
    Feature: cli
      @clause-SCHED-BIND-ON-CREATE
      Scenario: bind on create
        Given a kube32 control plane
        And these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then the create response for pod "p" names node "<node>"
    ''')


def cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kube32.conformance", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=240)


def test_run_reports_success_and_failure_by_exit_status(tmp_path):
    for node, code in (("node-a", 0), ("node-b", 1)):
        features = tmp_path / node
        features.mkdir()
        (features / "cli.feature").write_text(FEATURE.replace("<node>", node))
        report = tmp_path / f"report-{node}"
        done = cli("run", "--features", str(features), "--report", str(report), "-q", cwd=tmp_path)
        assert done.returncode == code, done.stdout[-2000:] + done.stderr[-2000:]
        doc = json.loads((report / "clauses.json").read_text())
        status = {r["id"]: r["status"] for r in doc["clauses"]}["SCHED-BIND-ON-CREATE"]
        assert status == ("passed" if code == 0 else "failed")
        assert ("0 failed" in done.stdout) == (code == 0)


def test_clauses_lists_every_clause_with_coverage(tmp_path):
    done = cli("clauses", "--json", cwd=tmp_path)
    rows = json.loads(done.stdout)
    assert len(rows) >= 100 and all(r["scenarios"] > 0 for r in rows), [r["id"] for r in rows if not r["scenarios"]]


def test_serve_rejects_an_unknown_profile_field(tmp_path):
    done = cli("serve", "--set", "lease_durations=3", cwd=tmp_path)
    assert done.returncode != 0 and "unknown profile field" in done.stderr


def test_clauses_check_passes_on_the_shipped_suite(tmp_path):
    done = cli("clauses", "--check", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]
    assert done.stdout.strip().endswith("0 problems")


def test_version_is_the_distribution_version(tmp_path):
    from importlib import metadata

    done = cli("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"kube32-conformance {metadata.version('kube32-conformance')}"


def _complete(line: str, tmp_path) -> list[str]:
    out = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)),
           "_ARGCOMPLETE_STDOUT_FILENAME": str(out)}
    done = subprocess.run([sys.executable, "-m", "kube32.conformance"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return out.read_text().split("\013")


def test_shell_completion_answers_through_argcomplete(tmp_path):
    assert _complete("kube32-conformance run --ar", tmp_path) == ["--area "]   # the trailing space ends the word


def test_completion_offers_areas_and_clause_ids_not_file_names(tmp_path):
    (tmp_path / "scheduler-notes.txt").write_text("")
    assert _complete("kube32-conformance run --area sch", tmp_path) == ["scheduler "]
    assert _complete("kube32-conformance run --area ", tmp_path) == list(catalogue.AREAS)
    clauses = _complete("kube32-conformance run --clause SCHED-TIE", tmp_path)
    assert clauses == ["SCHED-TIE-BREAK "], clauses
    assert "SCHED-\\*" in _complete("kube32-conformance run --clause SCH", tmp_path)   # escaped for the shell


def test_more_jobs_than_rigs_is_a_usage_error(tmp_path):
    """With several rigs --jobs spreads scenarios over them (one worker each): more jobs than rigs is
    refused (one rig alone shares its node boards out instead: tests/harness/test_rig_jobs.py)."""
    done = cli("run", "--rig", "a.yaml", "--rig", "b.yaml", "--jobs", "3", "--report", str(tmp_path / "r"),
               cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "one rig each" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


# FEATURE as an Outline: three Examples rows, the second of them failing
OUTLINE = FEATURE.replace("Feature: cli", "Feature: counts").replace(
    "Scenario: bind on create", "Scenario Outline: bind on create to <node>") + (
    "\n    Examples:\n      | node   |\n      | node-a |\n      | node-b |\n      | node-a |\n")


def test_the_terminal_tells_one_count_and_ends_with_the_summary(tmp_path):
    """Inside a checkout (whose pytest settings name plugins a run does not load) and with workers:
    no pytest warnings, sections or worker lines; one count (each Examples row a scenario) in the
    first line and the last; the failure summarised once, after the scenario lines."""
    features = tmp_path / "features"
    features.mkdir()
    (features / "counts.feature").write_text(OUTLINE)
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntimeout = 60\n")
    done = cli("run", "--features", str(features), "--report", str(tmp_path / "r"), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("kube32-conformance: 3 scenarios,"), lines[0]
    assert lines[-1].startswith("kube32: 3 scenarios: 2 passed, 1 failed"), lines[-1]
    text = done.stdout + done.stderr
    for noise in ("warning", "Warning", "bringing up nodes", "short test summary", "=====", "Unknown config option"):
        assert noise not in text, (noise, text[-3000:])
    scenario_lines = [i for i, ln in enumerate(lines) if ln.startswith(("PASSED", "FAILED"))]
    summary = next(i for i, ln in enumerate(lines) if ln.startswith("  FAILED  SCHED-BIND-ON-CREATE"))
    assert len(scenario_lines) == 3 and summary > max(scenario_lines)
    assert sum("expected 'node-b'" in ln for ln in lines) == 1        # said once, in the summary
    assert "assert 'node-a'" not in done.stdout                       # pytest's diff stays in the report
