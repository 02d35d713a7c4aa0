"""spec.catalogue: strict loading and the shipped clause files."""

from __future__ import annotations

import dataclasses
import re
import textwrap

import pytest

from kube32.spec import catalogue, constants, profiles
from kube32.spec.catalogue import AREAS, Catalogue, CatalogueError, Clause, load, parse

GOOD = textwrap.dedent("""\
    area: scheduler
    section: "Scheduler"
    clauses:
      - id: SCHED-ONE
        title: t
        statement: s
        source: "Scheduler, paragraph 1"
        observe: o
        numbers: [reconcile_interval]
        interpretation: i
        needs: [restart]
      - id: SCHED-TWO
        title: t
        statement: s
        source: src
        observe: o
    """)


def test_parse_good_file():
    clauses = parse(GOOD, "x.yaml", expected_area="scheduler")
    assert [c.id for c in clauses] == ["SCHED-ONE", "SCHED-TWO"]
    one = clauses[0]
    assert one.area == "scheduler" and one.section == "Scheduler"
    assert one.numbers == ("reconcile_interval",) and one.needs == ("restart",)
    assert one.interpretation == "i" and one.is_interpretation and one.tag == "@clause-SCHED-ONE"
    assert clauses[1].numbers == () and clauses[1].interpretation is None and clauses[1].needs == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.title = "x"  # type: ignore[misc]


@pytest.mark.parametrize("mutate,message", [
    (lambda s: s.replace("    observe: o\n    numbers", "    observe: o\n    notes: x\n    numbers"),
     "x.yaml: SCHED-ONE.notes: unknown key"),
    (lambda s: s.replace('section: "Scheduler"\n', 'section: "Scheduler"\nversion: 2\n'), "x.yaml: version: unknown key"),
    (lambda s: s.replace("SCHED-TWO", "SCHED-ONE"), "duplicate clause id SCHED-ONE"),
    (lambda s: s.replace("SCHED-TWO", "sched-two"), "x.yaml: clauses[1].id: String should match pattern"),
    (lambda s: s.replace("SCHED-TWO", "SCHEDTWO"), "clauses[1].id: String should match pattern"),
    (lambda s: s.replace("SCHED-TWO", "SCHED--TWO"), "clauses[1].id: String should match pattern"),
    (lambda s: s.replace("SCHED-TWO", "1SCHED-TWO"), "clauses[1].id: String should match pattern"),
    (lambda s: s.replace("SCHED-TWO", "12"), "clauses[1].id: Input should be a valid string"),
    (lambda s: s.replace("    title: t\n    statement: s\n    source: src", "    statement: s\n    source: src"),
     "x.yaml: SCHED-TWO.title: required"),
    (lambda s: s.replace("    title: t\n    statement: s\n    source: src",
                         "    title: t\n    title: u\n    statement: s\n    source: src"),
     "duplicate key 'title'"),
    (lambda s: s.replace("area: scheduler", "area: scheduling"), "x.yaml: area: must be one of scheduler, node_lifecycle"),
    (lambda s: s.replace("area: scheduler", "area: job"), "does not match the file name 'scheduler'"),
    (lambda s: s.replace("needs: [restart]", "needs: [teleport]"), "SCHED-ONE.needs[0]: must be one of exclusive-nodes, manual-clock, real-kubelet, restart (got 'teleport')"),
    (lambda s: s.replace("needs: [restart]", "needs: restart"), "x.yaml: SCHED-ONE.needs: Input should be a valid list"),
    (lambda s: s.replace("needs: [restart]", "needs: [restart, restart]"), "SCHED-ONE.needs: repeated names"),
    (lambda s: s.replace("numbers: [reconcile_interval]", "numbers: [1]"), "SCHED-ONE.numbers[0]: Input should be"),
    (lambda s: s.replace("    title: t\n    statement: s\n    source: src", "    title: [t]\n    statement: s\n    source: src"),
     "SCHED-TWO.title: Input should be a valid string"),
    (lambda s: s.replace("observe: o\n    numbers", "observe: ''\n    numbers"), "SCHED-ONE.observe: String should have at least 1 character"),
    (lambda s: s.split("clauses:")[0] + "clauses: []\n", "x.yaml: clauses: List should have at least 1 item"),
    (lambda s: "- just a list\n", "x.yaml: expected a mapping"),
    (lambda s: s.replace("needs: [restart]", "needs: [restart]\n    level: optional"), "SCHED-ONE.level: must be one of"),
    (lambda s: s.replace("    interpretation: i\n", "    level: reference\n"), "needs its interpretation"),
    (lambda s: "area: [\n", "not valid YAML"),
])
def test_strict_loading_errors(mutate, message):
    text = mutate(GOOD)
    assert text != GOOD
    with pytest.raises(CatalogueError) as info:
        Catalogue(parse(text, "x.yaml", expected_area="scheduler"))
    assert message in str(info.value)


def test_duplicate_ids_across_areas_are_rejected():
    a = parse(GOOD, "a.yaml")
    b = [dataclasses.replace(a[0], area="job")]
    with pytest.raises(CatalogueError, match="duplicate clause id SCHED-ONE"):
        Catalogue(a + b)


def test_catalogue_api():
    cat = Catalogue(parse(GOOD, "x.yaml"))
    assert cat.ids == ("SCHED-ONE", "SCHED-TWO")
    assert len(cat) == 2 and "SCHED-ONE" in cat and "NOPE-X" not in cat
    assert cat.get("SCHED-TWO").id == "SCHED-TWO"
    with pytest.raises(KeyError, match="unknown clause 'NOPE-X'"):
        cat.get("NOPE-X")
    assert [c.id for c in cat] == list(cat.ids)
    assert list(cat.by_area()) == ["scheduler"]
    assert [c.id for c in cat.interpretations()] == ["SCHED-ONE"]


# ---------------------------------------------------------------- the shipped catalogue
@pytest.fixture(scope="module")
def shipped() -> Catalogue:
    return load()


def test_every_area_file_loads_and_the_total_is_plausible(shipped):
    by_area = shipped.by_area()
    assert set(by_area) == set(AREAS), set(AREAS) - set(by_area)
    assert 60 <= len(shipped) <= 120, len(shipped)
    for area, clauses in by_area.items():
        assert clauses, area


def test_ids_are_prefixed_by_area(shipped):
    prefixes = {"scheduler": "SCHED-", "node_lifecycle": "NODE-", "deployment": "DEPLOY-", "daemonset": "DS-",
                "job": "JOB-", "endpoints": "EP-", "kubelet": "KUBELET-", "limitations": "LIMIT-",
                "examples": "EXAMPLE-"}
    for clause in shipped:
        assert clause.id.startswith(prefixes[clause.area]), clause.id
        assert catalogue.ID_PATTERN.match(clause.id)


def test_numbers_name_profile_fields_or_constants(shipped):
    profile_names = {f.name for f in dataclasses.fields(profiles.Profile)} | {
        n for n, v in vars(profiles.Profile).items() if isinstance(v, property)}
    for clause in shipped:
        for name in clause.numbers:
            assert name in profile_names or hasattr(constants, name), (clause.id, name)


def test_kubelet_side_clauses_need_a_real_kubelet(shipped):
    for clause in shipped.by_area()["kubelet"]:
        assert "real-kubelet" in clause.needs, clause.id
    others = [c.id for c in shipped if c.area != "kubelet" and "real-kubelet" in c.needs]
    assert others == []


def test_interpretations_are_recorded_in_decisions(shipped):
    from importlib import resources
    decisions = (resources.files("kube32.spec") / "decisions.md").read_text(encoding="utf-8")
    recorded = set(re.findall(r"\b[A-Z]+(?:-[A-Z0-9]+)+\b", decisions))
    missing = [c.id for c in shipped.interpretations() if c.id not in recorded]
    assert missing == [], f"interpretations missing from spec/decisions.md: {missing}"
    unknown = sorted(i for i in recorded if i.split("-")[0] in
                     {"SCHED", "NODE", "DEPLOY", "DS", "JOB", "EP", "KUBELET", "LIMIT", "EXAMPLE"} and i not in shipped)
    assert unknown == [], f"spec/decisions.md names unknown clauses: {unknown}"


def test_statements_do_not_copy_the_document(shipped):
    """Our own words: no clause text repeats a long run (8+ words) of the kube32 document verbatim."""
    from pathlib import Path
    doc_path = Path(__file__).resolve().parents[2].parent / "shared" / "seeds" / "000_04bc3cee83531612.txt"
    if not doc_path.is_file():
        pytest.skip("kube32 document not available")
    words = re.findall(r"\S+", doc_path.read_text().lower())
    grams = {" ".join(words[i:i + 8]) for i in range(len(words) - 7)}
    for clause in shipped:
        text = re.findall(r"\S+", f"{clause.title} {clause.statement}".lower())
        copied = [" ".join(text[i:i + 8]) for i in range(len(text) - 7) if " ".join(text[i:i + 8]) in grams]
        assert not copied, (clause.id, copied[0])


def test_clause_is_a_frozen_dataclass():
    assert dataclasses.is_dataclass(Clause)
    assert Clause.__dataclass_params__.frozen  # type: ignore[attr-defined]
