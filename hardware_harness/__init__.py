"""kube32 hardware-in-the-loop harness: serial consoles, reset control, rig files, virtual boards.

Rooms (labgrid style): ``resources`` describe ports and boards; ``board_console`` is the driver
for one board (console + reset); ``protocols`` are the interfaces; ``rig`` puts boards together;
``console`` is the pure ESP-IDF console parser; ``virtual`` holds virtual boards for CI.
"""

from .board_console import BoardConsole, ConsoleLine, ConsoleMatch, Mark
from .errors import (
    BoardCrashed,
    BoardDisconnected,
    BoardTimeout,
    FlashError,
    HarnessError,
    ResetNotSupported,
    RigFileError,
    StateError,
)

__all__ = [
    "BoardConsole",
    "ConsoleLine",
    "ConsoleMatch",
    "Mark",
    "BoardCrashed",
    "BoardDisconnected",
    "BoardTimeout",
    "FlashError",
    "HarnessError",
    "ResetNotSupported",
    "RigFileError",
    "StateError",
]
