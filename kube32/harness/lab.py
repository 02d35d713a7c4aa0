"""labgrid places: how a rig reaches boards that live on other hosts and are shared between people.

A rig file may name labgrid places (labgrid >= 24, gRPC coordinator) for the whole rig or per board.
``LabgridPlace`` drives labgrid's own client (``labgrid-client``, run as ``python -m
labgrid.remote.client`` so it is the one installed with us): ``acquire`` the place, read its resources
(``env``), ``release`` it. A board's serial port is the place's ``NetworkSerialPort`` (RFC2217, as
ser2net on an exporter serves it); when the place has a power resource its reset, hold and release
go through ``labgrid-client power cycle/off/on``, else through RTS/DTR as on a local port.

Every place acquired here is released on every exit path: ``release`` is called by ``Rig.close``
(also on Ctrl-C, through pytest's session teardown), and an ``atexit`` hook releases what is left.
"""

from __future__ import annotations

import atexit
import contextlib
import subprocess
import sys
import threading
from dataclasses import dataclass

import yaml

from .errors import HarnessError

DEFAULT_PORT = 20408
CLIENT_TIMEOUT = 120.0
# labgrid resource classes that switch a board's power (labgrid-client power works with each)
POWER_RESOURCES = frozenset({
    "NetworkPowerPort", "PDUDaemonPort", "YKUSHPowerPort", "USBPowerPort", "SiSPMPowerPort",
    "TasmotaPowerPort", "NetworkYKUSHPowerPort", "NetworkUSBPowerPort", "NetworkSiSPMPowerPort",
})
INSTALL_HINT = "pip install kube32-conformance[lab]"


class LabgridError(HarnessError):
    """The coordinator, the place or one of its resources is not what the rig file says."""


@dataclass(frozen=True)
class PlaceRef:
    coordinator: str
    place: str

    def __str__(self) -> str:
        return f"labgrid place {self.place} at {self.coordinator}"


@dataclass(frozen=True)
class Resource:
    cls: str
    name: str
    params: dict


_held: set[LabgridPlace] = set()
_held_lock = threading.Lock()


class LabgridPlace:
    """One labgrid place, acquired for as long as a rig uses it."""

    def __init__(self, ref: PlaceRef) -> None:
        self.ref = ref
        self.resources: list[Resource] = []
        self.acquired = False

    def client(self, *args: str, timeout: float = CLIENT_TIMEOUT) -> str:
        """Run labgrid-client against this place; its output, or a one-line ``LabgridError``."""
        cmd = [sys.executable, "-m", "labgrid.remote.client", "-x", self.ref.coordinator, "-p", self.ref.place, *args]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            raise LabgridError(f"{self.ref}: labgrid-client {' '.join(args)} did not answer within {timeout:g} s") from exc
        if proc.returncode != 0:
            if "No module named labgrid" in proc.stderr:
                raise LabgridError(f"rig files with labgrid places need labgrid; run: {INSTALL_HINT}")
            lines = [line for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
            last = next((line for line in reversed(lines) if "rror" in line), lines[-1] if lines else "")
            raise LabgridError(f"{self.ref}: labgrid-client {' '.join(args)} failed: {last.strip()}")
        return proc.stdout

    def acquire(self) -> LabgridPlace:
        self.client("acquire")
        self.acquired = True
        with _held_lock:
            _held.add(self)
        try:
            env = yaml.safe_load(self.client("env")) or {}
            target = (env.get("targets") or {}).get(self.ref.place) or {}
            self.resources = [Resource(cls, (args or {}).get("name", cls), dict(args or {}))
                              for entry in target.get("resources") or [] for cls, args in entry.items()]
        except BaseException:
            self.release()
            raise
        return self

    def release(self) -> None:
        if not self.acquired:
            return
        self.acquired = False
        with _held_lock:
            _held.discard(self)
        self.client("release")

    # --- what a board of this place uses ----------------------------------------------------------

    def serial_url(self, name: str | None, board: str) -> str:
        """The pyserial URL of the place's NetworkSerialPort ``name`` (default: the only one, or the
        one named after the board)."""
        ports = [r for r in self.resources if r.cls == "NetworkSerialPort"]
        port = self._pick(ports, name, board, "NetworkSerialPort")
        scheme = "socket" if port.params.get("protocol") == "raw" else "rfc2217"
        return f"{scheme}://{port.params['host']}:{port.params['port']}"

    def power_name(self, name: str | None, board: str) -> str | None:
        """The power resource the board's reset goes through, or None (then RTS/DTR)."""
        powers = [r for r in self.resources if r.cls in POWER_RESOURCES]
        if not powers and name is None:
            return None
        return self._pick(powers, name, board, "power resource").name

    def _pick(self, found: list[Resource], name: str | None, board: str, what: str) -> Resource:
        if name is not None:
            match = [r for r in found if r.name == name]
            if not match:
                raise LabgridError(f"{self.ref} has no {what} named {name!r} (it has: "
                                   f"{', '.join(r.name for r in found) or 'none'})")
            return match[0]
        if len(found) == 1:
            return found[0]
        match = [r for r in found if r.name == board]
        if not match:
            raise LabgridError(f"{self.ref} has {len(found)} {what}s ({', '.join(r.name for r in found) or 'none'}); "
                               f"name board {board}'s in labgrid: {{resource: NAME}}")
        return match[0]


class LabgridPower:
    """A board's reset through the place's power resource (``labgrid-client power``)."""

    def __init__(self, place: LabgridPlace, name: str) -> None:
        self.place = place
        self.name = name

    def off(self) -> None:
        self.place.client("power", "off", "--name", self.name)

    def on(self) -> None:
        self.place.client("power", "on", "--name", self.name)

    def cycle(self) -> None:
        self.place.client("power", "cycle", "--name", self.name)


def coordinator_address(value: str) -> str:
    return value if ":" in value else f"{value}:{DEFAULT_PORT}"


@atexit.register
def _release_all() -> None:
    """Whatever path the process takes out, places acquired here are given back."""
    with _held_lock:
        places = list(_held)
    for place in places:
        with contextlib.suppress(Exception):
            place.release()
