"""Two levels of judgement (kube32/conformance/levels.py): a failed check counts against the clause
it judged, at its level, and against no other clause; the coverage check wants every clause the
document states judged by a scenario that is not @interpretation."""

from __future__ import annotations

import pytest

from kube32.conformance import levels, suite
from kube32.spec import catalogue

LEVELS = {"A": "document", "B": "document", "R": "reference"}


def test_a_check_attributed_to_one_clause_fails_only_that_clause():
    judge = levels.Judge(["A", "B"])
    judge.step = 'Then pod "x" has an event "Evicted"'
    with judge.judging("B"):
        raise AssertionError("no Evicted event")
    assert judge.verdicts(LEVELS) == {"A": {"document": "passed", "reference": "passed"},
                                      "B": {"document": "failed", "reference": "failed"}}
    assert [f.step for f in judge.failing("document", LEVELS)] == ['Then pod "x" has an event "Evicted"']


def test_a_reference_check_never_fails_the_document_level():
    judge = levels.Judge(["A"])
    with judge.judging("A", levels.REFERENCE):
        raise AssertionError("message differs")
    assert judge.verdicts(LEVELS) == {"A": {"document": "passed", "reference": "failed"}}
    assert judge.failing("document", LEVELS) == []
    assert len(judge.failing("reference", LEVELS)) == 1


def test_a_document_check_of_a_single_clause_scenario_ends_it():
    judge = levels.Judge(["A"])
    with pytest.raises(AssertionError), judge.judging("A"):
        raise AssertionError("hard")
    assert judge.findings == []


def test_interpretation_scenarios_and_reference_clauses_judge_only_at_reference_level():
    judge = levels.Judge(["A", "R"], levels.REFERENCE)
    judge.add(None, levels.DOCUMENT, "boom")
    assert judge.verdicts(LEVELS) == {"A": {"document": "reference-only", "reference": "failed"},
                                      "R": {"document": "reference-only", "reference": "failed"}}
    plain = levels.Judge(["R"])
    plain.add(None, levels.DOCUMENT, "boom")
    assert plain.verdicts(LEVELS)["R"] == {"document": "reference-only", "reference": "failed"}
    assert plain.failing("document", LEVELS) == []


def test_a_document_clause_judged_only_by_interpretation_scenarios_is_a_coverage_problem(tmp_path):
    (tmp_path / "x.feature").write_text(
        "Feature: f\n"
        "  @clause-SCHED-TIE-BREAK @interpretation\n  Scenario: s\n    Given a kube32 control plane\n"
        "  @clause-SCHED-SCORE-NO-GPIO @interpretation\n  Scenario: t\n    Given a kube32 control plane\n"
        "  @clause-SCHED-FILTER-READY\n  Scenario Outline: u <n>\n    Given a kube32 control plane\n"
        "    Examples:\n      | n |\n      | 1 |\n"
        "    @interpretation\n    Examples:\n      | n |\n      | 2 |\n")
    problems = [(p.kind, p.subject) for p in suite.check(catalogue.load(), tmp_path) if p.kind == "reference-only"]
    # SCHED-SCORE-NO-GPIO is a reference-level clause; SCHED-FILTER-READY has a document-level example
    assert problems == [("reference-only", "SCHED-TIE-BREAK")]


ATTRIBUTION = '''
Feature: attribution
  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 64Ki   |

  @clause-NODE-NOTREADY-NOSCHEDULE-TAINT @clause-NODE-RECOVERY-CLEARS-TAINTS @needs-manual-clock
  Scenario: one scenario, two clauses; the check of one fails
    When node "node-a" stops renewing its lease
    And the lease duration passes
    And the lifecycle check interval passes
    Then there is a "Normal" event "NodeReady" about node "node-a"
    And node "node-a" has taint "node.kubernetes.io/unreachable:NoSchedule"
'''


def test_a_failed_check_counts_only_against_the_clause_it_judged(tmp_path, monkeypatch, pytester):
    from tests.conftest import feature_dir, run_features

    feature_dir(tmp_path, monkeypatch, "attribution.feature", ATTRIBUTION)
    result, doc = run_features(pytester, tmp_path / "report")
    rows = {r["id"]: r for r in doc["clauses"]}
    assert rows["NODE-NOTREADY-NOSCHEDULE-TAINT"]["verdicts"] == {"document": "passed", "reference": "passed"}
    assert rows["NODE-RECOVERY-CLEARS-TAINTS"]["verdicts"] == {"document": "failed", "reference": "failed"}
    (finding,) = rows["NODE-RECOVERY-CLEARS-TAINTS"]["scenarios"][0]["findings"]
    assert finding["clauses"] == ["NODE-RECOVERY-CLEARS-TAINTS"] and finding["level"] == "document"
    assert finding["step"] == 'Then there is a "Normal" event "NodeReady" about node "node-a"'
    assert result.ret == 1
