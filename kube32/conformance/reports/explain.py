"""A scenario's failure explanation, in the order a person reads it.

Where the collector holds a structured ``explanation`` (docs/REPORTS.md: clause, statement, locator,
the failing step, expected and actual, the objects and events involved, the clock against the
deadline), its known parts come first in that order and any other part after them; otherwise the
message and the failing step make the explanation."""

from __future__ import annotations

import yaml

from kube32.conformance.reports import text

ORDER = ("clause", "statement", "locator", "step", "scenario", "expected", "checked", "actual", "clock", "objects",
         "events")


def failing_step(result) -> dict | None:
    return next((s for s in result.steps if s.get("status") in ("failed", "undefined")), None)


def parts(result) -> list[tuple[str, str]]:
    """(heading, plain text) pairs of the explanation."""
    explanation = result.explanation or {}
    out: list[tuple[str, str]] = []
    keys = [k for k in ORDER if k in explanation] + sorted(k for k in explanation if k not in ORDER)
    for key in keys:
        value = explanation[key]
        if value in (None, "", [], {}):
            continue
        if isinstance(value, dict) and key == "step":
            value = f"{value.get('keyword', '')} {value.get('text', '')}".strip() + \
                (f" (line {value['line']})" if value.get("line") else "")
        out.append((key, value if isinstance(value, str) else
                    yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100).rstrip()))
    if not out:
        step = failing_step(result)
        if step is not None:
            out.append(("step", f"{step['keyword']} {step['text']} (line {step['line']})"))
        if result.message:
            out.append(("message", result.message))
    return [(k, text.plain(v)) for k, v in out]


def as_text(result) -> str:
    return "\n".join(f"{k}: {v}" if "\n" not in v else f"{k}:\n{v}" for k, v in parts(result))
