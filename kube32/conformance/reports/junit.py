"""junit.xml as CI viewers show it: one suite ``kube32-conformance``; per scenario a testcase named
``<CLAUSE-ID>: <scenario>`` in class ``kube32.<area>.<feature>``, its clause IDs and interpretation flag
as properties, a one-line ``message`` with the explanation as body, and board consoles in
``<system-out>``. The schema it keeps to: tests/reports/schemas/junit-10.xsd (see docs/REPORTS.md)."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from pathlib import PurePosixPath

from kube32.conformance.reports import explain, text
from kube32.spec import catalogue

SUITE = "kube32-conformance"
_TAG = {"failed": "failure", "error": "error", "disabled": "skipped", "deviation": "skipped"}


def classname(result, cat: catalogue.Catalogue) -> str:
    areas = [cat.get(c).area for c in result.clauses if c in cat.ids]
    area = areas[0] if areas else "unknown"
    feature = PurePosixPath(result.feature).stem.replace(".", "_") or "feature"
    return f"kube32.{area}.{feature}"


def _xml_text(value: str) -> str:
    """Text XML 1.0 can carry (consoles may hold stray control bytes)."""
    return "".join(ch for ch in text.plain(value) if ch in "\t\n" or ord(ch) >= 0x20)


def _testcase(result, cat: catalogue.Catalogue) -> ET.Element:
    case = ET.Element("testcase", {
        "classname": classname(result, cat),
        "name": _xml_text(f"{', '.join(result.clauses) or 'NO-CLAUSE'}: {result.name}"),
        "time": f"{result.duration:.3f}"})
    props = ET.SubElement(case, "properties")
    for cid in result.clauses:
        ET.SubElement(props, "property", {"name": "clause", "value": cid})
    interpretation = any(c in cat.ids and cat.get(c).interpretation for c in result.clauses)
    ET.SubElement(props, "property", {"name": "interpretation", "value": str(interpretation).lower()})
    ET.SubElement(props, "property", {"name": "feature", "value": f"{result.feature}:{result.line}"})
    tag = _TAG.get(result.status)
    if tag is not None:
        body = explain.as_text(result)
        outcome = ET.SubElement(case, tag, {"message": _xml_text(text.one_line(result.message or body)),
                                            "type": result.status})
        if tag != "skipped" or body != result.message:
            outcome.text = _xml_text(body)
    if result.logs:
        out = ET.SubElement(case, "system-out")
        out.text = _xml_text("".join(f"--- {board} ---\n{log}\n" for board, log in sorted(result.logs.items())))
    return case


def render(doc: dict, results: list, cat: catalogue.Catalogue) -> str:
    counts = {k: sum(1 for r in results if r.status == k) for k in ("failed", "error")}
    skipped = sum(1 for r in results if r.status in ("disabled", "deviation"))
    total_time = f"{sum(r.duration for r in results):.3f}"
    attrs = {"name": SUITE, "tests": str(len(results)), "failures": str(counts["failed"]),
             "errors": str(counts["error"]), "time": total_time}
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", {**attrs, "skipped": str(skipped), "timestamp": doc["started"],
                                              "hostname": socket.gethostname()})
    props = ET.SubElement(suite, "properties")
    target = doc.get("target") or {}
    for key in sorted(target):
        ET.SubElement(props, "property", {"name": f"target.{key}", "value": _xml_text(str(target[key]))})
    ET.SubElement(props, "property", {"name": "suite.version", "value": doc["suite"]["version"]})
    ET.SubElement(props, "property", {"name": "complete", "value": str(doc["run"]["complete"]).lower()})
    for result in sorted(results, key=lambda r: (r.feature, r.line, r.nodeid)):
        suite.append(_testcase(result, cat))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
