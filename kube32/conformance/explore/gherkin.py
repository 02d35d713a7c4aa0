"""Steps as Gherkin: what the explorer runs on both sides is exactly the text it writes, so a
finding replays with ``kube32-conformance run --feature FILE`` against any target."""

from __future__ import annotations

import dataclasses
import textwrap

KEYWORDS = ("Given", "When", "Then")


@dataclasses.dataclass(frozen=True)
class Step:
    keyword: str                                   # Given | When | Then
    text: str
    table: tuple[tuple[str, ...], ...] = ()        # a datatable, header row first
    docstring: str | None = None
    comment: str = ""                              # a "# ..." line written above the step

    def __post_init__(self) -> None:
        if self.keyword not in KEYWORDS:
            raise ValueError(f"a step keyword is one of {KEYWORDS}, not {self.keyword!r}")

    @property
    def datatable(self) -> list[list[str]] | None:
        return [list(row) for row in self.table] if self.table else None

    def lines(self, indent: str = "    ", keyword: str | None = None) -> list[str]:
        out = [f"{indent}# {line}" for line in self.comment.splitlines()] if self.comment else []
        out.append(f"{indent}{keyword or self.keyword} {self.text}")
        if self.table:
            widths = [max(len(row[i]) for row in self.table) for i in range(len(self.table[0]))]
            out += [f"{indent}  | " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
                    for row in self.table]
        if self.docstring is not None:
            out += [f'{indent}  """', *(f"{indent}  {line}" if line else "" for line in
                                         self.docstring.rstrip("\n").splitlines()), f'{indent}  """']
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines(indent=""))


def table(header: list[str], rows: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return (tuple(header), *(tuple(str(c) for c in row) for row in rows))


def resources_table(amounts: dict[str, str]) -> tuple[tuple[str, ...], ...]:
    """``| resource | quantity |`` as the pod steps read it."""
    return table(["resource", "quantity"], [[k, v] for k, v in amounts.items()])


def scenario_lines(steps: list[Step], indent: str = "    ") -> list[str]:
    """The steps, with ``And`` where the keyword repeats (as the features are written)."""
    out, last = [], None
    for step in steps:
        out += step.lines(indent, keyword="And" if step.keyword == last else step.keyword)
        last = step.keyword
    return out


def feature(name: str, description: str, tags: list[str], scenario: str, scenario_tags: list[str],
            steps: list[Step]) -> str:
    """One feature file holding one scenario (the Background is the features' usual one)."""
    body = [" ".join(f"@{t}" for t in tags), f"Feature: {name}"] if tags else [f"Feature: {name}"]
    body += ["  " + line for line in textwrap.wrap(description, 96)]
    body += ["", "  Background:", "    Given a kube32 control plane", ""]
    if scenario_tags:
        body.append("  " + " ".join(f"@{t}" for t in scenario_tags))
    body.append(f"  Scenario: {scenario}")
    body += scenario_lines(steps)
    return "\n".join(body) + "\n"
