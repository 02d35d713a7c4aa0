"""junit.xml and cucumber.json of a failing run against their schemas, and what CI viewers and
Cucumber tools need from them: clause IDs in names and tags, step locations, plain text."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import xmlschema

SCHEMAS = Path(__file__).parent / "schemas"
ESCAPE = re.compile(r"\x1b|\[[0-9;]*m")


def junit_schema() -> xmlschema.XMLSchema:
    """Jenkins' junit-10.xsd plus the one extension CI viewers read: <properties> first in <testcase>."""
    text = (SCHEMAS / "junit-10.xsd").read_text()
    anchor = '<xs:element name="testcase">\n        <xs:complexType>\n            <xs:sequence>\n'
    assert anchor in text
    return xmlschema.XMLSchema(text.replace(anchor, anchor + '                <xs:element ref="properties" minOccurs="0"/>\n'))


@pytest.fixture(scope="module")
def junit(failing_run) -> ET.ElementTree:
    return ET.parse(failing_run / "junit.xml")


@pytest.fixture(scope="module")
def cucumber(failing_run) -> list:
    return json.loads((failing_run / "cucumber.json").read_text())


def test_junit_validates_against_the_junit_schema(failing_run):
    junit_schema().validate(str(failing_run / "junit.xml"))
    pristine = xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))
    tree = ET.parse(failing_run / "junit.xml")
    for case in tree.iter("testcase"):        # everything but the documented extension, as written
        for props in case.findall("properties"):
            case.remove(props)
    pristine.validate(tree)


def test_junit_names_classes_and_properties(junit, failing_run):
    root = junit.getroot()
    assert root.get("name") == "kube32-conformance"
    suite = root.find("testsuite")
    assert suite.get("name") == "kube32-conformance"
    cases = list(suite.iter("testcase"))
    doc = json.loads((failing_run / "clauses.json").read_text())
    assert len(cases) == sum(doc["summary"]["scenarios"].values())
    for case in cases:
        assert re.fullmatch(r"kube32\.[a-z_]+\.[a-z0-9_]+", case.get("classname")), case.get("classname")
        props = [(p.get("name"), p.get("value")) for p in case.iter("property")]
        clauses = [v for k, v in props if k == "clause"]
        assert clauses and case.get("name").startswith(", ".join(clauses) + ": ")
        assert ("interpretation", "true") in props or ("interpretation", "false") in props
    tie = [c for c in cases if c.get("name").startswith("SCHED-TIE-BREAK: ")]
    assert tie and all(c.get("classname") == "kube32.scheduler.scoring" for c in tie)
    assert ("interpretation", "true") in [(p.get("name"), p.get("value")) for p in tie[0].iter("property")]
    failure = tie[0].find("failure")
    assert "\n" not in failure.get("message") and 'pod "p" bound to' in failure.get("message")
    assert "Then pod" in failure.text                      # the explanation names the failing step
    skipped = [c.find("skipped") for c in cases if c.find("skipped") is not None]
    assert skipped and all("lacks capability real-kubelet" in s.get("message") for s in skipped)


def test_cucumber_validates_against_the_cucumber_json_schema(cucumber):
    schema = json.loads((SCHEMAS / "cucumber-json.schema.json").read_text())
    # the schema declares draft-04 but uses if/then (draft-07): check with the draft that enforces them
    jsonschema.Draft7Validator(schema).validate(cucumber)


def test_every_cucumber_scenario_carries_its_clause_tags(cucumber, failing_run):
    doc = json.loads((failing_run / "clauses.json").read_text())
    expected = {}
    for row in doc["clauses"]:
        for s in row["scenarios"]:
            expected.setdefault((s["feature"], s["line"]), set()).add(f"@clause-{row['id']}")
    seen = 0
    for feature in cucumber:
        area_tags = {t["name"] for t in feature.get("tags", [])}
        for element in feature["elements"]:
            tags = {t["name"] for t in element["tags"]}
            assert expected[(feature["uri"], element["line"])] <= tags, (feature["uri"], element["name"], tags)
            assert area_tags <= tags                                          # Feature tags propagate
            seen += 1
    assert seen == sum(doc["summary"]["scenarios"].values())
    ids = [e["id"] for f in cucumber for e in f["elements"]]
    assert len(ids) == len(set(ids))
    # the eviction clause's tag sits on a Rule: block in the feature file, never on the scenarios
    evict = next(f for f in cucumber if f["uri"] == "node_lifecycle/eviction.feature")
    assert all("@clause-NODE-EVICT-AT-TOLERATION-EXPIRY" in {t["name"] for t in e["tags"]}
               for e in evict["elements"] if e["line"] < 70)


def test_cucumber_steps_have_real_locations_and_plain_errors(cucumber):
    steps = [s for f in cucumber for e in f["elements"] for s in e["steps"]]
    ran = [s for s in steps if s["result"]["status"] in ("passed", "failed")]
    assert ran and all(re.fullmatch(r"kube32/conformance/steps/\w+\.py:\d+", s["match"]["location"]) for s in ran)
    failed = [s for s in steps if s["result"]["status"] == "failed"]
    assert failed and all(s["result"]["error_message"] and not ESCAPE.search(s["result"]["error_message"])
                          for s in failed)
    after_failure = [s for f in cucumber for e in f["elements"]
                     for i, s in enumerate(e["steps"]) if any(x["result"]["status"] == "failed" for x in e["steps"][:i])]
    assert all(s["result"]["status"] == "skipped" for s in after_failure)


@pytest.mark.parametrize("name", ["junit.xml", "cucumber.json", "clauses.json", "index.html"])
def test_no_escape_codes_in_any_report(failing_run, name):
    text = (failing_run / name).read_text()
    assert "\x1b" not in text
    assert not re.search(r"\[(?:[0-9]{1,2}(?:;[0-9]{1,2})*)m", text), name
