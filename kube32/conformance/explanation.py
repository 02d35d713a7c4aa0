"""A failed scenario explains itself: which clause it checks (title, statement, where the document
says it), the scenario with the failing step marked, expected against actual in full, the objects
the scenario touched as the target holds them now (YAML) with their events, and the target's clock
at the moment the check gave up.

``build`` makes the structured explanation the collector stores per scenario (its shape is in
docs/REPORTS.md, "Failure explanations"); ``as_text`` is the plain-text rendering the terminal
shows in place of pytest's traceback. Building one never changes a verdict: whatever cannot be
read (an unreachable target) is left out.
"""

from __future__ import annotations

import re
import traceback
import types

from kube32.conformance import errors
from kube32.conformance.kinds import kind as kind_of
from kube32.conformance.reports import explain, text
from kube32.spec import timefmt

NAMESPACED = ("Pod", "Deployment", "DaemonSet", "Job", "Service")   # what a scenario makes in its namespace
MARKS = {"failed": ">> FAILED ", "undefined": ">> UNDEFINED", "passed": "   passed ", "skipped": "   skipped"}


def build(exc: BaseException, clauses: list[str], cat, steps: list[dict], ctx=None) -> dict:
    """The structured explanation of a scenario that failed with ``exc``."""
    out: dict = {}
    known = [cat.get(c) for c in clauses if c in cat.ids]
    if known:
        out["clause"] = "\n".join(f"{c.id}: {c.title}" + (" (our interpretation)" if c.interpretation else "")
                                  for c in known)
        out["statement"] = "\n".join((f"{c.id}: " if len(known) > 1 else "") + " ".join(c.statement.split())
                                     for c in known)
        out["locator"] = "\n".join((f"{c.id}: " if len(known) > 1 else "") + f"{c.section}: {c.source}"
                                   for c in known)
    failing = next((s for s in steps if s.get("status") in ("failed", "undefined")), None)
    if failing is not None:
        out["step"] = {"keyword": failing["keyword"], "text": failing["text"], "line": failing["line"]}
    if steps:
        out["scenario"] = "\n".join(_step_line(s) for s in steps)
    out.update(_expected_actual(exc, failing))
    clock = _clock(exc, failing, ctx)
    if clock:
        out["clock"] = clock
    if ctx is not None:
        objects, events = _touched(ctx)
        if objects:
            out["objects"] = objects
        if events:
            out["events"] = events
    where = _raised_at(exc)
    if where:
        out["raised at"] = where
    return text.plain_all(out)


class ExplainedFailure:
    """A pytest ``longrepr`` that prints the explanation instead of the runner's frames; its
    ``reprcrash.message`` (pytest's short summary, the reports' one-line message) is the failure's
    own message, without an exception class name in front."""

    def __init__(self, explanation: dict, exc: BaseException, path: str, line: int) -> None:
        from _pytest._code.code import ReprFileLocation

        self.text = as_text(explanation)
        self.reprcrash = ReprFileLocation(path, line, text.plain(str(exc)) or type(exc).__name__)

    def toterminal(self, tw) -> None:
        for line in self.text.splitlines():
            tw.line(line)

    def __str__(self) -> str:
        return self.text


def as_text(explanation: dict) -> str:
    """The plain-text rendering (the reports' own part order), one part per paragraph."""
    parts = explain.parts(types.SimpleNamespace(explanation=explanation, steps=[], message=""))
    return "\n".join(f"{k}: {v}" if "\n" not in v else f"{k}:\n{_indent(v)}" for k, v in parts)


# -- the parts ---------------------------------------------------------------------------------
def _step_line(step: dict) -> str:
    mark = MARKS.get(step.get("status", ""), f"   {step.get('status', '')}")
    line = f"{mark}  {step['keyword']} {step['text']}"
    for row in step.get("rows") or []:
        line += "\n" + " " * 16 + "| " + " | ".join(str(c) for c in row) + " |"
    return line


def _expected_actual(exc: BaseException, failing: dict | None) -> dict:
    """What the failing step expects, with its values (the step's own text, table and doc string),
    and what the target showed instead."""
    if isinstance(exc, errors.ApiStatusError):
        return {"expected": f"a successful answer to {exc.method} {exc.path}",
                "actual": {"code": exc.code, "status": exc.status}}
    expected = _step_expectation(failing) if failing else "the scenario's steps to pass"
    if isinstance(exc, errors.Unmet):
        return {"expected": expected, "checked": exc.expected, "actual": _without_pytest_hints(exc.actual)}
    return {"expected": expected, "actual": _without_pytest_hints(str(exc)) or type(exc).__name__}


def _step_expectation(step: dict) -> str:
    out = f"{step['keyword']} {step['text']}"
    for row in step.get("rows") or []:
        out += "\n  | " + " | ".join(str(c) for c in row) + " |"
    if step.get("docstring"):
        out += "\n" + _indent(step["docstring"])
    return out


_PYTEST_HINTS = re.compile(r"^\s*(Use -v+ to get (more|the full) diff|Omitting \d+ identical items, use -vv to show|"
                           r"Full diff:)\s*$")


def _without_pytest_hints(message: str) -> str:
    """An assertion's message without pytest's advice about its own command line."""
    return "\n".join(line for line in message.splitlines() if not _PYTEST_HINTS.match(line)).strip()


def _clock(exc: BaseException, failing: dict | None, ctx) -> dict | None:
    """Target-clock times: when the failing step began and when its check gave up; the timing
    verdicts that missed their deadline, when the scenario recorded any."""
    out: dict = {}
    began = failing.get("clock") if failing else None
    if began is not None:
        out["step began"] = timefmt.rfc3339_micro(began)
    gave_up = getattr(exc, "clock", None)
    if gave_up is not None:
        out["check gave up"] = timefmt.rfc3339_micro(gave_up)
    waited = getattr(exc, "waited", None)
    if waited:
        out["polled for (real seconds)"] = round(waited, 2)
    missed = [t for t in getattr(ctx, "timings", None) or [] if t.get("verdict") not in (None, "passed")]
    origin = getattr(getattr(ctx, "timeline", None), "origin", None)
    if missed:
        out["deadlines missed"] = [_on_target_clock(t, origin) for t in missed]
    if ctx is not None and out:
        out["target clock"] = "manual" if getattr(ctx, "manual", False) else "real"
    return out or None


def _on_target_clock(entry: dict, origin: float | None) -> dict:
    """A timing verdict (times relative to the scenario's origin) with its deadline and observation
    also as target-clock times."""
    out = dict(entry)
    if isinstance(origin, int | float):
        for key in ("deadline", "observed"):
            if isinstance(entry.get(key), int | float):
                out[f"{key} (target clock)"] = timefmt.rfc3339_micro(origin + entry[key])
    return out


def _touched(ctx) -> tuple[list[dict], list[dict]]:
    """The scenario's namespaced objects and its nodes as the target holds them now, and their events:
    those about these very objects (by uid, so an earlier scenario's node of the same name is not
    this one) that happened since the scenario began."""
    api, ns = ctx.api, ctx.ns
    objects: list[dict] = []
    for kind in NAMESPACED:
        objects += _items(api, kind_of(kind).path(ns))
    for name in sorted(getattr(ctx, "kubelets", {}) or {}):
        objects += _items(api, kind_of("Node").path(None, name))
    events = _items(api, kind_of("Event").path(ns))
    nodes = set(getattr(ctx, "kubelets", {}) or {})
    if nodes:
        events += [e for e in _items(api, kind_of("Event").path(None))
                   if (e.get("involvedObject") or {}).get("kind") == "Node"
                   and (e.get("involvedObject") or {}).get("name") in nodes]
    began = getattr(getattr(ctx, "observations", None), "t0", None)
    uids = {(o.get("metadata") or {}).get("uid") for o in objects} - {None, ""}
    events = [e for e in events if _mine(e, uids, began)]
    return objects, [_event(e) for e in sorted(events, key=_event_time)]


def _mine(event: dict, uids: set[str], began: float | None) -> bool:
    """An event of this scenario: about one of its objects (an event without a uid is judged by name
    alone) and last seen since it began (one without a time is kept)."""
    uid = (event.get("involvedObject") or {}).get("uid")
    if uid and uids and uid not in uids:
        return False
    when = _event_time(event)
    if began is None or not when:
        return True
    try:
        return timefmt.parse(when) >= began - 1     # whole-second stamps: a second of slack
    except ValueError:
        return True


def _items(api, path: str) -> list[dict]:
    """GET a list or one object without judging it (the verdict is made already)."""
    try:
        resp = api.request("GET", path)
        body = resp.json() if resp.status_code == 200 else None
    except (errors.HarnessError, ValueError):
        return []
    if not isinstance(body, dict):
        return []
    return list(body.get("items") or []) if "items" in body else [body]


def _event_time(e: dict) -> str:
    return str(e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp") or "")


def _event(e: dict) -> dict:
    inv = e.get("involvedObject") or {}
    out = {"type": e.get("type"), "reason": e.get("reason"), "object": f"{inv.get('kind')}/{inv.get('name')}",
           "message": e.get("message"), "count": e.get("count"), "last": _event_time(e) or None,
           "source": (e.get("source") or {}).get("component") or e.get("reportingComponent")}
    return {k: v for k, v in out.items() if v not in (None, "")}


def _raised_at(exc: BaseException) -> str:
    """The step definition's line that raised (the runner's own frames are left out)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/kube32/conformance/steps/" in f.filename]
    if not frames:
        return ""
    f = frames[-1]
    return f"{f.filename.split('/kube32/conformance/', 1)[-1]}:{f.lineno} ({f.name})"


def _indent(value: str) -> str:
    return "\n".join("  " + line for line in value.splitlines())
