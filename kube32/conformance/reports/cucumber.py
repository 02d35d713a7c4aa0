"""cucumber.json (the Cucumber JSON format): features, their scenarios and steps with results.

Every scenario carries its own tags plus its Rule's and Feature's (Cucumber tools filter scenarios
by them); each step that ran names the step function that matched it (``match.location``); errors
are plain text. The schema it keeps to: tests/reports/schemas/cucumber-json.schema.json."""

from __future__ import annotations

import re

from kube32.conformance.reports import explain, text

NS = 1_000_000_000
_STEP_STATUS = {"passed": "passed", "failed": "failed", "skipped": "skipped", "undefined": "undefined"}


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


def _tags(names) -> list[dict]:
    return [{"name": n if n.startswith("@") else f"@{n}"} for n in names]


def _step(step: dict, error: str) -> dict:
    status = _STEP_STATUS.get(step["status"], "skipped")
    result = {"status": status, "duration": int(step.get("duration", 0) * NS)}
    if status == "failed":
        result["error_message"] = error
    out = {"keyword": step["keyword"].strip() + " ", "name": step["text"], "line": step["line"],
           "result": result}
    if step.get("location"):
        out["match"] = {"location": step["location"]}
    if step.get("docstring"):
        out["doc_string"] = {"value": step["docstring"], "line": step["line"] + 1}
    if step.get("rows"):
        out["rows"] = [{"cells": [str(c) for c in row]} for row in step["rows"]]
    return out


def _element(result, feature_id: str) -> dict:
    g = result.gherkin
    error = text.plain(explain.as_text(result)) or result.message or result.status
    example = result.nodeid.partition("[")[2].rstrip("]")     # a Scenario Outline's example row
    element = {"id": f"{feature_id};{_slug(result.name)}" + (f";{_slug(example)}" if example else ""),
               "keyword": g.get("keyword", "Scenario"),
               "type": "scenario", "name": result.name, "line": result.line,
               "description": g.get("description", ""), "tags": _tags(result.tags),
               "steps": [_step(s, error) for s in result.steps]}
    ran_into = any(s["result"]["status"] == "failed" for s in element["steps"])
    if result.status in ("failed", "error") and not ran_into:
        # broken before or between steps (a fixture, the target, a board): say so as a failed hook
        element["before"] = [{"result": {"status": "failed", "duration": 0, "error_message": error},
                              "match": {"location": "kube32/conformance/plugin/fixtures.py"}}]
    elif result.status in ("disabled", "deviation"):
        element["before"] = [{"result": {"status": "skipped", "duration": 0,
                                         "error_message": result.message or result.status}}]
    return element


def render(results: list) -> list[dict]:
    features: dict[str, dict] = {}
    for result in sorted(results, key=lambda r: (r.feature, r.line, r.nodeid)):
        g = result.gherkin
        feature = features.get(result.feature)
        if feature is None:
            feature = features[result.feature] = {
                "uri": result.feature, "id": _slug(g.get("feature_name") or result.feature),
                "keyword": g.get("feature_keyword", "Feature"), "name": g.get("feature_name") or result.feature,
                "line": g.get("feature_line", 1), "description": g.get("feature_description", ""),
                "tags": _tags(g.get("feature_tags", [])), "elements": []}
        feature["elements"].append(_element(result, feature["id"]))
    return list(features.values())
