"""The feature suite as data: where the features are, which scenarios they hold, which clauses
and capabilities each scenario names, and the coverage check behind ``clauses --check``."""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import functools
import os
from importlib import resources
from pathlib import Path

from pytest_bdd.parser import FeatureParser

from kube32.conformance.levels import SCENARIO_REFERENCE_TAG
from kube32.spec import catalogue

FEATURE_FILES = "KUBE32_FEATURE_FILES"   # the feature files a run binds (os.pathsep-separated, relative)
CLAUSE_PREFIX = "clause-"
NEEDS_PREFIX = "needs-"
AREA_PREFIX = "area-"
PLAIN_TAGS = {"interpretation": "scenario tests one of our interpretations (spec/decisions.md), so it judges at "
                                "reference level only (conformance/levels.py)",
              "slow": "scenario takes more than a few seconds of wall time on a real clock",
              "realtime": "scenario says time only through profile durations, so it also runs in real time "
                          "against a target started with short timeouts"}
CAPABILITIES = {
    "restart": "the runner can restart the control plane on the same data",
    "exclusive-nodes": "the scenario must own the whole node set",
    "real-kubelet": "nodes are real kube32 kubelets (rigs), not the runner's fake kubelets",
    "fake-kubelets": "nodes are the runner's fake kubelets",
    "manual-clock": "the target's clock can be jumped",
}


def item_clauses(item) -> list[str]:
    """The clause IDs a collected pytest item carries (from its feature, rule and scenario tags)."""
    return sorted({m.name[len(CLAUSE_PREFIX):] for m in item.iter_markers() if m.name.startswith(CLAUSE_PREFIX)})


def features_dir() -> Path:
    """KUBE32_FEATURES, else the ``features`` package shipped with the toolkit."""
    env = os.environ.get("KUBE32_FEATURES")
    if env:
        return Path(env)
    return Path(str(resources.files("kube32.features")))


def bound_paths() -> list[str]:
    """What ``bind`` turns into tests: the features directory, or only the files ``FEATURE_FILES``
    names (``run`` sets it when --clause/--area/--tags select fewer: each process of the run, every
    xdist worker too, then parses and builds only those)."""
    base = features_dir()
    only = os.environ.get(FEATURE_FILES)
    return [str(base / f) for f in only.split(os.pathsep)] if only else [str(base)]


@contextlib.contextmanager
def binding(files: set[str] | None):
    """``bind`` binds only ``files`` (relative to the features directory; None: all) meanwhile."""
    before = os.environ.get(FEATURE_FILES)
    if files is not None:
        os.environ[FEATURE_FILES] = os.pathsep.join(sorted(files))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FEATURE_FILES, None)
        else:
            os.environ[FEATURE_FILES] = before


@dataclasses.dataclass(frozen=True)
class ScenarioInfo:
    feature: str            # path relative to the features dir
    name: str
    line: int
    tags: frozenset[str]
    steps: tuple[tuple[str, str, int], ...]   # (type, text, line)
    judges_document: bool = True              # some run of it (an Examples table) is not @interpretation
    runs: int = 1                             # one per Examples row: how many scenarios a run counts

    @property
    def clauses(self) -> list[str]:
        return sorted(t[len(CLAUSE_PREFIX):] for t in self.tags if t.startswith(CLAUSE_PREFIX))

    @property
    def needs(self) -> list[str]:
        return sorted(t[len(NEEDS_PREFIX):] for t in self.tags if t.startswith(NEEDS_PREFIX))


def scenarios(base: Path | None = None) -> list[ScenarioInfo]:
    base = base or features_dir()
    paths = sorted(base.rglob("*.feature"))
    # parsed once per process while the files stay as they are (a run asks three times: its
    # preflight, its estimate, its report's not-selected clauses)
    return list(_parse(base, tuple((p, p.stat().st_mtime_ns) for p in paths)))


@functools.lru_cache(maxsize=4)
def _parse(base: Path, files: tuple[tuple[Path, int], ...]) -> tuple[ScenarioInfo, ...]:
    out = []
    for path, _ in files:
        feature = FeatureParser(str(base), str(path.relative_to(base))).parse()
        for sc in feature.scenarios.values():
            tags = set(feature.tags) | set(sc.tags) | (set(sc.rule.tags) if sc.rule else set())
            own = set(tags)
            for ex in sc.examples:
                tags |= set(ex.tags)
            document = SCENARIO_REFERENCE_TAG not in own and (not sc.examples or any(SCENARIO_REFERENCE_TAG not in ex.tags
                                                                            for ex in sc.examples))
            rows = [ctx for ex in sc.examples for ctx in ex.as_contexts()]     # one run per Examples row
            steps = tuple((s.type, s.name, s.line_number) for s in _rendered_steps(sc, rows))
            out.append(ScenarioInfo(str(path.relative_to(base)), sc.name, sc.line_number,
                                    frozenset(tags), steps, document, len(rows) or 1))
    return tuple(out)


def _rendered_steps(template, contexts: list) -> list:
    """The steps of a scenario, with Scenario Outline placeholders filled from every example row."""
    if not contexts:
        return list(template.steps)
    seen, out = set(), []
    for ctx in contexts:
        for s in template.render(ctx).steps:
            if (s.type, s.name) not in seen:
                seen.add((s.type, s.name))
                out.append(s)
    return out


def wanted(clauses, cat: catalogue.Catalogue, patterns=(), areas=()) -> bool:
    """The run's ``--clause`` (globs) and ``--area`` selection, for a scenario naming ``clauses``."""
    clauses = list(clauses)
    return bool(clauses) and \
        (not patterns or any(fnmatch.fnmatch(c, p) for c in clauses for p in patterns)) and \
        (not areas or any(cat.get(c).area in areas for c in clauses if c in cat.ids))


def matches_markexpr(tags, markexpr: str | None) -> bool:
    """pytest's ``-m`` expression over a scenario's tags (``--tags`` of ``run``)."""
    if not markexpr:
        return True
    from _pytest.mark.expression import Expression

    names = set(tags)
    return Expression.compile(markexpr).evaluate(lambda name, **kwargs: not kwargs and name in names)


def selection(cat: catalogue.Catalogue, patterns=(), areas=(), markexpr: str | None = None,
              base: Path | None = None) -> list[tuple[ScenarioInfo, bool]]:
    """Every scenario of the features with whether this run selects it (without running pytest)."""
    return [(sc, wanted(sc.clauses, cat, patterns, areas) and matches_markexpr(sc.tags, markexpr))
            for sc in scenarios(base)]


def known_tags(cat: catalogue.Catalogue | None = None) -> dict[str, str]:
    """Every tag a feature may carry, with its meaning (registered as pytest markers)."""
    cat = cat or catalogue.load()
    tags = {f"{CLAUSE_PREFIX}{c.id}": c.title for c in cat}
    tags.update({f"{AREA_PREFIX}{a}": f"clauses of area {a}" for a in cat.by_area()})
    tags.update({f"{NEEDS_PREFIX}{k}": v for k, v in CAPABILITIES.items()})
    tags.update(PLAIN_TAGS)
    return tags


@dataclasses.dataclass
class CoverageProblem:
    kind: str       # "uncovered" | "reference-only" | "unknown-clause" | "unknown-tag" | "untagged"
    subject: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.subject}: {self.detail}"


def check(cat: catalogue.Catalogue | None = None, base: Path | None = None) -> list[CoverageProblem]:
    cat = cat or catalogue.load()
    known = known_tags(cat)
    problems: list[CoverageProblem] = []
    covered: set[str] = set()
    judged: set[str] = set()
    for sc in scenarios(base):
        where = f"{sc.feature}:{sc.line} {sc.name!r}"
        if not sc.clauses:
            problems.append(CoverageProblem("untagged", where, "names no @clause-<ID>"))
        for tag in sorted(sc.tags):
            if tag.startswith(CLAUSE_PREFIX) and tag[len(CLAUSE_PREFIX):] not in cat.ids:
                problems.append(CoverageProblem("unknown-clause", where, f"@{tag} is not in the catalogue"))
            elif tag not in known:
                problems.append(CoverageProblem("unknown-tag", where, f"@{tag} is neither a clause, an area, "
                                                "a capability (@needs-…) nor one of " + ", ".join(PLAIN_TAGS)))
        covered.update(sc.clauses)
        if sc.judges_document:
            judged.update(sc.clauses)
    for c in cat:
        if c.id not in covered:
            problems.append(CoverageProblem("uncovered", c.id, f"no scenario is tagged @clause-{c.id}"))
        elif c.id not in judged and c.level == "document":
            problems.append(CoverageProblem(
                "reference-only", c.id, "the document states this clause, but all its scenarios are "
                "@interpretation: judge what the document says in one without it (or give the clause "
                "level: reference in the catalogue)"))
    return problems
