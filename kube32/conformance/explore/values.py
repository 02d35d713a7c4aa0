"""Hypothesis strategies for the values a user and a fleet write: quantities in every form the
document names (binary Ki/Mi/Gi, decimal k/M/G, milli m, plain numbers, an unrecognized suffix),
resource names, labels."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import strategies as st

from kube32.spec import constants

KI = 1024
LABELS = {"zone": ("a", "b"), "board": ("s3", "c3")}
UNKNOWN_SUFFIXES = ("X", "Kb", "kib")
PERIPHERALS = tuple(r for r in constants.PERIPHERAL_RESOURCES if r != constants.GPIO)
NAMED_BUSES = ("esp32.io/i2c-bus-0", "esp32.io/i2c-bus-1", "esp32.io/uart-1", "esp32.io/uart-2")


def _decimal(value: Fraction) -> str | None:
    """``value`` as an exact decimal string, or None when it has no short one."""
    d = Decimal(value.numerator) / Decimal(value.denominator)
    if Fraction(d) != value or len(str(d)) > 12:
        return None
    text = format(d.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def spellings(units: int, binary: bool = True) -> list[str]:
    """Every exact way of writing ``units`` with the document's suffixes (plain first)."""
    out = [str(units)]
    for suffix, factor in (("Ki", 2**10), ("Mi", 2**20), ("Gi", 2**30)) if binary else ():
        if units % factor == 0:
            out.append(f"{units // factor}{suffix}")
        elif suffix == "Mi" and (text := _decimal(Fraction(units, factor))):
            out.append(f"{text}{suffix}")
    for suffix, factor in (("k", 10**3), ("M", 10**6), ("G", 10**9)):
        text = _decimal(Fraction(units, factor))
        if text is not None and text != "0":
            out.append(f"{text}{suffix}")
    out.append(f"{units * 1000}m")
    return out


@st.composite
def quantity(draw, units: int, binary: bool = True, unknown: bool = True) -> str:
    """``units`` written one of the exact ways, or (rarely) with a suffix the document says counts 0."""
    if unknown and draw(st.integers(0, 19)) == 0:
        return f"{units or 1}{draw(st.sampled_from(UNKNOWN_SUFFIXES))}"
    return draw(st.sampled_from(spellings(units, binary)))


def memory_units(low: int, high: int) -> st.SearchStrategy[int]:
    """Bytes, mostly whole KiB (as boards report), sometimes whole kB."""
    return st.one_of(st.integers(low // KI, high // KI).map(lambda k: k * KI),
                     st.integers(low // 1000, high // 1000).map(lambda k: k * 1000))


def labels() -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(st.sampled_from(sorted(LABELS)), st.sampled_from(("a", "b", "s3", "c3")), max_size=2)


def label_text(pairs: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(pairs.items()))
