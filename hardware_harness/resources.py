"""Resources: plain descriptions of what exists on a rig (labgrid style). No behaviour, no I/O."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_BAUD = 115200


@dataclass(frozen=True)
class SerialPort:
    """A serial console reachable through pyserial's ``serial_for_url``.

    ``url`` is a device path (``/dev/ttyUSB0``), ``rfc2217://host:port``, ``socket://host:port``,
    ``loop://`` or our in-process ``vboard://name``.
    """

    url: str
    baud: int = DEFAULT_BAUD

    @property
    def scheme(self) -> str:
        return self.url.split("://", 1)[0] if "://" in self.url else "file"

    def modem_line_problem(self) -> str | None:
        """Why DTR/RTS cannot reach a board through this port, or None when they can."""
        if self.scheme == "socket":
            return (
                f"{self.url} is a raw TCP socket: pyserial silently drops DTR/RTS changes there, so a "
                "reset would do nothing; use rfc2217:// (ser2net telnet/rfc2217, esp_rfc2217_server) instead"
            )
        if self.scheme == "file":
            real = os.path.realpath(self.url)
            if real.startswith("/dev/pts/") or real == "/dev/ptmx":
                return (
                    f"{self.url} is a pseudo-terminal ({real}): it cannot carry DTR/RTS "
                    "(ioctl fails with ENOTTY); reset the board another way or set reset: none"
                )
        return None


@dataclass(frozen=True)
class BoardSpec:
    """One board of a rig: its port and how the harness recognises its states."""

    name: str
    port: SerialPort
    role: str  # "control-plane" | "node"
    reset: str = "rts"  # "rts" | "none"
    node_name: str | None = None
    booted: str = r"main_task: Calling app_main\(\)"
    kubelet_ready: str | None = None
    api_url_fixed: str | None = None
    api_url_pattern: str | None = None
    elf: str | None = None               # the firmware's ELF, for backtrace decoding
    toolchain_prefix: str = "xtensa-esp32-elf-"
    labgrid: tuple[str, str, str | None, str | None] | None = None   # coordinator, place, resource, power
    flash: tuple[str, int, str, int] | None = None   # image, address, chip, baud: written before a run
