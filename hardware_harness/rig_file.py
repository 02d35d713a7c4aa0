"""Rig file: the YAML description of a rig's boards, validated strictly with pydantic.

    profile: hardware                 # timing profile the rig runs (default hardware)
    profile_set: {lease_duration: 4}  # optional: profile fields the firmware was built with differently
    timeouts: {boot: 20, ready: 60, settle: 0.3}   # optional, seconds
    boards:
      cp:
        url: rfc2217://hilpi:4000     # any pyserial URL: /dev/ttyUSB0, rfc2217://, vboard://
        baud: 115200                  # default
        role: control-plane           # exactly one board has this role
        api_url: {pattern: 'api listening on (http://\\S+)'}   # or {fixed: http://10.0.0.2:6443}
        booted: 'main_task: Calling app_main\\(\\)'             # optional regex
        reset: rts                    # rts (DevKit EN on RTS) | none (never reset; no boot is awaited)
        elf: build/kube32.elf         # optional: decode backtraces (toolchain_prefix: xtensa-esp32-elf-)
        flash: {image: build/kube32.bin, address: 0x10000}   # optional: esptool writes it before a run
      node-a:
        url: /dev/serial/by-id/usb-Silicon_Labs_CP2102-if00
        role: node
        node_name: node-a
        kubelet_ready: 'kubelet: kubelet ready'

A board may instead live in a labgrid place (labgrid >= 24): ``labgrid: {coordinator: HOST:PORT,
place: NAME}`` for the whole rig or per board, ``resource:`` / ``power:`` per board when the place
has several; then it has no ``url`` (the place's NetworkSerialPort is used).

Errors name the field path: ``boards.node-a.role: must be one of control-plane, node``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from kube32.spec.strict import Strict, problems

from .errors import RigFileError
from .resources import DEFAULT_BAUD, BoardSpec, SerialPort

DEFAULT_BOOTED = r"main_task: Calling app_main\(\)"
DEFAULT_KUBELET_READY = r"kubelet: kubelet ready"


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from exc
    return value


class ApiUrl(Strict):
    fixed: str | None = None
    pattern: str | None = None

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, v: str | None) -> str | None:
        if v is not None and re.compile(_regex(v)).groups < 1:
            raise ValueError("needs a capturing group around the URL, e.g. 'listening on (http://\\S+)'")
        return v

    @model_validator(mode="after")
    def _one(self) -> ApiUrl:
        if (self.fixed is None) == (self.pattern is None):
            raise ValueError("give exactly one of fixed: URL or pattern: regex")
        return self


class Labgrid(Strict):
    """A labgrid place (rig-wide or per board): the board's port and power come from its resources."""

    coordinator: str | None = None     # HOST:PORT of the labgrid coordinator (gRPC, labgrid >= 24)
    place: str | None = None
    resource: str | None = None        # the place's NetworkSerialPort for this board (per board)
    power: str | None = None           # the place's power resource for this board (per board)


class Flash(Strict):
    """Firmware ``run --rig`` writes with esptool before the first scenario."""

    image: str = Field(min_length=1)
    address: int = Field(default=0, ge=0)        # 0x10000 for an app image, 0x0 for a merged binary
    chip: str = "auto"
    baud: int = Field(default=460800, gt=0)


class BoardEntry(Strict):
    url: str | None = Field(default=None, min_length=1)   # or a labgrid place's NetworkSerialPort
    baud: int = Field(default=DEFAULT_BAUD, gt=0)
    role: Literal["control-plane", "node"]
    node_name: str | None = None
    api_url: ApiUrl | None = None
    booted: str = DEFAULT_BOOTED
    kubelet_ready: str | None = None
    reset: Literal["rts", "none"] = "rts"
    elf: str | None = None                       # firmware ELF: backtraces decoded with addr2line
    toolchain_prefix: str = "xtensa-esp32-elf-"  # riscv32-esp-elf- for C3/C6/H2; "" = host addr2line
    labgrid: Labgrid | None = None
    flash: Flash | None = None

    _re = field_validator("booted", "kubelet_ready")(classmethod(lambda cls, v: v if v is None else _regex(v)))

    @model_validator(mode="after")
    def _by_role(self) -> BoardEntry:
        if self.role == "node" and not self.node_name:
            raise ValueError("a node board needs node_name (the Node object's name)")
        if self.role == "control-plane" and self.api_url is None:
            raise ValueError("the control-plane board needs api_url: {fixed: URL} or {pattern: regex}")
        if self.role == "control-plane" and self.reset == "none" and self.api_url and self.api_url.pattern:
            raise ValueError("a board with reset: none is never rebooted, so its API URL cannot be read from "
                             "a boot log; give api_url: {fixed: URL}")
        if self.role == "control-plane" and self.node_name:
            raise ValueError("node_name is only for node boards")
        return self


class Timeouts(Strict):
    boot: float = Field(default=30.0, gt=0)
    ready: float = Field(default=60.0, gt=0)
    # how long a board's last bytes may take to reach the runner (UART, ser2net, network): a
    # scenario's verdict waits this long for a crash that happened in its last step
    settle: float = Field(default=0.3, ge=0)


class RigFile(Strict):
    labgrid: Labgrid | None = None     # {coordinator: HOST:PORT, place: NAME} for every board
    profile: Literal["hardware", "simulator"] = "hardware"
    profile_set: dict[str, float] = {}
    timeouts: Timeouts = Timeouts()
    boards: dict[str, BoardEntry]

    @field_validator("profile_set")
    @classmethod
    def _profile_fields(cls, values: dict[str, float]) -> dict[str, float]:
        import dataclasses

        from kube32.spec.profiles import Profile

        known = {f.name for f in dataclasses.fields(Profile)} - {"name"}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown timing-profile field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        bad = sorted(k for k, v in values.items() if v <= 0)
        if bad:
            raise ValueError(f"must be positive seconds: {', '.join(bad)}")
        return values

    @field_validator("boards")
    @classmethod
    def _one_control_plane(cls, boards: dict[str, BoardEntry]) -> dict[str, BoardEntry]:
        cps = [name for name, b in boards.items() if b.role == "control-plane"]
        if len(cps) != 1:
            raise ValueError(f"exactly one board must have role: control-plane, found {len(cps)} ({', '.join(cps) or 'none'})")
        names = [b.node_name for b in boards.values() if b.node_name]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"node_name used by more than one board: {', '.join(dupes)}")
        return boards

    @model_validator(mode="after")
    def _ports(self) -> RigFile:
        rig = self.labgrid
        if rig is not None and (rig.resource or rig.power):
            raise ValueError("labgrid: resource and power name one board's resources; give them per board")
        # these problems name their field themselves (the check spans the rig and its boards)
        for name, b in self.boards.items():
            lg = self.labgrid_of(name)
            if b.url and b.labgrid:
                raise ValueError(f"boards.{name}: give url or labgrid, not both")
            if b.url is None and lg is None:
                raise ValueError(f"boards.{name}.url: required (a pyserial URL), unless the board or the rig "
                                 "names a labgrid place (labgrid: {coordinator: HOST:PORT, place: NAME})")
            if lg is not None and (not lg.coordinator or not lg.place):
                raise ValueError(f"boards.{name}.labgrid: needs coordinator and place (per board or for the "
                                 "whole rig)")
        return self

    def labgrid_of(self, board: str) -> Labgrid | None:
        """The board's effective labgrid place (its own fields over the rig's), None for a plain port."""
        b = self.boards[board]
        if b.url:
            return None
        rig, own = self.labgrid, b.labgrid
        if rig is None and own is None:
            return None
        merged = {**(rig.model_dump(exclude_none=True) if rig else {}),
                  **(own.model_dump(exclude_none=True) if own else {})}
        return Labgrid(**merged)

    def board_specs(self) -> list[BoardSpec]:
        out = []
        for name, b in self.boards.items():
            lg = self.labgrid_of(name)
            out.append(
                BoardSpec(
                    name=name,
                    port=SerialPort(b.url or f"labgrid://{lg.place}/{lg.resource or name}", b.baud),
                    role=b.role,
                    reset=b.reset,
                    node_name=b.node_name,
                    booted=b.booted,
                    kubelet_ready=(b.kubelet_ready or DEFAULT_KUBELET_READY) if b.role == "node" else None,
                    api_url_fixed=b.api_url.fixed if b.api_url else None,
                    api_url_pattern=b.api_url.pattern if b.api_url else None,
                    elf=b.elf,
                    toolchain_prefix=b.toolchain_prefix,
                    labgrid=(lg.coordinator, lg.place, lg.resource, lg.power) if lg else None,
                    flash=(b.flash.image, b.flash.address, b.flash.chip, b.flash.baud) if b.flash else None,
                )
            )
        return out


def _problems(exc: ValidationError) -> list[str]:
    """Field problems; a rig-wide check that names its field itself loses the "(top level)" prefix."""
    return [p.removeprefix("(top level): ") if p.startswith(("(top level): boards.", "(top level): labgrid"))
            else p for p in problems(exc)]


def parse_rig(data: object, source: str = "<rig>") -> RigFile:
    """Validate an already-loaded YAML document."""
    if not isinstance(data, dict):
        raise RigFileError(source, [f"(top level): expected a mapping with boards:, got {type(data).__name__}"])
    try:
        return RigFile.model_validate(data)
    except ValidationError as exc:
        raise RigFileError(source, _problems(exc)) from None


def load_rig(path: str | Path) -> RigFile:
    """Read and validate a rig file; ``RigFileError`` names every bad field by its path."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise RigFileError(str(path), [f"cannot read: {exc}"]) from exc
    except yaml.YAMLError as exc:
        raise RigFileError(str(path), [f"not valid YAML: {exc}"]) from exc
    return parse_rig(data, str(path))
