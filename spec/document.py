"""The kube32 document cut into the units the trace names: every sentence of its prose, every list
item, every row of its table and its console example, each with a locator such as
``Filters, item 4, sentence 2`` or ``Node lifecycle controller, table row 3``.

The toolkit does not ship the document (its text is not ours to copy); this module reads a copy the
user points at (``kube32-conformance clauses --check --document FILE``) so the trace (``trace.py``) can
be held against it: a sentence of the document that the trace does not name is a gap.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

__all__ = ["Unit", "digest", "units"]

_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+(?=[A-Z0-9(+-])")
_BULLET = re.compile(r"^\s*(?:•|[-*]|\d+\.)\s+")
_CHROME = {"Skip to content"}    # a web page's navigation line before the first heading


@dataclasses.dataclass(frozen=True)
class Unit:
    locator: str    # "Scoring, paragraph 1, sentence 3"
    section: str    # "Scoring"
    kind: str       # sentence | item | row | example
    text: str


def digest(text: str) -> str:
    """A unit's fingerprint (whitespace aside): the trace remembers which wording it was walked against."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:12]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _is_heading(lines: list[str]) -> bool:
    line = lines[0]
    return (len(lines) == 1 and not line.startswith((" ", "$")) and not line.rstrip().endswith((".", ":"))
            and len(line.split()) <= 6)


def units(text: str) -> list[Unit]:
    """The document's units in reading order (headings are not units; they name the sections)."""
    blocks = [b.splitlines() for b in re.split(r"\n\s*\n", text.strip("\n")) if b.strip()]
    out: list[Unit] = []
    section = ""
    counts: dict[str, int] = {}

    def add(where: str, kind: str, body: str) -> None:
        out.append(Unit(f"{section}, {where}", section, kind, body))

    for lines in blocks:
        if lines[0].strip() in _CHROME:
            continue
        if _is_heading(lines):
            section = lines[0].strip()
            counts = {}
            continue
        if lines[0].startswith("$"):
            counts["example"] = counts.get("example", 0) + 1
            add("example" if counts["example"] == 1 else f"example {counts['example']}", "example", "\n".join(lines))
        elif all(_BULLET.match(line) for line in lines):
            for line in lines:
                counts["item"] = counts.get("item", 0) + 1
                said = _sentences(_BULLET.sub("", line, count=1))
                for s, sentence in enumerate(said, 1):
                    add(f"item {counts['item']}" + (f", sentence {s}" if len(said) > 1 else ""), "item", sentence)
        elif len(lines) > 1 and not any(line.rstrip().endswith(".") for line in lines[:1]):
            for row in lines[1:]:                      # a table: a header line, then one row per line
                counts["row"] = counts.get("row", 0) + 1
                add(f"table row {counts['row']}", "row", row.strip())
        else:
            counts["paragraph"] = counts.get("paragraph", 0) + 1
            for s, sentence in enumerate(_sentences(" ".join(lines)), 1):
                add(f"paragraph {counts['paragraph']}, sentence {s}", "sentence", sentence)
    return out
