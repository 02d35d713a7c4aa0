"""Every step line in every feature matches exactly one step definition; every tag is known."""

from pytest_bdd import parsers
from pytest_bdd.steps import StepFunctionContext

from kube32.conformance import steplint, suite

FEATURE = ('Feature: f\n  @clause-SCHED-TIE-BREAK\n  Scenario: s\n'
           '    Given a kube32 control plane\n    Then pod "p" is floating\n')


def test_every_step_line_has_exactly_one_definition():
    problems = steplint.check()
    assert not problems, "\n".join(str(p) for p in problems)


def test_an_undefined_line_is_reported(tmp_path):
    (tmp_path / "x.feature").write_text(FEATURE)
    problems = steplint.check(tmp_path)
    assert [(p.kind, p.text) for p in problems] == [("undefined", 'Then pod "p" is floating')]


def test_two_matching_definitions_are_reported(tmp_path, monkeypatch):
    (tmp_path / "x.feature").write_text(FEATURE)

    def one(): ...

    def two(): ...

    one.__module__ = two.__module__ = "kube32.conformance.steps.fake"
    fakes = [StepFunctionContext("then", one, parsers.parse('pod "{name}" is {state}')),
             StepFunctionContext("then", two, parsers.re(r'pod "(?P<n>\w+)" is floating')),
             StepFunctionContext("given", one, parsers.parse("a kube32 control plane"))]
    monkeypatch.setattr(steplint, "definitions", lambda: fakes)
    problems = steplint.check(tmp_path)
    assert [p.kind for p in problems] == ["ambiguous"]
    assert len(problems[0].matches) == 2


def test_clause_and_tag_check_passes():
    problems = suite.check()
    assert not problems, "\n".join(str(p) for p in problems)


def test_a_step_that_needs_a_capability_needs_its_tag_on_the_scenario(tmp_path):
    """The runner decides from the tags, before any step runs, which scenarios must be alone on a
    shared target (parallel.py): a scenario restarting the control plane without @needs-restart is caught."""
    restart = ('Feature: f\n  @clause-NODE-RESTART-GRACE{tags}\n  Scenario: s\n'
               '    Given a kube32 control plane\n    When the control plane restarts\n')
    (tmp_path / "x.feature").write_text(restart.format(tags=""))
    problems = steplint.check(tmp_path)
    assert [(p.kind, p.matches) for p in problems] == [("untagged-need", ("@needs-restart",))]
    assert "needs @needs-restart" in str(problems[0])
    (tmp_path / "x.feature").write_text(restart.format(tags=" @needs-restart"))
    assert steplint.check(tmp_path) == []
