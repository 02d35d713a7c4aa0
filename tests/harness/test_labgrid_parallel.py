"""Two virtual rigs served by a real labgrid lab on 127.0.0.1 (coordinator + exporter, one place per
rig): ``run --rig A.yaml --rig B.yaml`` runs lifecycle and kubelet features on both in parallel (one
pytest-xdist worker per rig), writes one merged report naming each scenario's rig and boards, and
gives both places back, also when interrupted with Ctrl-C (SIGINT) in the middle.

The default test run takes one scenario per rig (a real-time eviction that holds a board in reset, a
kubelet's reported figures) and interrupts a second run as soon as its workers hold both places;
``tox -e lab`` runs the whole real-time lifecycle + kubelet set, and interrupts it after its first
verdict, the same way.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from kube32.harness.lab import Coordinator
from kube32.harness.rig import Rig
from tests.harness.labgrid_lab import Lab
from tests.harness.rigrun import profile_args, scenario_results, short_rig

pytest.importorskip("labgrid")

REALTIME = ["--tags", "realtime or needs-real-kubelet"]
# one scenario per rig: a real-time eviction that holds a board in reset, a kubelet's reported figures
SUBSET = [*REALTIME, "--clause", "NODE-EVICT-NONPOSITIVE-SECONDS", "--clause", "KUBELET-REPORTS-INCLUDE-RUNNING-PODS"]


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


def run_cmd(files, report, selection) -> list[str]:
    cmd = [sys.executable, "-m", "kube32.conformance.cli", "run", "-q", "--report", str(report), *selection]
    for f in files:
        cmd += ["--rig", str(f)]
    return cmd + profile_args()


def run_both(two_rigs, name: str, selection: list[str]) -> dict[str, dict]:
    """Run the selection on both places; assert one merged, all-passed report over both rigs and both
    places free again. The scenarios of clauses.json."""
    lab, files, workdir = two_rigs
    report = workdir / name
    proc = subprocess.run(run_cmd(files, report, selection), capture_output=True, text=True, timeout=1200)
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
        place = "rig-a" if s["where"]["rig"].endswith("rig-a.yaml") else "rig-b"
        assert s["where"]["labgrid"] == [f"{place}@{lab.coordinator}"], s["where"]
        assert all(board.startswith(place[-1] + "-") for board in s["where"]["boards"]), s["where"]
        assert set(s["logs"]) == set(s["where"]["boards"])
    assert proc.returncode == 0, out[-3000:]
    assert lab.acquired_by("rig-a") is None and lab.acquired_by("rig-b") is None
    return scenarios


def test_two_labgrid_places_run_scenarios_in_parallel_into_one_report_and_are_free_after_ctrl_c(two_rigs):
    """One lab for the default run (its coordinator, exporter and rigs start once): a rig opened on a
    place holds it and reaches the boards through its NetworkSerialPorts; ``run`` on both places runs
    the subset in parallel into one report; a second run, interrupted with SIGINT in the middle, leaves
    both places free."""
    lab, files, _ = two_rigs
    rig = Rig.open(files[0])
    try:
        assert lab.acquired_by("rig-a") == Coordinator.at(lab.coordinator).me and lab.acquired_by("rig-b") is None
        assert all(spec.port.url.startswith("rfc2217://127.0.0.1:") for spec in rig.specs.values())
    finally:
        rig.close()
    assert lab.acquired_by("rig-a") is None

    scenarios = run_both(two_rigs, "report-subset", SUBSET)
    assert set(scenarios) == {"a toleration of zero seconds",
                              "a pod claiming 2 pins, PSRAM and memory lowers every reported figure"}

    interrupt_in_the_middle(two_rigs, SUBSET, after_verdict=False)


def interrupt_in_the_middle(two_rigs, selection, *, after_verdict: bool) -> None:
    """SIGINT to the run's process group (as a terminal's Ctrl-C) in the middle of the run — once its
    workers hold both places, or once the first scenario has ended (``after_verdict``): the run
    stops, both places are free."""
    lab, files, workdir = two_rigs
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}   # as in CI: the run flushes
    proc = subprocess.Popen(run_cmd(files, workdir / "report-interrupted", selection), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True, env=env)
    lines: list[str] = []
    preflight_done, first_verdict = threading.Event(), threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("kube32-conformance: "):   # said (and flushed) after the preflight, whose
                preflight_done.set()                      # own hold on the places is over by then
            if line.startswith(("PASSED", "FAILED", "ERROR")):
                first_verdict.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert preflight_done.wait(300), "".join(lines)[-3000:]
        # this process hears of the preflight's release a little later than the run: first both places
        # are seen free, then the xdist workers take them for their scenarios
        deadline, freed = time.monotonic() + 300, set()
        while len(freed) < 2 or not (lab.acquired_by("rig-a") and lab.acquired_by("rig-b")):
            freed |= {place for place in ("rig-a", "rig-b") if lab.acquired_by(place) is None}
            assert proc.poll() is None and time.monotonic() < deadline, "".join(lines)[-3000:]
            time.sleep(0.05)
        assert not after_verdict or first_verdict.wait(300), "".join(lines)[-3000:]
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=300)
        reader.join(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out = "".join(lines)
    assert proc.returncode == 2, out[-2000:]      # pytest's "interrupted": it stopped in the middle
    assert lab.acquired_by("rig-a") is None, out[-3000:]
    assert lab.acquired_by("rig-b") is None, out[-3000:]


@pytest.mark.lab
def test_two_labgrid_places_run_the_realtime_suite_in_parallel_into_one_report(two_rigs):
    t0 = time.monotonic()
    scenarios = run_both(two_rigs, "report-all", REALTIME)
    print(f"two rigs in parallel: {len(scenarios)} scenarios in {time.monotonic() - t0:.1f} s")


@pytest.mark.lab
def test_ctrl_c_in_the_middle_of_the_realtime_suite_gives_both_places_back(two_rigs):
    interrupt_in_the_middle(two_rigs, REALTIME, after_verdict=True)
