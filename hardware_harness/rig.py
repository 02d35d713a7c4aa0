"""Rig: every board of a rig file opened at once, with the operations a conformance run needs.

Lifecycle: ``Rig.open(path)`` (ports open, lines deasserted, nothing reset) -> ``start()`` (reset
every board, wait for the control plane's API URL and every kubelet's ready line) -> scenarios use
``api_url``, ``hold``/``release``, ``restart_control_plane``, ``mark``/``scenario_logs``, ``check``
-> ``close()``.
"""

from __future__ import annotations

import dataclasses
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .board_console import BoardConsole, Mark
from .decode import BacktraceDecoder
from .errors import BadInput, BoardCrashed, FlashError, HarnessError, StateError
from .lab import LabgridPlace, LabgridPower, PlaceRef, coordinator_address
from .resources import BoardSpec, SerialPort
from .rig_file import RigFile, load_rig


def _each(action, consoles) -> None:
    """``action(console)`` for every console at once (an RFC2217 open or close waits ~0.3 s on its own
    round trips); the first board's problem, in rig-file order, is raised after all have finished."""
    consoles = list(consoles)
    if len(consoles) <= 1:
        for console in consoles:
            action(console)
        return
    with ThreadPoolExecutor(len(consoles), thread_name_prefix="rig") as pool:
        futures = [pool.submit(action, console) for console in consoles]
    for future in futures:
        future.result()


@dataclass(frozen=True)
class RigMark:
    """A position in every board's console (``Rig.mark``)."""

    marks: dict[str, Mark]
    t: float


class Rig:
    """All boards of one rig file."""

    def __init__(self, rig_file: RigFile, *, log_dir: str | Path | None = None,
                 elves: dict[str, str] | None = None, toolchain_prefix: str | None = None,
                 boards: list[str] | None = None) -> None:
        """``elves`` (board -> ELF path) and ``toolchain_prefix`` add to / override the rig file's;
        ``boards``: the boards this process uses (default all; ``adopt`` takes more later)."""
        self.rig_file = rig_file
        self.specs: dict[str, BoardSpec] = {s.name: s for s in rig_file.board_specs()}
        self.profile = rig_file.profile
        self.timeouts = rig_file.timeouts
        self.places: dict[PlaceRef, LabgridPlace] = {}
        self.consoles: dict[str, BoardConsole] = {}
        self._log_dir, self._elves, self._toolchain_prefix = log_dir, elves, toolchain_prefix
        unknown = sorted(set(elves or {}) - set(self.specs))
        if unknown:
            raise BadInput(f"--elf names no board of the rig: {', '.join(unknown)} "
                           f"(boards: {', '.join(self.specs)})")
        try:
            self._build(list(self.specs) if boards is None else boards)
        except BaseException:
            self.release_places()
            raise
        self.api_url: str | None = None
        self.boot_reasons: dict[str, str] = {}
        self.failed: dict[str, HarnessError] = {}

    def _reach_labgrid_places(self, boards: list[str]) -> dict[str, LabgridPower]:
        """Acquire the labgrid places of these boards; they get their ports (and power) from them."""
        powers: dict[str, LabgridPower] = {}
        for name in boards:
            spec = self.specs[name]
            if spec.labgrid is None:
                continue
            coordinator, place_name, resource, power = spec.labgrid
            ref = PlaceRef(coordinator_address(coordinator), place_name)
            if ref not in self.places:
                self.places[ref] = LabgridPlace(ref).acquire()
            place = self.places[ref]
            self.specs[name] = dataclasses.replace(spec, port=SerialPort(place.serial_url(resource, name),
                                                                          spec.port.baud))
            power_name = place.power_name(power, name)
            if power_name:
                powers[name] = LabgridPower(place, power_name)
        return powers

    def release_places(self) -> None:
        """Give back every labgrid place this rig acquired (each one tried; the first problem raised)."""
        problems = []
        for place in self.places.values():
            try:
                place.release()
            except HarnessError as exc:
                problems.append(exc)
        if problems:
            raise problems[0]

    def _build(self, boards: list[str]) -> None:
        """Consoles (not yet open) for these boards."""
        powers = self._reach_labgrid_places(boards)
        for name in boards:
            spec = self.specs[name]
            elf = (self._elves or {}).get(name) or spec.elf
            decoder = None
            if elf:
                prefix = spec.toolchain_prefix if self._toolchain_prefix is None else self._toolchain_prefix
                decoder = BacktraceDecoder(elf, prefix)
            self.consoles[name] = BoardConsole(
                name,
                spec.port.url,
                spec.port.baud,
                reset=spec.reset,
                log_path=Path(self._log_dir) / f"{name}.log" if self._log_dir else None,
                decoder=decoder,
                power=powers.get(name),
            )

    def adopt(self, boards: list[str]) -> None:
        """Open the ports of more boards of the rig file (another process had them); nothing reset."""
        new = [b for b in boards if b not in self.consoles]
        self._build(new)
        _each(BoardConsole.open, [self.consoles[b] for b in new])

    @classmethod
    def open(cls, path: str | Path, *, log_dir: str | Path | None = None, **kwargs) -> Rig:
        """Load the rig file and open every port (``kwargs``: ``elves``, ``toolchain_prefix``, ``boards``)."""
        rig = cls(load_rig(path), log_dir=log_dir, **kwargs)
        try:
            _each(BoardConsole.open, rig.consoles.values())
        except BaseException:
            rig.close()
            raise
        return rig

    @classmethod
    def preflight(cls, path: str | Path) -> RigFile:
        """Check a rig file and that every board's port opens (then close them again), before any
        scenario. Raises ``RigFileError`` / ``BoardDisconnected`` with a one-line message."""
        rig = cls.open(path)
        rig.close()
        return rig.rig_file

    def close(self) -> None:
        try:
            _each(BoardConsole.close, getattr(self, "consoles", {}).values())
        finally:
            self.release_places()

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- who is who -------------------------------------------------------------------------------

    @property
    def control_plane(self) -> str:
        return next(name for name, s in self.specs.items() if s.role == "control-plane")

    @property
    def node_boards(self) -> dict[str, str]:
        """node_name -> board name."""
        return {s.node_name: name for name, s in self.specs.items() if s.role == "node" and s.node_name}

    def own_node_boards(self) -> list[str]:
        """The node boards whose ports this process has open."""
        return [b for b in self.node_boards.values() if b in self.consoles]

    def board_of(self, node_or_board: str) -> str:
        if node_or_board in self.specs:
            return node_or_board
        boards = self.node_boards
        if node_or_board in boards:
            return boards[node_or_board]
        raise HarnessError(
            f"no board or node named {node_or_board!r} in the rig; boards: {', '.join(self.specs)}; "
            f"nodes: {', '.join(boards) or 'none'}"
        )

    # --- firmware -----------------------------------------------------------------------------------

    def flash(self, board: str, image: str, *, address: int = 0, chip: str = "auto", baud: int = 460800,
              **kwargs) -> str:
        """Write ``image`` to one board with esptool (its port is released meanwhile); esptool's output."""
        return self.consoles[board].flash(image, address, chip=chip, baud=baud, **kwargs)

    def flash_all(self) -> list[str]:
        """Write every board's ``flash:`` image of the rig file (before the first scenario); boards flashed."""
        done = []
        for name, spec in self.specs.items():
            if spec.flash is not None and name in self.consoles:
                image, address, chip, baud = spec.flash
                try:
                    self.flash(name, image, address=address, chip=chip, baud=baud)
                except FlashError as exc:
                    raise FlashError(f"board {name}: flashing {image} before the run failed: {exc}") from exc
                done.append(name)
        return done

    # --- boot ---------------------------------------------------------------------------------------

    def start(self, *, keep_going: bool = False, api_url: str | None = None) -> str:
        """Reset every board (control plane first), wait until the API and all kubelets are up.

        Crashes seen before start (boards booting while the ports were opened) are dropped: the
        resets put every board in a known state. With ``keep_going`` a node board that does not come
        up is recorded in ``failed`` (board -> error) instead of failing the start; the control
        plane must always come up. Only the boards this process has open are reset; without the
        control plane's, ``api_url`` is where another process started it.
        """
        self.failed: dict[str, HarnessError] = {}
        for console in self.consoles.values():
            console.acknowledge_crashes()
        if self.control_plane in self.consoles:
            self.restart_control_plane()
        else:
            self.api_url = api_url
        marks = {}
        for board in self.own_node_boards():
            marks[board] = self.consoles[board].mark()
            try:
                self._reset(board)
            except HarnessError as exc:
                if not keep_going:
                    raise
                self.failed[board] = exc
        for board in self.own_node_boards():
            if board in self.failed:
                continue
            try:
                self._wait_node(board, marks[board])
            except HarnessError as exc:
                if not keep_going:
                    raise
                self.failed[board] = exc
        return self.api_url or ""

    def restart_control_plane(self) -> str:
        """Reset the control-plane board and wait for its API URL (read from the boot log if a pattern)."""
        name = self.control_plane
        mark = self.consoles[name].mark()
        self._reset(name)
        return self._wait_control_plane(name, mark)

    def wait_booted(self, board: str, since: Mark | None = None) -> None:
        spec = self.specs[board]
        console = self.consoles[board]
        m = console.expect(r"rst:0x[0-9a-fA-F]+ \(", self.timeouts.boot, since=since)
        self.boot_reasons[board] = m.line.text
        console.expect(spec.booted, self.timeouts.boot)

    def _reset(self, board: str) -> None:
        console = self.consoles[board]
        if self.specs[board].reset == "none":
            return
        console.reset()

    def _wait_control_plane(self, name: str, mark: Mark) -> str:
        spec = self.specs[name]
        if spec.reset == "none" and spec.api_url_fixed:
            self.api_url = spec.api_url_fixed   # not reset, so no boot to wait for (the rig file says where)
            return self.api_url
        self.wait_booted(name, mark)
        if spec.api_url_fixed:
            self.api_url = spec.api_url_fixed
        else:
            assert spec.api_url_pattern is not None
            m = self.consoles[name].expect(spec.api_url_pattern, self.timeouts.boot, since=mark)
            self.api_url = m.group(1)
        return self.api_url

    def _wait_node(self, board: str, mark: Mark) -> None:
        spec = self.specs[board]
        if spec.reset == "none":
            return   # not reset: its boot log is long gone; the runner judges the Node over the API
        self.wait_booted(board, mark)
        assert spec.kubelet_ready is not None
        self.consoles[board].expect(spec.kubelet_ready, self.timeouts.ready)

    # --- faults a scenario can cause -------------------------------------------------------------------

    def hold(self, node: str) -> None:
        """Hold a node's board in reset (EN low): the node stops renewing its Lease."""
        board = self.board_of(node)
        self.consoles[board].hold()

    def release(self, node: str, *, wait_ready: bool = True) -> None:
        """Release a held board; by default wait until its kubelet says it is ready again."""
        board = self.board_of(node)
        mark = self.consoles[board].mark()
        self.consoles[board].release()
        if wait_ready:
            if self.specs[board].role == "node":
                self._wait_node(board, mark)
            else:
                self._wait_control_plane(board, mark)

    def release_all(self, boards: list[str]) -> dict[str, HarnessError]:
        """Release several held boards at once and wait for each; board -> error for those that failed."""
        marks = {board: self.consoles[board].mark() for board in boards}
        failed: dict[str, HarnessError] = {}
        for board in boards:
            try:
                self.consoles[board].release()
            except HarnessError as exc:
                failed[board] = exc
        for board in boards:
            if board in failed:
                continue
            try:
                if self.specs[board].role == "node":
                    self._wait_node(board, marks[board])
                else:
                    self._wait_control_plane(board, marks[board])
            except HarnessError as exc:
                failed[board] = exc
        return failed

    def reset(self, node: str) -> None:
        board = self.board_of(node)
        mark = self.consoles[board].mark()
        self._reset(board)
        if self.specs[board].role == "node":
            self._wait_node(board, mark)
        else:
            self._wait_control_plane(board, mark)

    # --- logs and health ---------------------------------------------------------------------------------

    def mark(self) -> RigMark:
        return RigMark({name: c.mark() for name, c in self.consoles.items()}, time.time())

    def scenario_logs(self, since: RigMark, until: RigMark | None = None) -> dict[str, str]:
        """board name -> timestamped console text between two marks."""
        return {
            name: c.text(since.marks.get(name), until.marks.get(name) if until else None)
            for name, c in self.consoles.items()
        }

    def note(self, text: str, boards: list[str] | None = None) -> None:
        """Write a harness annotation into the console buffers of ``boards`` (default: all)."""
        for name in boards or list(self.consoles):
            self.consoles[name].note(text)

    def crashes_since(self, since: RigMark) -> dict[str, list]:
        out = {}
        for name, c in self.consoles.items():
            start = since.marks[name].index if name in since.marks else 0
            found = [r for r in c.crashes if r.index >= start]
            if found:
                out[name] = found
        return out

    def drain(self) -> None:
        """Take in everything the boards have said until now: wait ``timeouts.settle`` for bytes in
        flight (UART, ser2net, network), then let open crash blocks finish (``crash_grace`` each)."""
        time.sleep(self.timeouts.settle)
        for console in self.consoles.values():
            if console.is_open:
                console.finish_crash(console.crash_grace + self.timeouts.settle)

    def check(self) -> None:
        """Raise the first unreported crash or disconnect of any board."""
        errors: list[BoardCrashed] = []
        for console in self.consoles.values():
            try:
                console.check()
            except BoardCrashed as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def require_started(self) -> str:
        if self.api_url is None:
            raise StateError("the rig has not been started: call start() before using api_url")
        return self.api_url

    def find_in_log(self, board: str, pattern: str, since: Mark | None = None) -> re.Match[str] | None:
        rx = re.compile(pattern)
        for line in self.consoles[board].slice(since):
            m = rx.search(line.text)
            if m:
                return m
        return None
