"""A failed scenario explains itself, in the terminal and in the reports: the clause (title,
statement, locator), the scenario with the failing step marked, expected against actual in full,
the objects it touched as YAML with their events, the target clock; none of the runner's frames."""

from __future__ import annotations

import textwrap

from tests.conftest import feature_dir, run_features

FEATURE = textwrap.dedent('''
    Feature: explanations
      Background:
        Given a kube32 control plane
        And these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |

      @clause-SCHED-TIE-BREAK
      Scenario: an expectation the target does not meet
        When I create a pod "q" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        And 3 seconds pass
        Then pod "q" is bound to node "node-zz"
        And pod "q" is Pending
    ''')


def test_the_terminal_and_the_reports_explain_the_failure(pytester, tmp_path, monkeypatch):
    feature_dir(tmp_path, monkeypatch, "explain.feature", FEATURE)
    result, doc = run_features(pytester, tmp_path / "report")
    assert result.ret == 1
    out = result.stdout.str()
    for wanted in ("clause: SCHED-TIE-BREAK: Equal scores go to the alphabetically first node",
                   "statement: When several nodes share the highest score",
                   "locator: Scheduler: ",
                   'step: Then pod "q" is bound to node "node-zz" (line 15)',
                   '     passed   And 3 seconds pass',
                   '  >> FAILED   Then pod "q" is bound to node "node-zz"',
                   '     skipped  And pod "q" is Pending',
                   'expected: Then pod "q" is bound to node "node-zz"',
                   'checked: pod "q" bound to "node-zz"',
                   "  spec.nodeName is 'node-a'",
                   "check gave up: '2026-01-01T00:00:03.000000Z'",
                   "objects:", "    kind: Pod", "      nodeName: node-a", "    kind: Node",
                   "events:", "    reason: Scheduled", "    message: Successfully assigned",
                   "raised at: steps/pods.py:"):
        assert wanted in out, (wanted, out[-6000:])
    for unwanted in ("Traceback", "context.py", "def eventually", "_pytest", "\x1b["):
        assert unwanted not in out, unwanted
    scenario = next(r for r in doc["clauses"] if r["id"] == "SCHED-TIE-BREAK")["scenarios"][0]
    explained = scenario["explanation"]
    assert explained["step"] == {"keyword": "Then", "text": 'pod "q" is bound to node "node-zz"', "line": 15}
    assert explained["expected"] == 'Then pod "q" is bound to node "node-zz"'
    assert explained["checked"] == 'pod "q" bound to "node-zz"'
    assert "spec.nodeName is 'node-a'" in explained["actual"]
    assert [o["kind"] for o in explained["objects"]] == ["Pod", "Node"]
    assert explained["events"][0]["reason"] == "Scheduled"
    assert 'pod "q" bound to "node-zz": spec.nodeName is' in scenario["message"]
    junit = (tmp_path / "report" / "junit.xml").read_text()
    assert "statement: When several nodes share the highest score" in junit


def test_a_status_error_shows_the_status_in_full(pytester, tmp_path, monkeypatch):
    feature_dir(tmp_path, monkeypatch, "explain.feature", FEATURE.replace(
        'Then pod "q" is bound to node "node-zz"', 'When node "node-zz" gets label "a=b"'))
    result, doc = run_features(pytester, tmp_path / "report")
    explained = next(r for r in doc["clauses"] if r["id"] == "SCHED-TIE-BREAK")["scenarios"][0]["explanation"]
    assert explained["expected"] == "a successful answer to PATCH /api/v1/nodes/node-zz"
    assert explained["actual"]["code"] == 404
    assert explained["actual"]["status"]["reason"] == "NotFound"
    assert "code: 404" in result.stdout.str()


TABLE_FEATURE = textwrap.dedent('''
    Feature: explanations
      Background:
        Given a kube32 control plane
        And these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |

      @clause-NODE-DEFAULT-TOLERATIONS
      Scenario: a table the target does not match
        When I create a pod "web" requesting:
          | resource | quantity |
          | memory   | 16Ki     |
        Then pod "web" has exactly these tolerations:
          | key                             | operator | effect    | tolerationSeconds |
          | node.kubernetes.io/not-ready    | Exists   | NoExecute | 7                 |
    ''')


def test_the_expected_values_of_a_table_step_are_shown_and_only_this_scenarios_events(pytester, tmp_path,
                                                                                        monkeypatch):
    """The expectation carries the step's table; events are the scenario's own (an earlier scenario's
    node of the same name, or its old events, do not show)."""
    feature_dir(tmp_path, monkeypatch, "explain.feature", TABLE_FEATURE)
    result, doc = run_features(pytester, tmp_path / "report")
    explained = next(r for r in doc["clauses"] if r["id"] == "NODE-DEFAULT-TOLERATIONS")["scenarios"][0]["explanation"]
    assert explained["expected"].splitlines() == [
        "Then pod \"web\" has exactly these tolerations:",
        "  | key | operator | effect | tolerationSeconds |",
        "  | node.kubernetes.io/not-ready | Exists | NoExecute | 7 |"]
    assert "Use -v" not in explained["actual"]


def test_events_of_other_objects_and_earlier_times_are_left_out():
    from kube32.conformance.explanation import _mine

    mine = {"involvedObject": {"uid": "u1"}, "lastTimestamp": "2026-01-01T00:00:10Z"}
    assert _mine(mine, {"u1"}, began=1767225600.0)
    assert not _mine({**mine, "involvedObject": {"uid": "u0"}}, {"u1"}, began=1767225600.0)   # same name, older node
    assert not _mine({**mine, "lastTimestamp": "2025-12-31T23:59:00Z"}, {"u1"}, began=1767225600.0)
    assert _mine({"involvedObject": {}, "lastTimestamp": ""}, {"u1"}, began=1767225600.0)
