"""Every error the harness raises. Each one says what was expected and what was seen."""

from __future__ import annotations

from .console import Crash

# exit statuses of the rig commands, the same in ``run --rig`` (kube32.conformance.preflight):
# what the user wrote is wrong vs. the rig cannot be reached
EXIT_BAD_INPUT = 2      # the command line or the rig file (missing, not YAML, a bad field)
EXIT_UNREACHABLE = 10   # a board's port does not open, a labgrid place or its coordinator is not available


class HarnessError(Exception):
    """Base class of harness errors."""


class BadInput(HarnessError):
    """What the user gave is wrong (the rig file, a command-line value): exit status EXIT_BAD_INPUT."""


class StateError(HarnessError):
    """A method was called in a lifecycle state where it cannot run (e.g. expect before open)."""


class ResetNotSupported(HarnessError):
    """The port cannot carry DTR/RTS (socket://, a pty) or the rig says ``reset: none``."""


class BoardDisconnected(HarnessError):
    """The serial port went away (USB unplugged, RFC2217 server closed the connection)."""

    def __init__(self, board: str, url: str, cause: BaseException | str, *, opening: bool = False) -> None:
        self.board = board
        self.url = url
        self.cause = cause
        if opening:   # it never connected: say so, not "disconnected"
            super().__init__(f"board {board}: cannot open serial port {url}: {cause}")
        else:
            super().__init__(f"board {board}: serial port {url} disconnected: {cause}")


class BoardTimeout(HarnessError):
    """An ``expect`` did not see its pattern in time. Carries the last console lines."""

    def __init__(self, board: str, pattern: str, timeout: float, last_lines: list[str]) -> None:
        self.board = board
        self.pattern = pattern
        self.timeout = timeout
        self.last_lines = last_lines
        tail = "\n".join(f"  | {line}" for line in last_lines) or "  (no console output at all)"
        super().__init__(
            f"board {board}: expected a console line matching {pattern!r} within {timeout:g} s; "
            f"last {len(last_lines)} console lines:\n{tail}"
        )


class BoardCrashed(HarnessError):
    """The board crashed (panic, abort, brownout, unexpected reboot ...) while we were using it."""

    def __init__(self, board: str, crash: Crash, decoded: tuple[str, ...] = ()) -> None:
        self.board = board
        self.crash = crash
        self.kind = crash.kind
        self.text = crash.text
        self.backtrace = crash.backtrace
        self.decoded = decoded
        bt = f"\n{crash.backtrace}" if crash.backtrace else ""
        bt += "".join(f"\n  {line}" for line in decoded)
        super().__init__(f"board {board} crashed ({crash.kind}: {crash.reason}){bt}\n--- crash text ---\n{crash.text}")


class FlashError(HarnessError):
    """esptool is missing or failed."""


class RigFileError(BadInput):
    """The rig file is invalid. ``problems`` lists ``field.path: message`` strings; the message is
    one line (``invalid rig file rig.yaml: boards.cp.url: required; ...``)."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        flat = ["; ".join(" ".join(p.split()) for p in problems)]
        super().__init__(f"invalid rig file {path}: {flat[0]}")


def exit_status(exc: HarnessError) -> int:
    """The CLI's exit status for a problem found before any board is used (see EXIT_*)."""
    return EXIT_BAD_INPUT if isinstance(exc, BadInput) else EXIT_UNREACHABLE
