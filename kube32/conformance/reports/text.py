"""Plain text for reports: no terminal escape codes, one-line messages."""

from __future__ import annotations

import re

# CSI sequences (colours, cursor moves), OSC sequences (titles, links) and lone escapes.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def plain(text: str) -> str:
    """``text`` without escape sequences or control characters other than newline and tab."""
    return _CONTROL.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))


def plain_all(value):
    """``plain`` applied to every string inside nested dicts and lists."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, dict):
        return {k: plain_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_all(v) for v in value]
    return value


def one_line(text: str, limit: int = 200) -> str:
    """The first non-empty line of ``text``, cut at ``limit`` characters."""
    for line in plain(text).splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
