"""The runner's verdicts end to end: a tiny feature run through the real plugin against the real
in-process reference, and the reports it writes."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import feature_dir, run_features, statuses

FEATURE = textwrap.dedent('''
    Feature: verdicts
      Background:
        Given a kube32 control plane
        And these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |

      @clause-SCHED-BIND-ON-CREATE
      Scenario: a pod binds to the only node
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then the create response for pod "p" names node "node-a"

      @clause-SCHED-TIE-BREAK
      Scenario: an expectation the target does not meet
        When I create a pod "q" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then pod "q" is bound to node "node-zz"

      @clause-SCHED-FILTER-NODENAME @interpretation
      Scenario: a reading of ours the target does not share
        When I create a pod "r" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then pod "r" is bound to node "node-zz"

      @clause-KUBELET-LEASE-RENEWAL @needs-real-kubelet
      Scenario: needs a real kubelet
        Then node "node-a" is Ready
    ''')


@pytest.fixture
def features(tmp_path, monkeypatch):
    return feature_dir(tmp_path, monkeypatch, "verdicts.feature", FEATURE)


def run(pytester, tmp_path, *args) -> tuple[pytest.RunResult, dict]:
    return run_features(pytester, tmp_path / "report", *args)


def test_passed_failed_disabled_and_uncovered(features, pytester, tmp_path):
    result, doc = run(pytester, tmp_path)
    got = statuses(doc)
    assert got["SCHED-BIND-ON-CREATE"] == "passed"
    assert got["SCHED-TIE-BREAK"] == "failed"
    assert got["KUBELET-LEASE-RENEWAL"] == "disabled"
    assert got["JOB-BACKOFF-LIMIT"] == "uncovered"
    assert result.ret == 1
    failed = next(r for r in doc["clauses"] if r["id"] == "SCHED-TIE-BREAK")
    assert 'spec.nodeName is \'node-a\'' in failed["scenarios"][0]["message"]
    assert doc["summary"]["scenarios"] == {"passed": 1, "failed": 1, "error": 0, "deviation": 0,
                                           "disabled": 1, "reference-only": 1, "uncovered": 0}
    for name in ("junit.xml", "cucumber.json", "index.html"):
        assert (tmp_path / "report" / name).stat().st_size > 0
    assert "FAILED  SCHED-TIE-BREAK" in result.stdout.str()


def test_a_reference_level_failure_decides_only_at_reference_level(features, pytester, tmp_path):
    result, doc = run(pytester, tmp_path, "--clause", "SCHED-FILTER-NODENAME")
    row = next(r for r in doc["clauses"] if r["id"] == "SCHED-FILTER-NODENAME")
    assert row["verdicts"] == {"document": "reference-only", "reference": "failed"}
    assert row["status"] == "reference-only" and doc["level"] == "document"
    assert row["scenarios"][0]["findings"][0]["level"] == "reference"
    assert result.ret == 0
    result, doc = run(pytester, tmp_path, "--clause", "SCHED-FILTER-NODENAME", "--level", "reference")
    assert statuses(doc)["SCHED-FILTER-NODENAME"] == "failed"
    assert result.ret == 1


def test_declared_deviation_is_reported_not_failed(features, pytester, tmp_path):
    deviations = tmp_path / "deviations.yaml"
    deviations.write_text("- clause: SCHED-TIE-BREAK\n  reason: our scheduler picks the last node\n")
    result, doc = run(pytester, tmp_path, "--deviations", str(deviations))
    assert statuses(doc)["SCHED-TIE-BREAK"] == "deviation"
    assert result.ret == 0
    assert "0 failed" in result.stdout.str()


def test_unreachable_target_is_an_error_not_a_failure(features, pytester, tmp_path):
    result, doc = run(pytester, tmp_path, "--target", "http://127.0.0.1:9", "--clause", "SCHED-*")
    got = statuses(doc)
    assert got["SCHED-BIND-ON-CREATE"] == "error"
    assert got["SCHED-TIE-BREAK"] == "error"
    assert result.ret != 0


def test_clause_selection(features, pytester, tmp_path):
    result, doc = run(pytester, tmp_path, "--clause", "SCHED-BIND-*")
    got = statuses(doc)
    assert got["SCHED-BIND-ON-CREATE"] == "passed"
    assert got["SCHED-TIE-BREAK"] == "not-selected"      # it has a scenario; this run did not select it
    assert got["JOB-BACKOFF-LIMIT"] == "uncovered"       # no scenario at all
    assert doc["summary"]["clauses"]["uncovered"] == len(doc["clauses"]) - 4
    assert result.ret == 0
