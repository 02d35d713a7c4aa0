"""Two virtual rigs served by a real labgrid lab on 127.0.0.1 (coordinator + exporter, one place per
rig): ``run --rig A.yaml --rig B.yaml`` runs the real-time lifecycle and kubelet features on both in
parallel (one pytest-xdist worker per rig, short timeouts), all pass, one merged report naming each
scenario's rig and boards with every board's console log, and both places are free afterwards — also
when the run is interrupted with Ctrl-C (SIGINT) in the middle.

The default test run does the whole set once and interrupts a second run as soon as its workers hold
both places; ``tox -e lab`` interrupts the set after its first verdict instead.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

import pytest

from kube32.harness.lab import Coordinator
from kube32.harness.rig import Rig
from tests.harness.labgrid_lab import Lab
from tests.harness.rigrun import profile_args, scenario_results, short_rig

pytest.importorskip("labgrid")

REALTIME = ["--tags", "realtime or needs-real-kubelet"]
# the kubelet clauses and the node lifecycle in real time, with the control-plane restart
JUDGED = {"KUBELET-LEASE-RENEWAL", "KUBELET-REPORTS-INCLUDE-RUNNING-PODS", "KUBELET-FIREWALL-HARDWARE",
          "KUBELET-FIREWALL-GPIO-PIN", "NODE-NOTREADY-AT-LEASE-DURATION", "NODE-EVICT-REBIND",
          "NODE-RECOVERY-CLEARS-TAINTS", "NODE-RESTART-GRACE"}


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


def run_both(two_rigs, name: str, selection: list[str]) -> tuple[dict, dict[str, dict]]:
    """Run the selection on both places; assert one merged, all-passed report over both rigs and both
    places free again. clauses.json and its scenarios."""
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
    return doc, scenarios


def test_two_labgrid_places_run_the_realtime_suite_in_parallel_into_one_report_and_are_free_after_ctrl_c(two_rigs):
    """One lab (its coordinator, exporter and rigs start once): a rig opened on a place holds it and
    reaches the boards through its NetworkSerialPorts; ``run`` on both places runs the real-time
    lifecycle + kubelet set in parallel into one report with every board's console; a second run,
    interrupted with SIGINT in the middle, leaves both places free."""
    lab, files, workdir = two_rigs
    rig = Rig.open(files[0])
    try:
        assert lab.acquired_by("rig-a") == Coordinator.at(lab.coordinator).me and lab.acquired_by("rig-b") is None
        assert all(spec.port.url.startswith("rfc2217://127.0.0.1:") for spec in rig.specs.values())
    finally:
        rig.close()
    assert lab.acquired_by("rig-a") is None

    doc, scenarios = run_both(two_rigs, "report", REALTIME)
    ran = {c["id"] for c in doc["clauses"] if c["status"] == "passed"}
    assert not JUDGED - ran, JUDGED - ran
    consoles_are_in_the_reports(workdir / "report", scenarios)

    # the longest scenarios go first, one to each worker: both places are held for seconds
    interrupt_in_the_middle(two_rigs, REALTIME, after_verdict=False)


def consoles_are_in_the_reports(report, scenarios: dict[str, dict]) -> None:
    """Every board's timestamped console of a scenario: in clauses.json (paths), as files, in JUnit
    and linked from index.html; the eviction and the comeback show in the boards' own words."""
    silent = scenarios["node-a goes silent; its pod ends up on node-b"]
    rig = silent["where"]["boards"][0][:2]                       # "a-" or "b-": the rig's board prefix
    assert set(silent["logs"]) == {f"{rig}cp", f"{rig}node-a", f"{rig}node-b"}
    assert "kubelet: started pod" in (report / silent["logs"][f"{rig}node-a"]).read_text()
    assert "kubelet: started pod" in (report / silent["logs"][f"{rig}node-b"]).read_text()   # the evicted pod
    case = next(c for c in ET.parse(report / "junit.xml").iter("testcase") if c.get("name").endswith(silent["name"]))
    console = case.findtext("system-out")
    assert f"--- {rig}node-a ---" in console and f"--- {rig}cp ---" in console and "kubelet: started pod" in console
    comeback = scenarios["node-a comes back after its NoExecute taint"]
    rig = comeback["where"]["boards"][0][:2]
    text = (report / comeback["logs"][f"{rig}node-a"]).read_text()
    assert "rst:0x1 (POWERON_RESET)" in text and "kubelet: kubelet ready" in text   # released from the hold
    assert text.splitlines()[0][:2].isdigit()                                      # timestamped lines
    assert 'href="logs/' in (report / "index.html").read_text()


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
def test_ctrl_c_in_the_middle_of_the_realtime_suite_gives_both_places_back(two_rigs):
    interrupt_in_the_middle(two_rigs, REALTIME, after_verdict=True)
