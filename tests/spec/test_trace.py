"""spec.document and spec.trace: the document cut into units, the trace's strict shape, and the
trace held against the features, the catalogue and the document (``clauses --check``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kube32.conformance import suite, tracecheck
from kube32.conformance.suite import ScenarioInfo
from kube32.spec import catalogue, document, trace
from kube32.spec.catalogue import Catalogue, Clause

DOCUMENT = Path(__file__).resolve().parents[2].parent / "shared" / "seeds" / "000_04bc3cee83531612.txt"

TEXT = textwrap.dedent("""\
    Skip to content

    Filters

    Candidate nodes pass filters in order:

      1. first rule holds. It has a second sentence.
      2. second rule holds.

    Quantities are decimal, e.g. 1k. Unknown ones count as 0.

    Node lifecycle controller

    Time without renewal Action
    15 s Marks the node
    +15 s Taints the node

    $ kubectl get pod p
    NAME   READY
    """)


def test_units_name_sentences_items_rows_and_examples():
    units = document.units(TEXT)
    assert [u.locator for u in units] == [
        "Filters, paragraph 1, sentence 1",
        "Filters, item 1, sentence 1",
        "Filters, item 1, sentence 2",
        "Filters, item 2",
        "Filters, paragraph 2, sentence 1",
        "Filters, paragraph 2, sentence 2",
        "Node lifecycle controller, table row 1",
        "Node lifecycle controller, table row 2",
        "Node lifecycle controller, example",
    ]
    assert units[4].text == "Quantities are decimal, e.g. 1k."
    assert units[6].kind == "row" and units[8].kind == "example"


def test_digest_ignores_whitespace_only():
    assert document.digest("a  b\nc") == document.digest("a b c") != document.digest("a b d")


GOOD = textwrap.dedent("""\
    area: scheduler
    units:
      - at: "Filters, item 4, sentence 2"
        digest: 0123456789ab
        statements:
          - says: a pod without memory counts as the default amount
            kind: default
            clauses: [SCHED-A]
            sides:
              default: ["scheduler/memory.feature: no memory"]
              explicit: {reason: an explicit value is another statement's positive side}
          - says: each counted resource fits
            kind: each
            items: [gpio, adc]
            clauses: [SCHED-A, SCHED-B]
            sides:
              gpio: ["scheduler/p.feature: gpio"]
              adc: ["scheduler/p.feature: adc"]
      - at: "Scheduler and controllers, item 1"
        digest: 0123456789ac
        not_judgeable: source file names are not visible over the API
    """)


def test_parse_a_good_trace():
    units = trace.parse(GOOD, "x.yaml", expected_area="scheduler")
    first = units[0]
    assert first.section == "Filters" and first.digest == "0123456789ab"
    default, each = first.statements
    assert default.key == "Filters, item 4, sentence 2 (a)" and each.key.endswith("(b)")
    assert [s.name for s in default.sides] == ["default", "explicit"]
    assert default.sides[0].scenarios == (("scheduler/memory.feature", "no memory"),)
    assert default.sides[1].reason.startswith("an explicit value")
    assert units[1].statements == () and units[1].not_judgeable


@pytest.mark.parametrize("change, message", [
    (("explicit: {reason: an explicit value is another statement's positive side}", ""), "missing explicit"),
    (("explicit: {reason", "surplus: {reason"), "unknown surplus"),
    (('default: ["scheduler/memory.feature: no memory"]', "default: []"), "names no scenario"),
    (("kind: each\n        items: [gpio, adc]", "kind: each\n        items: [gpio]"), "two or more"),
    (("kind: default", "kind: rule"), "positive, negative"),
    (("not_judgeable: source", "statements: []\n    not_judgeable: source"), None),
    (("not_judgeable: source file names are not visible over the API", "statements: []"), "says why"),
    (('"Filters, item 4, sentence 2"', '"Filters, line 4"'), "at: String should match"),
    (("digest: 0123456789ab", "digest: xyz"), "digest: String should match"),
    (("a pod without memory", "x" * 300), "at most 240"),
    (('"scheduler/memory.feature: no memory"', '"no memory"'), "String should match"),
])
def test_a_bad_trace_is_refused_with_the_unit_and_field(change, message):
    text = GOOD.replace(*change)
    assert text != GOOD
    if message is None:     # statements: [] beside not_judgeable is the same as no statements
        trace.parse(text, "x.yaml")
        return
    with pytest.raises(trace.TraceError, match=message) as err:
        trace.parse(text, "trace/scheduler.yaml")
    assert str(err.value).startswith("trace/scheduler.yaml: ")


def test_a_unit_in_the_wrong_file_or_traced_twice_is_refused():
    units = trace.parse(GOOD, "x.yaml")
    with pytest.raises(trace.TraceError, match="traced twice"):
        trace.Trace(units + units[:1])
    wrong = trace.parse(GOOD.replace("area: scheduler", "area: job"), "x.yaml")
    with pytest.raises(trace.TraceError, match="belongs to scheduler"):
        trace.Trace(wrong)
    with pytest.raises(trace.TraceError, match="does not match the file name"):
        trace.parse(GOOD, "x.yaml", expected_area="job")


def _clause(cid: str, area: str = "scheduler", level: str = "document") -> Clause:
    return Clause(cid, "t", "s", "src", "o", area, "S", level=level, interpretation="i" if level != "document" else None)


def _scenario(name: str, clauses: list[str], document_level: bool = True, feature: str = "scheduler/p.feature"):
    return ScenarioInfo(feature, name, 1, frozenset(f"clause-{c}" for c in clauses), (), document_level)


def _kinds(problems) -> list[tuple[str, str]]:
    return sorted((p.kind, p.subject) for p in problems)


def test_check_finds_missing_scenarios_untraced_clauses_and_untraced_document_checks():
    tr = trace.Trace(trace.parse(GOOD, "x.yaml"))
    cat = Catalogue([_clause("SCHED-A"), _clause("SCHED-B"), _clause("SCHED-C"), _clause("SCHED-R", level="reference"),
                     _clause("JOB-X", area="job")])
    scenarios = [
        _scenario("gpio", ["SCHED-A"]),
        _scenario("adc", ["SCHED-C"]),                          # carries none of the statement's clauses
        _scenario("extra", ["SCHED-B"]),                        # judges the document, named by no side
        _scenario("reading", ["SCHED-B"], document_level=False),   # @interpretation: free
        _scenario("ours", ["SCHED-R"]),                         # a reference-level clause: free
        _scenario("job", ["JOB-X"], feature="job/j.feature"),   # its area has no trace file yet
    ]
    problems = tracecheck.check(tr, cat, scenarios)
    assert _kinds(problems) == [
        ("trace-scenario", "Filters, item 4, sentence 2 (a) side default"),
        ("trace-scenario", "Filters, item 4, sentence 2 (b) side adc"),
        ("untraced-clause", "SCHED-C"),
        ("untraced-scenario", "scheduler/p.feature:1 'extra'"),
    ], problems
    assert "no scenario 'no memory'" in str(problems[0]) and "carries none of SCHED-A, SCHED-B" in str(problems[1])


def test_an_area_two_sections_share_is_answered_for_once_both_are_traced():
    """The kubelet's clauses come from the lifecycle section and from Filters: with only one of the
    two files their clauses are not yet asked for; with both they are."""
    def unit(area, at):
        return trace.Unit(at, area, "0123456789ab", ())
    lifecycle = unit("node_lifecycle", "Node lifecycle controller, paragraph 1, sentence 1")
    filters = unit("scheduler", "Filters, item 1")
    assert "kubelet" not in trace.Trace([lifecycle]).areas
    assert "kubelet" not in trace.Trace([filters]).areas
    both = trace.Trace([filters, lifecycle])
    assert {"kubelet", "scheduler", "node_lifecycle"} <= both.areas
    problems = tracecheck.check(both, Catalogue([_clause("KUBELET-A", area="kubelet")]), [])
    assert _kinds(problems) == [("untraced-clause", "KUBELET-A")]


def test_a_reference_scenario_named_by_a_side_cannot_judge_it():
    tr = trace.Trace(trace.parse(GOOD, "x.yaml"))
    cat = Catalogue([_clause("SCHED-A"), _clause("SCHED-B")])
    scenarios = [_scenario("no memory", ["SCHED-A"], False, "scheduler/memory.feature"),
                 _scenario("gpio", ["SCHED-A"]), _scenario("adc", ["SCHED-B"])]
    [problem] = tracecheck.check(tr, cat, scenarios)
    assert problem.kind == "trace-scenario" and "@interpretation" in problem.detail


def test_check_against_the_document_finds_gaps_stale_units_copies_and_unknown_units():
    text = "Filters\n\nA pod without any memory declaration counts as sixteen kibibytes of memory.\n\n" \
           "  1. Nodes pass.\n"
    units = document.units(text)
    entry = textwrap.dedent(f"""\
        area: scheduler
        units:
          - at: "Filters, paragraph 1, sentence 1"
            digest: {document.digest(units[0].text)}
            statements:
              - says: a pod without any memory declaration counts as sixteen kibibytes
                kind: rule
                clauses: [SCHED-A]
                sides: {{positive: {{reason: r}}, negative: {{reason: r}}}}
          - at: "Filters, item 2"
            digest: 0123456789ab
            not_judgeable: w
        """)
    tr = trace.Trace(trace.parse(entry, "x.yaml"))
    problems = tracecheck.check(tr, Catalogue([_clause("SCHED-A")]), [], units)
    assert _kinds(problems) == [("trace-copy", "Filters, paragraph 1, sentence 1 (a)"),
                                ("trace-gap", "Filters, item 1"), ("trace-unknown-unit", "Filters, item 2")]
    stale = tracecheck.check(tr, Catalogue([_clause("SCHED-A")]), [], document.units(text.replace("sixteen", "16")))
    assert ("trace-stale", "Filters, paragraph 1, sentence 1") in _kinds(stale)


def test_the_shipped_trace_holds():
    cat = catalogue.load()
    tr = trace.load()
    problems = tracecheck.check(tr, cat, suite.scenarios()) + tracecheck.missing_files(tr)
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.skipif(not DOCUMENT.is_file(), reason="the kube32 document is not beside this checkout")
def test_every_unit_of_the_traced_sections_is_in_the_trace_in_its_current_wording():
    tr = trace.load()
    files = {u.area for u in tr.units}
    units = [u for u in document.units(DOCUMENT.read_text(encoding="utf-8")) if trace.SECTIONS.get(u.section) in files]
    problems = tracecheck.check(tr, catalogue.load(), suite.scenarios(), units)
    assert problems == [], "\n".join(map(str, problems))
    assert set(trace.SECTIONS) == {u.section for u in document.units(DOCUMENT.read_text(encoding="utf-8"))}


def test_a_malformed_trace_is_one_line_from_clauses_check(monkeypatch, capsys):
    from kube32.conformance import cli
    from kube32.conformance.commands import clauses as clauses_command

    def broken(package: str = "kube32.spec"):
        raise trace.TraceError("trace/job.yaml: Job, item 9.digest: required")
    monkeypatch.setattr(trace, "load", broken)
    assert cli.main(["clauses", "--check"]) == clauses_command.MALFORMED == 3     # not 1: no check could run
    assert capsys.readouterr().err == "kube32-conformance clauses: trace/job.yaml: Job, item 9.digest: required\n"


def test_a_missing_trace_file_is_a_problem():
    tr = trace.Trace(trace.parse(GOOD, "x.yaml"))
    missing = {p.subject for p in tracecheck.missing_files(tr)}
    assert "spec/trace/scheduler.yaml" not in missing and "spec/trace/job.yaml" in missing
