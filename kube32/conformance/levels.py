"""Two levels of judgement, as Kubernetes conformance ([Conformance] tests) and the JSON-Schema test
suite (required vs optional) have them:

- ``document``: what the kube32 document states. Only this level decides the verdict and the exit
  status by default.
- ``reference``: our readings where the document is silent (exact strings, upstream wire formats,
  maxSurge pacing ...). Reported next to the document verdict; decides only with ``--level reference``.

A failed check is a :class:`Finding`: it counts against the clause it judged, at its level, and
against no other clause of the scenario. Steps attribute a check with ``k32.judging(clause, level)``;
a check there is soft (the scenario goes on, so its other clauses are still judged). An assertion
outside ``judging`` ends the scenario and counts against every clause the scenario carries.

The level of a finding is the lowest of the check's, the scenario's (``@interpretation`` scenarios
test a reading, so they judge at reference level only) and the clause's (``level: reference`` in
the catalogue: the whole clause is a reading).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
from collections.abc import Iterable, Iterator

DOCUMENT = "document"
REFERENCE = "reference"
LEVELS = (DOCUMENT, REFERENCE)
SCENARIO_REFERENCE_TAG = "interpretation"   # a scenario tagged so judges at reference level only


class Verdict(enum.StrEnum):
    """A scenario's or a clause's verdict (compares and serialises as its string)."""

    PASSED = "passed"
    FAILED = "failed"            # the target broke the clause
    ERROR = "error"              # the harness, the network or a board broke: no verdict on the target
    DEVIATION = "deviation"      # failed, and declared (--deviations)
    DISABLED = "disabled"        # the target lacks what the scenario needs
    NOT_JUDGED = "reference-only"   # at document level, of what only the reference judges


NOT_JUDGED = Verdict.NOT_JUDGED


def lowest(*levels: str) -> str:
    return REFERENCE if REFERENCE in levels else DOCUMENT


@dataclasses.dataclass(frozen=True)
class Finding:
    clauses: tuple[str, ...]   # the clauses the failed check judged
    level: str
    step: str                  # "Then pod "web" has an event "Evicted"" (keyword and text)
    message: str

    def as_dict(self) -> dict:
        return {"clauses": list(self.clauses), "level": self.level, "step": self.step, "message": self.message}

    def __str__(self) -> str:
        return f"[{', '.join(self.clauses)} @ {self.level}] {self.step}: {self.message}"


class Judge:
    """The findings of one scenario."""

    def __init__(self, clauses: Iterable[str], level: str = DOCUMENT) -> None:
        self.clauses = tuple(sorted(clauses))
        self.level = level
        self.step = ""
        self.findings: list[Finding] = []

    @contextlib.contextmanager
    def judging(self, clause: str | None = None, level: str = DOCUMENT) -> Iterator[None]:
        """A failed assertion inside counts against ``clause`` (every clause of the scenario when it
        is None or not one the scenario carries) at ``level``, and the scenario goes on. A document-
        level check that concerns all the scenario's clauses ends the scenario, as a plain assert."""
        try:
            yield
        except AssertionError as exc:
            if level == DOCUMENT and self.level == DOCUMENT and not (clause in self.clauses and len(self.clauses) > 1):
                raise
            self.add(clause, level, str(exc))

    def add(self, clause: str | None, level: str, message: str) -> Finding:
        clauses = (clause,) if clause in self.clauses else self.clauses
        finding = Finding(clauses, lowest(level, self.level), self.step, " ".join(message.split())[:2000])
        self.findings.append(finding)
        return finding

    def verdicts(self, clause_levels: dict[str, str]) -> dict[str, dict[str, str]]:
        """clause -> {document: passed|failed|reference-only, reference: passed|failed}."""
        out = {}
        for clause in self.clauses:
            level = lowest(self.level, clause_levels.get(clause, DOCUMENT))
            mine = [f for f in self.findings if clause in f.clauses]
            out[clause] = {
                DOCUMENT: NOT_JUDGED if level == REFERENCE else
                ("failed" if any(lowest(f.level, level) == DOCUMENT for f in mine) else "passed"),
                REFERENCE: "failed" if mine else "passed",
            }
        return out

    def failing(self, chosen: str, clause_levels: dict[str, str]) -> list[Finding]:
        """The findings that fail the scenario at the chosen level."""
        if chosen == REFERENCE:
            return list(self.findings)
        return [f for f in self.findings
                if f.level == DOCUMENT and any(clause_levels.get(c, DOCUMENT) == DOCUMENT for c in f.clauses)]


class SoftFailures(AssertionError):
    """Raised after a scenario whose soft checks failed at the chosen level."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__("; ".join(str(f) for f in findings))
        self.findings = findings
