"""Two virtual rigs served by a real labgrid lab on 127.0.0.1 (coordinator + exporter, one place per
rig): ``run --rig A.yaml --rig B.yaml`` runs the real-time lifecycle and kubelet features on both in
parallel (one pytest-xdist worker per rig), writes one merged report naming each scenario's rig and
boards, and gives both places back, also when interrupted with Ctrl-C (SIGINT) in the middle.

Slow (two full real-time runs): ``tox -e lab`` runs it, the default test run does not.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.harness.labgrid_lab import Lab
from tests.harness.rigrun import profile_args, scenario_results, short_rig

pytest.importorskip("labgrid")
pytestmark = pytest.mark.lab

SELECTION = "realtime or needs-real-kubelet"


@pytest.fixture(scope="module")
def two_rigs(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("lab2")
    with short_rig(workdir / "rig-a", prefix="a-") as a, short_rig(workdir / "rig-b", prefix="b-") as b:
        lab = Lab(workdir / "lab").start({"rig-a": a, "rig-b": b})
        try:
            files = [lab.rig_file(name, vrig, workdir / f"{name}.yaml") for name, vrig in (("rig-a", a), ("rig-b", b))]
            yield lab, files, workdir
        finally:
            lab.stop()


def run_cmd(files, report) -> list[str]:
    cmd = [sys.executable, "-m", "kube32.conformance.cli", "run", "-q", "--report", str(report), "--tags", SELECTION]
    for f in files:
        cmd += ["--rig", str(f)]
    return cmd + profile_args()


def test_two_labgrid_places_run_the_realtime_suite_in_parallel_into_one_report(two_rigs):
    lab, files, workdir = two_rigs
    report = workdir / "report"
    t0 = time.monotonic()
    proc = subprocess.run(run_cmd(files, report), capture_output=True, text=True, timeout=1200)
    elapsed = time.monotonic() - t0
    out = proc.stdout + proc.stderr
    doc = json.loads((report / "clauses.json").read_text())
    scenarios = scenario_results(doc)
    assert scenarios, out[-3000:]
    bad = {name: s["status"] for name, s in scenarios.items() if s["status"] != "passed"}
    assert not bad, f"{bad}\n{out[-4000:]}"
    assert doc["target"]["rigs"] == [str(f) for f in files] and doc["profile"] == "hardware"
    rigs = {s["where"]["rig"] for s in scenarios.values()}
    assert rigs == {str(f) for f in files}, rigs          # both rigs ran scenarios, one report
    for s in scenarios.values():
        prefix = "a-" if s["where"]["rig"].endswith("rig-a.yaml") else "b-"
        assert all(board.startswith(prefix) for board in s["where"]["boards"]), s["where"]
        assert set(s["logs"]) == set(s["where"]["boards"])
    assert proc.returncode == 0, out[-3000:]
    assert lab.acquired_by("rig-a") is None and lab.acquired_by("rig-b") is None
    print(f"two rigs in parallel: {len(scenarios)} scenarios in {elapsed:.1f} s")


def test_ctrl_c_in_the_middle_gives_both_places_back(two_rigs):
    lab, files, workdir = two_rigs
    report = workdir / "report-interrupted"
    proc = subprocess.Popen(run_cmd(files, report), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)   # its own process group, as a terminal's Ctrl-C reaches
    try:
        deadline = time.monotonic() + 300
        while lab.acquired_by("rig-a") is None or lab.acquired_by("rig-b") is None:
            assert proc.poll() is None and time.monotonic() < deadline, "the run never held both places"
            time.sleep(1)
        time.sleep(5)                                   # in the middle of scenarios
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode != 0, out[-2000:]
    assert lab.acquired_by("rig-a") is None, out[-3000:]
    assert lab.acquired_by("rig-b") is None, out[-3000:]
