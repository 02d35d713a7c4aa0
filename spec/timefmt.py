"""Kubernetes time formats: metav1.Time (RFC 3339, whole seconds) and MicroTime (6 digits)."""

from __future__ import annotations

import datetime as _dt

_UTC = _dt.UTC


_last_second: tuple[int, str] = (0, "1970-01-01T00:00:00Z")   # a busy server stamps one second many times


def rfc3339(t: float) -> str:
    """metav1.Time: ``2024-05-01T12:00:00Z`` (fraction truncated, as Kubernetes does)."""
    global _last_second
    second = int(t // 1)
    last = _last_second
    if last[0] == second:
        return last[1]
    text = _dt.datetime.fromtimestamp(second, _UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _last_second = (second, text)
    return text


def rfc3339_micro(t: float) -> str:
    """metav1.MicroTime: ``2024-05-01T12:00:00.000000Z``."""
    return _dt.datetime.fromtimestamp(t, _UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse(text: str) -> float:
    """Seconds since the epoch from an RFC 3339 string (with or without fraction / offset)."""
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return _dt.datetime.fromisoformat(text).timestamp()


def human_duration(seconds: float) -> str:
    """kubectl's short human duration (``5s``, ``3m2s``, ``51m``, ``2d3h``), as printed in AGE."""
    s = int(max(seconds, 0))
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = s // 3600
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    if h < 24 * 8:
        d = h // 24
        return f"{d}d{h % 24}h" if h % 24 else f"{d}d"
    if h < 24 * 365 * 2:
        return f"{h // 24}d"
    if h < 24 * 365 * 8:
        y = h // (24 * 365)
        dy = (h // 24) % 365
        return f"{y}y{dy}d" if dy else f"{y}y"
    return f"{h // (24 * 365)}y"
