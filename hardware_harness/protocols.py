"""Protocols: the small interfaces drivers provide (labgrid style). Callers depend on these."""

from __future__ import annotations

import abc
import re


class ConsoleProtocol(abc.ABC):
    """A line console: wait for a line, send a line, check for crashes."""

    @abc.abstractmethod
    def expect(self, pattern: str | re.Pattern[str], timeout: float | None = None): ...

    @abc.abstractmethod
    def write_line(self, text: str) -> None: ...

    @abc.abstractmethod
    def check(self) -> None:
        """Raise ``BoardCrashed`` / ``BoardDisconnected`` when something happened since the last check."""


class ResetProtocol(abc.ABC):
    """Reset control: a pulse, or holding the chip in reset until released."""

    @abc.abstractmethod
    def reset(self) -> None: ...

    @abc.abstractmethod
    def hold(self) -> None: ...

    @abc.abstractmethod
    def release(self) -> None: ...
