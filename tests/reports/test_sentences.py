"""Per-sentence verdicts (clauses.json ``sentences``, the report's Document view): a statement takes
the worst document-level verdict of the scenarios its sides name, for its own clauses only."""

from __future__ import annotations

import textwrap

from kube32.conformance.reports import html, sentences
from kube32.conformance.reports.collector import ScenarioResult
from kube32.spec import trace

TRACE = textwrap.dedent("""\
    area: endpoints
    units:
      - at: "Endpoints and EndpointSlices, item 1"
        digest: 0123456789ab
        statements:
          - says: only selected pods
            kind: rule
            clauses: [EP-A]
            sides:
              positive: ["e/f.feature: one"]
              negative: ["e/f.feature: two"]
          - says: only pods with an IP
            kind: rule
            clauses: [EP-B]
            sides:
              positive: ["e/f.feature: two"]
              negative: {reason: cannot be shown}
          - says: never run here
            kind: negation
            clauses: [EP-C]
            sides:
              would-change: ["e/g.feature: three"]
      - at: "Endpoints and EndpointSlices, item 2"
        digest: 0123456789ac
        not_judgeable: a reason
    """)
LINES = {("e/f.feature", "one"): 10, ("e/f.feature", "two"): 20, ("e/g.feature", "three"): 30}


def result(name: str, line: int, by_clause: dict[str, dict[str, str]]) -> ScenarioResult:
    return ScenarioResult(nodeid=f"bind.py::test_{name}", name=name, feature="e/f.feature", clauses=list(by_clause),
                          status="passed", duration=0.1, line=line, by_clause=by_clause)


def test_a_statement_takes_the_worst_document_verdict_of_its_own_clauses():
    tr = trace.Trace(trace.parse(TRACE, "x.yaml"))
    # "two" fails EP-B at document level and EP-A only at reference level
    runs = [result("one", 10, {"EP-A": {"document": "passed", "reference": "passed"}}),
            result("two", 20, {"EP-A": {"document": "passed", "reference": "failed"},
                               "EP-B": {"document": "failed", "reference": "failed"}})]
    units = sentences.verdicts(runs, tr=tr, lines=LINES)
    a, b, c = units[0]["statements"]
    assert (a["verdict"], b["verdict"], c["verdict"]) == ("passed", "failed", "not-selected")
    assert units[0]["verdict"] == "failed"
    assert [s["side"] for s in b["sides"]] == ["positive", "negative"] and b["sides"][1]["reason"] == "cannot be shown"
    assert [r["name"] for r in a["sides"][1]["scenarios"]] == ["two"]
    assert units[1] == {"at": "Endpoints and EndpointSlices, item 2", "section": "Endpoints and EndpointSlices",
                        "verdict": "not-judgeable", "not_judgeable": "a reason", "statements": []}
    assert sentences.counts(units) == {"passed": 1, "failed": 1, "not-selected": 1, "not-judgeable": 1}
    unfinished = sentences.verdicts(runs[:1], tr=tr, lines=LINES, complete=False)
    assert unfinished[0]["statements"][2]["verdict"] == "pending"


def test_the_document_view_links_each_scenario_dot_to_its_record():
    tr = trace.Trace(trace.parse(TRACE, "x.yaml"))
    runs = [result("one", 10, {"EP-A": {"document": "failed", "reference": "failed"}})]
    units = sentences.verdicts(runs, tr=tr, lines=LINES)
    [(section, shown)] = html._sentence_sections(units, {r.nodeid: r for r in runs})
    assert section == "Endpoints and EndpointSlices"
    dot = shown[0]["statements"][0]["sides"][0]["scenarios"][0]
    assert dot["anchor"] == "sc-e-f-one" and dot["verdict"] == "failed"
    assert shown[0]["anchor"] == "endpoints-and-endpointslices-item-1"
