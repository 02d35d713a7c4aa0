"""Process-wide registry of virtual boards by name (what ``vboard://<name>`` resolves to)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import VirtualBoard

_lock = threading.Lock()
_boards: dict[str, VirtualBoard] = {}


def register(board: VirtualBoard) -> None:
    with _lock:
        other = _boards.get(board.name)
        if other is not None and other is not board:
            raise ValueError(f"a virtual board named {board.name!r} is already registered: {other!r}")
        _boards[board.name] = board


def unregister(name: str) -> None:
    with _lock:
        _boards.pop(name, None)


def get(name: str) -> VirtualBoard | None:
    with _lock:
        return _boards.get(name)


def names() -> list[str]:
    with _lock:
        return sorted(_boards)
