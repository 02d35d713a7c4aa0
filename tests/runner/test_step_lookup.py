"""The remembered step lookup (kube32/conformance/steplookup.py) finds, for every step of real
scenarios, exactly the step definitions pytest-bdd's own lookup finds (and its search of the listed
definitions the ones pytest-bdd's search does, in its order); a step text no definition parses stays
undefined."""

from __future__ import annotations

import textwrap

import pytest

from kube32.conformance import steplookup
from tests.conftest import FEATURES, feature_dir, run_features


class CompareLookups:
    """Beside every step: pytest-bdd's own lookup and the remembered one, for the same step and item."""

    def __init__(self) -> None:
        self.steps = 0
        self.differences: list[tuple[str, list, list]] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_bdd_before_step(self, request, feature, scenario, step, step_func) -> None:
        assert steplookup.bdd_scenario.get_step_function is steplookup.get_step_function
        own = steplookup._ORIGINAL(request=request, step=step)
        remembered = steplookup.get_step_function(request, step)
        self.steps += 1
        if own is None or own is not remembered:
            self.differences.append((step.name, own, remembered))
        manager, item = request._fixturemanager, request.node
        searched = list(steplookup._ORIGINAL_FIND(step=step, fixturemanager=manager, node=item))
        listed = list(steplookup.find_fixturedefs_for_step(step, manager, item))
        if not searched or searched != listed:
            self.differences.append((step.name, searched, listed))


def test_remembered_lookup_finds_what_pytest_bdd_finds(pytester, monkeypatch, tmp_path):
    assert steplookup._ORIGINAL is not None, "pytest-bdd no longer has get_step_function"
    assert steplookup._ORIGINAL_FIND is not None, "pytest-bdd no longer has find_fixturedefs_for_step"
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    compare = CompareLookups()
    result, doc = run_features(pytester, tmp_path / "report", "--clause", "JOB-RUN-TO-COMPLETIONS",
                            plugins=[compare])
    assert result.ret == 0
    assert compare.steps > 10        # a Background and examples: texts looked up again
    assert not compare.differences


def test_a_step_nothing_parses_is_still_undefined(pytester, monkeypatch, tmp_path):
    feature_dir(tmp_path, monkeypatch, "undefined.feature", textwrap.dedent('''
        Feature: a step without a definition
          @clause-SCHED-BIND-ON-CREATE
          Scenario: twice the same unknown step
            Given a kube32 control plane
            When the moon is made of cheese
            Then the moon is made of cheese
        '''))
    result, doc = run_features(pytester, tmp_path / "report")
    assert result.ret != 0
    assert "StepDefinitionNotFoundError" in result.stdout.str()
