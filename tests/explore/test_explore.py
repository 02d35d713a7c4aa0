"""``explore`` end to end: against a second reference it finds nothing; against a planted bug it finds
a disagreement, shrinks it, and the ``.feature`` it writes fails ``run`` against that bug and passes
against the reference."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kube32.conformance.commands import explore as command
from kube32.conformance.explore import areas, session
from kube32.conformance.targets.reference import ReferenceTarget
from kube32.spec import profiles
from tests.explore.faults import FaultyProcessTarget

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kube32.conformance", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("area", areas.NAMES)
def test_a_second_reference_gives_no_disagreement(tmp_path, area):
    done = cli("explore", "--area", area, "--budget", "4s", "--seed", "3", "--report", "rep", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["verdict"] == "passed" and summary["operations"] > 20 and summary["compared"] > 0
    assert summary["seeds"][0] == 3                         # the rounds it ran, to reproduce them
    assert "explore: no disagreement in" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize(("args", "says"), [(["--target", "127.0.0.1:1"], "did you mean http://"),
                                             (["--budget", "soon"], "not a duration"),
                                             (["--area", "nope"], "invalid choice")])
def test_bad_input_is_one_line_and_the_usage_status(tmp_path, args, says):
    done = cli("explore", *args, cwd=tmp_path)
    assert done.returncode == command.USAGE and says in done.stderr, done.stderr
    assert not (tmp_path / "explore-report").exists()


FOUND_BY_AREA = {"scheduler": "planted-k-and-G-unrecognized", "node_lifecycle": "default-tolerations-added-blindly",
                 "endpoints": "selector-ignores-label-values",
                 "workloads": "job-failed-pods-stay-active", "deployment": "deployment-generation-moves-on-metadata"}


@pytest.mark.parametrize(("area", "fault"), FOUND_BY_AREA.items())
def test_a_planted_bug_is_found_shrunk_and_replays_as_a_feature(tmp_path, monkeypatch, area, fault):
    monkeypatch.setattr(session, "HYPOTHESIS_SHRINK", 5.0)     # a test's share of shrinking
    monkeypatch.setattr(session, "SHRINK_MIN", 10.0)
    profile = profiles.load("simulator")
    oracle, side = session.open_sides(ReferenceTarget(profile), FaultyProcessTarget(fault, profile))
    try:
        result = session.Session(oracle, side, [areas.load(area)], seed=0, budget=60.0,
                                 report_dir=str(tmp_path / "rep")).run()
    finally:
        oracle.target.stop()
        side.target.stop()
    assert result["verdict"] == "failed", result["why"]
    finding = result["finding"]
    assert len(finding.steps) <= finding.first_steps
    args = argparse.Namespace(report=str(tmp_path / "rep"), target="process")
    assert command._report(args, result, side.describe()) == command.FOUND
    feature = tmp_path / "rep" / "finding.feature"
    assert f"@clause-{finding.clause}" in feature.read_text()

    replay = ["run", "--features", str(feature.parent), "--jobs", "1"]
    clean = cli(*replay, "--report", str(tmp_path / "clean"), cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout[-3000:]
    broken = subprocess.run([sys.executable, "-m", "tests.explore.faults", fault, *replay, "--report",
                             str(tmp_path / "broken")], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert broken.returncode == 1, broken.stdout[-3000:] + broken.stderr[-3000:]
    assert "1 failed" in broken.stdout.splitlines()[-1]


def test_every_area_has_a_planted_bug_it_must_find():
    assert set(FOUND_BY_AREA) == set(areas.NAMES)
