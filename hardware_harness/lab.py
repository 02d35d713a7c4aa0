"""labgrid places: how a rig reaches boards that live on other hosts and are shared between people.

A rig file may name labgrid places (labgrid >= 24, gRPC coordinator) for the whole rig or per board.
``LabgridPlace`` speaks to the coordinator through labgrid's own client session
(``labgrid.remote.client.ClientSession``, the one ``labgrid-client`` uses), kept open for the whole
process on an event-loop thread of its own (``Coordinator``): ``acquire`` the place, read its
resources (what ``labgrid-client env`` prints), ``release`` it — milliseconds each, where a
``labgrid-client`` process costs a second or two of start-up. A board's serial port is the place's
``NetworkSerialPort`` (RFC2217, as ser2net on an exporter serves it); when the place has a power
resource its reset, hold and release go through ``labgrid-client power cycle/off/on`` (labgrid picks
the driver for the resource class), else through RTS/DTR as on a local port.

Every place acquired here is released on every exit path: ``release`` is called by ``Rig.close``
(also on Ctrl-C, through pytest's session teardown), and an ``atexit`` hook releases what is left.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass

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


def _not_the_session_pump(record: logging.LogRecord) -> bool:
    """labgrid's session logs to the root logger when its coordinator stream ends ("coordinator is
    unavailable"); the call that needed the coordinator says so itself, in one line."""
    return not (record.name == "root" and record.pathname.endswith(os.path.join("labgrid", "remote", "client.py")))


class Coordinator:
    """One labgrid client session with a coordinator, shared by every place of this process.

    labgrid's ``ClientSession`` is asyncio; it runs on a daemon thread's event loop and the rig's
    threads hand it coroutines (``call``). The session follows the coordinator's place and resource
    updates, so what it says about a place is current."""

    _open: dict[str, Coordinator] = {}
    _lock = threading.Lock()

    def __init__(self, address: str) -> None:
        try:
            from labgrid.remote.client import ClientSession
            from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2
        except ImportError:
            raise LabgridError(f"rig files with labgrid places need labgrid; run: {INSTALL_HINT}") from None
        self.address = address
        self.pb2 = pb2
        if _not_the_session_pump not in logging.getLogger().filters:
            logging.getLogger().addFilter(_not_the_session_pump)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name=f"labgrid {address}", daemon=True).start()

        async def start():
            session = ClientSession(address, self.loop)
            await session.start()
            return session

        try:
            self.session = self.call(start(), f"cannot reach the labgrid coordinator at {address}")
        except BaseException:
            self.loop.call_soon_threadsafe(self.loop.stop)
            raise

    @property
    def me(self) -> str:
        """Who this process is to the coordinator ('host/user', as labgrid-client says it)."""
        return f"{self.session.gethostname()}/{self.session.getuser()}"

    @classmethod
    def at(cls, address: str) -> Coordinator:
        """The session with ``address`` (opened on first use)."""
        with cls._lock:
            known = cls._open.get(address)
            if known is None or known.session.stopping.is_set():   # first use, or the coordinator restarted
                cls._open[address] = cls(address)
            return cls._open[address]

    def close(self) -> None:
        """End the session (the coordinator sees this client go) and its loop thread."""
        with self._lock:
            if self._open.get(self.address) is self:
                del self._open[self.address]

        async def stop():
            await self.session.stop()
            await self.session.close()

        with contextlib.suppress(HarnessError):
            self.call(stop(), "close", timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    def call(self, coro, what: str, timeout: float = CLIENT_TIMEOUT):
        """Run ``coro`` on the session's loop; labgrid's and gRPC's errors become one-line LabgridErrors."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except KeyboardInterrupt:
            concurrent.futures.wait([future], timeout=10)   # let the request settle, so the caller knows
            raise
        except TimeoutError:
            future.cancel()
            raise LabgridError(f"{what}: no answer within {timeout:g} s") from None
        except HarnessError:
            raise
        except Exception as exc:   # labgrid's UserError/ServerError, grpc.aio.AioRpcError
            details = getattr(exc, "details", None)
            why = details() if callable(details) else " ".join(str(a) for a in exc.args) or type(exc).__name__
            raise LabgridError(f"{what}: {why}") from None

    # -- what the rig and the tests ask of the coordinator ------------------------------------------
    async def _place(self, ref: PlaceRef):
        place = self.session.places.get(ref.place)
        if place is None:
            raise LabgridError(f"{ref}: no such place (places: {', '.join(sorted(self.session.places)) or 'none'})")
        return place

    async def _acquire(self, ref: PlaceRef) -> list[Resource]:
        s = self.session
        place = await self._place(ref)
        if place.acquired:
            raise LabgridError(f"{ref} is acquired by {place.acquired}")
        s.check_matches(place)            # a match without a resource: the exporter is not there
        await s.stub.AcquirePlace(self.pb2.AcquirePlaceRequest(placename=ref.place))
        await s.sync_with_coordinator()
        try:
            config = s.get_target_config(await self._place(ref))    # what `labgrid-client env` prints
        except BaseException:
            await self._release(ref)
            raise
        return [Resource(cls, (args or {}).get("name", cls), dict(args or {}))
                for entry in config["resources"] for cls, args in entry.items()]

    async def _release(self, ref: PlaceRef) -> None:
        await self.session.stub.ReleasePlace(self.pb2.ReleasePlaceRequest(placename=ref.place))
        await self.session.sync_with_coordinator()

    def acquire(self, ref: PlaceRef) -> list[Resource]:
        """Acquire the place for this host/user; its resources."""
        return self.call(self._acquire(ref), f"{ref}: acquire")

    def release(self, ref: PlaceRef) -> None:
        self.call(self._release(ref), f"{ref}: release")

    def acquired_by(self, ref: PlaceRef) -> str | None:
        """Who holds the place ('host/user'), or None when it is free."""
        async def who():
            return (await self._place(ref)).acquired
        return self.call(who(), f"{ref}: show")


_held: set[LabgridPlace] = set()
_held_lock = threading.Lock()


class LabgridPlace:
    """One labgrid place, acquired for as long as a rig uses it."""

    def __init__(self, ref: PlaceRef) -> None:
        self.ref = ref
        self.resources: list[Resource] = []
        self.acquired = False

    def client(self, *args: str, timeout: float = CLIENT_TIMEOUT) -> str:
        """Run labgrid-client against this place (for what labgrid's CLI does best: power drivers)."""
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
        coordinator = Coordinator.at(self.ref.coordinator)
        try:
            self.resources = coordinator.acquire(self.ref)
        except BaseException:
            # interrupted (Ctrl-C) after the coordinator said yes: give it back, never someone else's
            with contextlib.suppress(Exception):
                if coordinator.acquired_by(self.ref) == coordinator.me:
                    coordinator.release(self.ref)
            raise
        self.acquired = True
        with _held_lock:
            _held.add(self)
        return self

    def release(self) -> None:
        if not self.acquired:
            return
        self.acquired = False
        with _held_lock:
            _held.discard(self)
        Coordinator.at(self.ref.coordinator).release(self.ref)

    # --- what a board of this place uses ----------------------------------------------------------

    def serial_url(self, name: str | None, board: str) -> str:
        """The pyserial URL of the place's NetworkSerialPort ``name`` (default: the only one, or the
        one named after the board)."""
        ports = [r for r in self.resources if r.cls == "NetworkSerialPort"]
        port = self._pick(ports, name, board, "NetworkSerialPort")
        scheme = "socket" if port.params.get("protocol") == "raw" else "rfc2217"
        return f"{scheme}://{port.params['host']}:{port.params['port']}"

    def power_name(self, name: str | None, board: str) -> str | None:
        """The power resource the board's reset goes through, or None (then RTS/DTR): the one the rig
        file names (``labgrid: {power: NAME}``), else the one named ``<board>-power``, else the place's
        only one when the place has only one serial port — never another board's outlet."""
        powers = [r for r in self.resources if r.cls in POWER_RESOURCES]
        if name is not None:
            return self._pick(powers, name, board, "power resource").name
        own = [r for r in powers if r.name == f"{board}-power"]
        if own:
            return own[0].name
        ports = [r for r in self.resources if r.cls == "NetworkSerialPort"]
        return powers[0].name if len(powers) == 1 and len(ports) == 1 else None

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
