"""Label and field selector strings as a request brings them: upstream's grammar and words, a bound
on the length and the number of requirements, and a parser whose work grows with its input only
(the old regular expressions backtracked: 60,000 spaces and a '#' held the GIL for 32 s)."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kube32.reference import errors
from kube32.reference.machinery import limits, selectors

KEYS = st.sampled_from(["app", "tier", "kube32.io/role", "a", "in", "notin", "x-1"])
VALUES = st.text(alphabet=string.ascii_lowercase + "0123456789", min_size=1, max_size=4)
SPACE = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def requirement(draw) -> tuple[str, str, tuple[str, ...]]:
    """(key, operator, values) as a user means it."""
    op = draw(st.sampled_from(["exists", "!", "=", "==", "!=", "in", "notin", ">", "<"]))
    key = draw(KEYS)
    if op in ("exists", "!"):
        return key, op, ()
    if op in (">", "<"):
        return key, op, (str(draw(st.integers(0, 99))),)
    if op in ("in", "notin"):
        return key, op, tuple(draw(st.lists(VALUES, min_size=1, max_size=3)))
    return key, op, (draw(VALUES),)


def written(req: tuple[str, str, tuple[str, ...]], sp: str) -> str:
    key, op, values = req
    if op == "exists":
        return f"{sp}{key}{sp}"
    if op == "!":
        return f"{sp}!{sp}{key}{sp}"
    if op in ("in", "notin"):
        return f"{sp}{key} {op}{sp}({sp}{f'{sp},{sp}'.join(values)}{sp}){sp}"
    return f"{sp}{key}{sp}{op}{sp}{values[0]}{sp}"


def means(req: tuple[str, str, tuple[str, ...]], labels: dict) -> bool:
    """What a requirement means, from upstream's documentation (the oracle, not the parser)."""
    key, op, values = req
    have = labels.get(key)
    if op in ("exists", "!"):
        return (have is not None) is (op == "exists")
    if op in ("=", "==", "in"):
        return have in values
    if op in ("!=", "notin"):
        return have not in values
    if have is None or not have.isdigit():
        return False
    return int(have) > int(values[0]) if op == ">" else int(have) < int(values[0])


@settings(max_examples=300, deadline=None)
@given(st.lists(requirement(), min_size=1, max_size=5), SPACE,
       st.dictionaries(KEYS, st.one_of(VALUES, st.integers(0, 99).map(str)), max_size=4))
def test_a_written_selector_means_what_its_requirements_mean(reqs, sp, labels):
    text = ",".join(written(r, sp) for r in reqs)
    assert selectors.parse_label_selector(text)(labels) is all(means(r, labels) for r in reqs)


@pytest.mark.parametrize("text, labels, expected", [
    ("x in (,a)", {"x": ""}, True),                     # an empty value in a set
    ("x in ()", {"x": ""}, True),
    ("in in (in),notin notin (notin)", {"in": "in"}, True),     # keywords as keys and values, as upstream
    ("rank>3", {"rank": "x"}, False),                   # not an integer: no match
    ("rank<3", {}, False),
    ("a=", {"a": ""}, True),
])
def test_upstream_corners(text, labels, expected):
    assert selectors.parse_label_selector(text)(labels) is expected


@pytest.mark.parametrize("text, words", [
    ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("!a=b", "found '=', expected: ',' or 'end of string'"),
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, >, <"),
    (",a", "found ',', expected: !, identifier, or 'end of string'"),
    ("a,", "found '', expected: identifier after ','"),
    ("a#=b", 'unable to parse requirement: <nil>: Invalid value: "a#": name part must consist of'),
    ("a=b#", 'unable to parse requirement: values[0][a]: Invalid value: "b#": a valid label must be'),
    ("a=" + "b" * 64, "must be no more than 63 characters"),
    ("a>x", "for 'Gt', 'Lt' operators, the value must be an integer"),
])
def test_refusals_in_upstreams_words(text, words):
    with pytest.raises(errors.BadRequest) as refused:
        selectors.parse_label_selector(text)
    assert words in refused.value.status()["message"]


def test_length_and_requirements_are_bounded_before_any_parsing(monkeypatch):
    def never(text):
        raise AssertionError("a selector beyond the bound was read")

    monkeypatch.setattr(selectors, "_tokens", never)
    with pytest.raises(errors.BadRequest, match="the limit is"):
        selectors.parse_label_selector(" " * 60_000 + "#")
    with pytest.raises(errors.BadRequest, match="the limit is"):
        selectors.parse_field_selector("a=" + "b" * limits.MAX_SELECTOR_BYTES)
    monkeypatch.undo()
    many = ",".join(f"k{i}" for i in range(limits.MAX_SELECTOR_REQUIREMENTS + 1))
    assert len(many) <= limits.MAX_SELECTOR_BYTES
    with pytest.raises(errors.BadRequest, match="at most"):
        selectors.parse_label_selector(many)
    with pytest.raises(errors.BadRequest, match="at most"):
        selectors.parse_field_selector(",".join(f"k{i}=v" for i in range(limits.MAX_SELECTOR_REQUIREMENTS + 1)))


@pytest.mark.parametrize("text", [
    " " * (limits.MAX_SELECTOR_BYTES - 1) + "#",        # what made the old expressions backtrack
    "a" + " " * (limits.MAX_SELECTOR_BYTES - 2) + "#",
    "!" * limits.MAX_SELECTOR_BYTES,
    "a in (" + "," * (limits.MAX_SELECTOR_BYTES - 7) + "#",
])
def test_the_tokenizer_reads_each_character_once(text, monkeypatch):
    """Its expression is matched once per token, never again from an earlier position."""
    calls = []
    real = selectors._TOKEN

    class Counting:
        def match(self, s, pos=0):
            calls.append(pos)
            return real.match(s, pos)

    monkeypatch.setattr(selectors, "_TOKEN", Counting())
    with pytest.raises(errors.BadRequest):
        selectors.parse_label_selector(text)
    assert calls == sorted(set(calls)), "a position was read twice"
    assert len(calls) <= len(text) + 1

