"""The quantity grammar: Kubernetes resource.Quantity, with kube32's one deviation.

Kubernetes suffixes are understood exactly as upstream (binary Ki..Ei, decimal n u m "" k M G T P E,
decimal exponents such as 1e3). kube32 deviates in one place: a well-formed number followed by a
suffix Kubernetes does not know ("1Xi", "5K") is accepted and counts as 0 instead of being an error.
A suffix is a run of letters; anything else after the number ("1.1.M", "1 Ki", " 1", "") makes the
value malformed, which is an error.

Values are exact ``Fraction``s rounded up (away from zero) to nano precision, as upstream does.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_NUMBER = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(.*)$", re.S)
_EXPONENT = re.compile(r"^[eE]([+-]?\d+)$")
_WORD = re.compile(r"^[A-Za-z]+$")   # what counts as a suffix at all (known or not)
_NANO = Fraction(1, 10**9)


class QuantityError(ValueError):
    """A quantity whose numeric part cannot be read."""

    def __init__(self, text: object) -> None:
        super().__init__(f"quantities must start with a number such as '128Ki' or '0.5'; got {text!r}")
        self.text = text


def multiplier(suffix: str) -> Fraction | None:
    """The factor a suffix stands for, or None when Kubernetes does not know it."""
    if suffix in BINARY:
        return Fraction(BINARY[suffix])
    if suffix in DECIMAL:
        return DECIMAL[suffix]
    exp = _EXPONENT.match(suffix)
    if exp:
        return Fraction(10) ** int(exp.group(1))
    return None


def parse(text: str | int | float) -> Fraction:
    """The exact value of a quantity; unknown suffixes count as 0 (the kube32 rule)."""
    if isinstance(text, bool):
        raise QuantityError(text)
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        text = repr(text)
    if not isinstance(text, str):
        raise QuantityError(text)
    match = _NUMBER.match(text)
    if not match:
        raise QuantityError(text)
    number, suffix = match.groups()
    factor = multiplier(suffix)
    if factor is None and not _WORD.match(suffix):
        raise QuantityError(text)   # "1.1.M", "1 Ki", "5Ki!": not a number followed by a suffix
    if factor is None:
        return Fraction(0)
    value = Fraction(number) * factor
    return _round_up_nano(value)


def _round_up_nano(value: Fraction) -> Fraction:
    scaled = value / _NANO
    if scaled.denominator == 1:
        return value
    ceil = math.ceil(abs(scaled))
    return Fraction(ceil if value > 0 else -ceil) * _NANO


def value(text: str | int | float) -> int:
    """Integer value, rounded up away from zero (Quantity.Value()): bytes of memory, counts."""
    v = parse(text)
    return math.ceil(v) if v >= 0 else -math.ceil(-v)


def is_valid(text: object) -> bool:
    try:
        parse(text)  # type: ignore[arg-type]
    except QuantityError:
        return False
    return True
