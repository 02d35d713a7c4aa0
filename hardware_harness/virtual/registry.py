"""Process-wide registry of virtual boards by name (what ``vboard://<name>`` resolves to)."""

from __future__ import annotations

import threading
from typing import Any, Protocol


class Named(Protocol):
    name: str


_lock = threading.Lock()
_boards: dict[str, Any] = {}    # name -> VirtualBoard (the registry needs only its name)


def register(board: Named) -> None:
    with _lock:
        other = _boards.get(board.name)
        if other is not None and other is not board:
            raise ValueError(f"a virtual board named {board.name!r} is already registered: {other!r}")
        _boards[board.name] = board


def unregister(name: str) -> None:
    with _lock:
        _boards.pop(name, None)


def get(name: str) -> Any | None:
    with _lock:
        return _boards.get(name)


def names() -> list[str]:
    with _lock:
        return sorted(_boards)
