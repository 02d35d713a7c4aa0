"""The quantity grammar: Kubernetes suffixes exactly as upstream, unknown suffixes count as 0,
malformed numbers are errors. Each row is a case a plausible bug gets wrong."""

from fractions import Fraction

import pytest

from kube32.spec import quantities

KI, MI, GI = 2**10, 2**20, 2**30


@pytest.mark.parametrize("text, expected", [
    ("1Ki", KI), ("1Mi", MI), ("1Gi", GI), ("1Ti", 2**40),       # binary suffixes
    ("1k", 1000), ("1M", 10**6), ("1G", 10**9),                  # decimal: k is lower case
    ("100m", Fraction(1, 10)), ("1500m", Fraction(3, 2)),        # milli
    ("1.5Gi", 3 * GI // 2), ("0.5Ki", 512), (".5Ki", 512),        # decimals, leading dot
    ("1.", 1), ("1.G", 10**9), (".001", Fraction(1, 1000)),     # upstream's "troll" forms
    ("1e3", 1000), ("1E-3", Fraction(1, 1000)), ("12E", 12 * 10**18),  # exponent vs exa
    ("+5", 5), ("-5Ki", -5 * KI), ("0", 0), ("0Ki", 0),
    ("3.001n", Fraction(4, 10**9)),                              # rounded UP to nano, as upstream
    (16384, 16384), (0.5, Fraction(1, 2)),
])
def test_known_quantities(text, expected):
    assert quantities.parse(text) == expected


@pytest.mark.parametrize("text", ["1Xi", "5K", "1ki", "0.1mi", "2KiB", "7e", "1Kilo"])
def test_unrecognized_suffix_counts_as_zero(text):
    assert quantities.parse(text) == 0


@pytest.mark.parametrize("text", ["", "Ki", "abc", "1.1.M", " 1", "1 ", "--1", True, None, [1]])
def test_malformed_numbers_are_errors(text):
    with pytest.raises(quantities.QuantityError) as err:
        quantities.parse(text)
    assert repr(text) in str(err.value)
    assert not quantities.is_valid(text)


@pytest.mark.parametrize("text, expected", [("1Ki", 1024), ("0.1m", 1), ("1500m", 2), ("-1500m", -2)])
def test_value_rounds_up_away_from_zero(text, expected):
    assert quantities.value(text) == expected
