"""On a real clock the target may act on a DaemonSet template change before the runner's next
request. "2 seconds pass" between the change and following the rollout makes that certain on the
manual clock: the not-ready pod on esp-c is already replaced when the runner starts following, and
the recorded order must still begin with esp-c (a whole-suite run at --jobs 12 lost that node)."""

from __future__ import annotations

import textwrap

from tests.conftest import feature_dir, run_features, statuses

FEATURE = textwrap.dedent('''
    Feature: a rollout the target began before the runner looked
      Background:
        Given a kube32 control plane

      @clause-DS-ROLLING-NOT-READY-FIRST
      Scenario: the not-ready pod goes first, already before the rollout is followed
        Given these Ready nodes:
          | name  | memory |
          | esp-a | 200Ki  |
          | esp-b | 200Ki  |
          | esp-c | 200Ki  |
        And the DaemonSet "d" is created
        And the DaemonSet "d" pods are running and ready
        And the DaemonSet "d" pod on node "esp-c" becomes not ready
        When the DaemonSet "d" template changes to image "kube32/app:2"
        And 2 seconds pass
        And the DaemonSet "d" rollout is followed for at most 60 seconds
        Then the DaemonSet "d" rollout completed
        And the DaemonSet "d" rollout replaced nodes in order "esp-c, esp-a, esp-b"
    ''')


def test_a_node_replaced_before_the_rollout_is_followed_keeps_its_place(pytester, tmp_path, monkeypatch):
    feature_dir(tmp_path, monkeypatch, "rollout.feature", FEATURE)
    result, doc = run_features(pytester, tmp_path / "report", "--target", "reference")
    row = next(r for r in doc["clauses"] if r["id"] == "DS-ROLLING-NOT-READY-FIRST")
    assert statuses(doc)["DS-ROLLING-NOT-READY-FIRST"] == "passed", row["scenarios"][0].get("message")
    assert result.ret == 0
