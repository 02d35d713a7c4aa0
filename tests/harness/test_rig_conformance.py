"""CI conformance run on a virtual rig over rfc2217://127.0.0.1: one control-plane board running
the reference, node boards node-a and node-b running the virtual kubelet, short timeouts.

Runs every scenario tagged @realtime (node goes silent -> Unknown -> taints -> eviction; recovery;
control-plane restart) and every @needs-real-kubelet scenario (features/kubelet) with
``--target rig:<rig.yaml>``, and checks that they pass with every board's console log in the reports.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.harness.rigrun import run_suite, scenario_results, short_rig


@pytest.fixture(scope="module")
def rig_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("rigci")
    with short_rig(workdir / "rig") as vrig:
        yield vrig, workdir


def test_realtime_and_real_kubelet_scenarios_pass_on_a_virtual_rig(rig_run):
    vrig, workdir = rig_run
    report = workdir / "report"
    run = run_suite(vrig.rig_path, report, "-m", "realtime or needs-real-kubelet")
    out, doc = run.output, run.doc
    scenarios = scenario_results(doc)
    assert scenarios, f"no scenario ran:\n{out[-3000:]}"
    bad = {name: s for name, s in scenarios.items() if s["status"] != "passed"}
    assert not bad, f"scenarios did not pass on the virtual rig: {bad}\n{out[-4000:]}"
    # the kubelet clauses and the node lifecycle in real time, with the restart
    ran = {c["id"] for c in doc["clauses"] if c["status"] == "passed"}
    assert {"KUBELET-LEASE-RENEWAL", "KUBELET-REPORTS-INCLUDE-RUNNING-PODS", "KUBELET-FIREWALL-HARDWARE",
            "KUBELET-FIREWALL-GPIO-PIN", "NODE-NOTREADY-AT-LEASE-DURATION", "NODE-EVICT-REBIND",
            "NODE-RECOVERY-CLEARS-TAINTS", "NODE-RESTART-GRACE"} <= ran

    # console logs: in clauses.json (paths), as files, and in JUnit
    silent = scenarios["node-a goes silent; its pod ends up on node-b"]
    assert set(silent["logs"]) == {"cp", "node-a", "node-b"}
    node_a_log = (report / silent["logs"]["node-a"]).read_text()
    assert "kubelet: started pod" in node_a_log
    node_b_log = (report / silent["logs"]["node-b"]).read_text()
    assert "kubelet: started pod" in node_b_log          # the evicted pod moved here
    comeback = scenarios["node-a comes back after its NoExecute taint"]
    text = (report / comeback["logs"]["node-a"]).read_text()
    assert "rst:0x1 (POWERON_RESET)" in text and "kubelet: kubelet ready" in text   # released from the hold
    assert text.splitlines()[0][:2].isdigit()                                      # timestamped lines
    junit = ET.parse(report / "junit.xml")
    case = next(c for c in junit.iter("testcase") if c.get("name").endswith(silent["name"]))
    console = case.findtext("system-out")
    assert "--- node-a ---" in console and "--- cp ---" in console and "kubelet: started pod" in console
    assert 'href="logs/' in (report / "index.html").read_text()
    assert run.returncode == 0, out[-3000:]
