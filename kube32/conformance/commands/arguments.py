"""Argument types the subcommands share."""

from __future__ import annotations

import argparse
import re

_DURATION = re.compile(r"(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m)?(?:(\d+(?:\.\d*)?)s)?")


def duration(text: str) -> float:
    """Seconds from a Go duration of hours, minutes and seconds (``1h0m0s``, ``30m``) or a number."""
    try:
        seconds = float(text)
    except ValueError:
        m = _DURATION.fullmatch(text.strip())
        if not text.strip() or m is None:
            raise argparse.ArgumentTypeError(f"not a duration: {text!r} (examples: 1h0m0s, 30m, 90s, 3600)") \
                from None
        h, mi, sec = (float(g) if g else 0.0 for g in m.groups())
        seconds = h * 3600 + mi * 60 + sec
    if seconds < 0 or seconds != seconds:
        raise argparse.ArgumentTypeError(f"a duration must not be negative: {text!r}")
    return seconds


def positive(text: str) -> int:
    """A whole number of at least 1 (a count of connections or watches)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value

