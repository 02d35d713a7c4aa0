"""On a rig the rig's own node boards are not foreign nodes: a scenario that needs the whole node set
runs, with the boards it does not play parked (held in reset, Node deleted) and back afterwards.

One suite run on the short-timeout virtual rig (boards node-a and node-b):

1. a DaemonSet without nodeSelector on fake nodes esp-a, esp-b -> pods on exactly esp-a, esp-b
   (not on the parked boards)
2. a scenario that owns the node set and plays board node-b     -> its pod is bound to node-b (node-a,
   parked, would win the alphabetical tie)
3. the next scenario                                            -> both boards are back and renew
"""

from __future__ import annotations

from tests.harness.rigrun import run_suite, scenario_results, short_rig

FEATURE = """\
Feature: scenarios that own the node set, on a rig

  Background:
    Given a kube32 control plane

  @area-daemonset @clause-DS-ONE-POD-PER-NODE @needs-exclusive-nodes
  Scenario: 1 without a nodeSelector every fake node gets a pod, the parked boards none
    Given these Ready nodes:
      | name  | memory | labels   |
      | esp-a | 200Ki  | board=s3 |
      | esp-b | 200Ki  | board=c3 |
    When the DaemonSet "d" is created
    And the workload interval passes
    Then the DaemonSet "d" has pods on exactly nodes "esp-a, esp-b"

  @area-scheduler @clause-SCHED-BIND-ON-CREATE @needs-exclusive-nodes @needs-real-kubelet
  Scenario: 2 the one board a scenario plays gets the pod
    Given these Ready nodes:
      | name   |
      | node-b |
    When I create a pod "p" requesting:
      | resource | quantity |
      | memory   | 8Ki      |
    Then pod "p" is bound to node "node-b"

  @needs-real-kubelet @clause-KUBELET-LEASE-RENEWAL
  Scenario: 3 both boards are back afterwards
    Given these Ready nodes:
      | name   |
      | node-a |
      | node-b |
    Then the kubelet of node "node-a" holds its Lease declaring the lease duration
    And the kubelet of node "node-b" holds its Lease declaring the lease duration
"""


def test_scenarios_that_own_the_node_set_run_on_a_rig_with_its_boards_parked(tmp_path):
    features = tmp_path / "features"
    features.mkdir()
    (features / "exclusive.feature").write_text(FEATURE)
    with short_rig(tmp_path / "rig") as vrig:
        run = run_suite(vrig.rig_path, tmp_path / "report", features=features)
    results = scenario_results(run.doc)
    assert len(results) == 3, run.output[-3000:]
    bad = {name: s for name, s in results.items() if s["status"] != "passed"}
    assert not bad, f"{bad}\n{run.output[-3000:]}"
    first = next(s for name, s in results.items() if name.startswith("1 "))
    assert first["where"] == {"rig": str(vrig.rig_path), "boards": ["cp", "node-a", "node-b"]}
    assert "parked for a scenario that owns the node set" in (run.report / first["logs"]["node-a"]).read_text()
    assert run.returncode == 0
