"""Rig commands: ``rig check`` (reset every board, report what booted), ``rig monitor`` and
``rig virtual`` (virtual boards to try the rig flow without hardware).

``add_subparsers(subparsers)`` adds ``check`` and ``monitor`` to an argparse subparsers object
(hooked under ``kube32-conformance rig``); ``main(argv)`` runs them standalone
(``python -m kube32.harness.cli check rig.yaml``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from . import monitor
from .decode import parse_elf_args
from .errors import EXIT_BAD_INPUT, FlashError, HarnessError, exit_status
from .rig import Rig


@dataclass
class BoardReport:
    board: str
    url: str
    role: str
    ok: bool = False
    reset_reason: str | None = None
    api_url: str | None = None
    node_name: str | None = None
    error: str | None = None


@dataclass
class RigCheckReport:
    rig_file: str
    boards: list[BoardReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(b.ok for b in self.boards)

    def format(self) -> str:
        lines = [f"rig {self.rig_file}: {'OK' if self.ok else 'FAILED'}"]
        for b in self.boards:
            status = "ok" if b.ok else "FAILED"
            details = [f"reset: {b.reset_reason or '-'}"]
            if b.api_url:
                details.append(f"api: {b.api_url}")
            if b.node_name:
                details.append(f"node: {b.node_name}")
            lines.append(f"  {b.board:<16} {b.role:<14} {status:<7} {b.url}  " + "  ".join(details))
            if b.error:
                lines += [f"      {line}" for line in b.error.splitlines()]
        return "\n".join(lines)


def rig_check(rig_file: str | Path, *, log_dir: str | Path | None = None) -> RigCheckReport:
    """Open every board, reset it, wait for boot; report reset reason, API URL and node name."""
    report = RigCheckReport(str(rig_file))
    with Rig.open(rig_file, log_dir=log_dir) as rig:
        order = [rig.control_plane] + [b for b in rig.specs if b != rig.control_plane]
        for name in order:
            spec = rig.specs[name]
            entry = BoardReport(name, spec.port.url, spec.role, node_name=spec.node_name)
            report.boards.append(entry)
            try:
                if spec.role == "control-plane":
                    entry.api_url = rig.restart_control_plane()
                else:
                    rig.reset(name)
                entry.ok = True
            except HarnessError as exc:
                entry.error = str(exc)
            reason = rig.boot_reasons.get(name)
            if reason:
                entry.reset_reason = reason.split(",")[0].removeprefix("rst:")
    return report


def rig_monitor(rig_file: str | Path, out: TextIO, duration: float | None = None, *,
                print_filter: str = "", colour: bool | None = None, elves: dict[str, str] | None = None,
                toolchain_prefix: str | None = None, log_dir: str | Path | None = None,
                queue_lines: int = monitor.QUEUE_LINES, keys: int | None = None) -> monitor.Printer:
    """Show every board's console as idf.py monitor would (prefixed by the board name) for ``duration``
    seconds or until Ctrl-C: coloured by level when ``out`` is a TTY (``colour`` None), filtered by
    ``print_filter`` (idf.py monitor syntax), control characters escaped, backtraces decoded for the
    boards with an ELF; a terminal that cannot keep up gets an "N bytes dropped" note, never a stall.
    It first says which boards it shows and, when ``keys`` (a file descriptor: the terminal) is given,
    takes idf.py monitor's keys from it (``monitor.KeyCommands``: reset a board, reset all, quit)."""
    pf = monitor.PrintFilter(print_filter)
    with Rig.open(rig_file, log_dir=log_dir, elves=elves, toolchain_prefix=toolchain_prefix) as rig:
        names = list(rig.consoles)
        for line in monitor.banner(str(rig_file), [(n, rig.specs[n].role, rig.specs[n].port.url) for n in names],
                                   keys is not None):
            out.write(line + "\n")
        out.flush()
        width = max(len(n) for n in names)
        if colour is None:
            colour = bool(getattr(out, "isatty", lambda: False)())
        printer = monitor.Printer(out, width=width, colour=colour, print_filter=pf, limit=queue_lines)
        for console in rig.consoles.values():
            console.add_listener(printer)
        quit_ = threading.Event()
        reader = threading.Thread(target=_take_keys, args=(keys, rig, names, printer, quit_), name="monitor-keys",
                                  daemon=True)
        if keys is not None:
            reader.start()
        deadline = None if duration is None else time.monotonic() + duration
        try:
            while (deadline is None or time.monotonic() < deadline) and not quit_.is_set():
                quit_.wait(0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic())))
        except KeyboardInterrupt:
            pass
        quit_.set()
        if reader.is_alive():
            reader.join(1)
    printer.close()
    return printer


def _take_keys(fd: int, rig: Rig, names: list[str], printer: monitor.Printer, quit_: threading.Event) -> None:
    """Read key presses from ``fd`` until quit; resets run on threads of their own (a pulse each)."""
    import os
    import select

    commands = monitor.KeyCommands(names)
    while not quit_.is_set():
        try:
            ready, _, _ = select.select([fd], [], [], 0.1)
            data = os.read(fd, 64) if ready else b"-"
        except OSError:          # the terminal went away
            return
        if not data:
            return
        if not ready:
            continue
        for key in data.decode("utf-8", "replace"):
            action = commands.feed(key)
            if action is None:
                continue
            what, boards = action
            if what == "quit":
                quit_.set()
                return
            if what == "reset":
                for name in boards:
                    printer.say(name, "--- reset from the keyboard")
                    threading.Thread(target=_reset, args=(rig, name, printer), daemon=True).start()
            else:
                printer.say("monitor", monitor.help_line(True) if what == "help"
                            else f"--- unknown key after Ctrl+T: {boards[0]!r} (Ctrl+T then H shows the keys)")


def _reset(rig: Rig, name: str, printer: monitor.Printer) -> None:
    try:
        rig.consoles[name].reset()
    except HarnessError as exc:
        printer.say(name, f"--- reset failed: {one_line(exc)}")


def one_line(exc: BaseException) -> str:
    """A harness error as the one line the CLI prints (first line; rig file errors are one line)."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def preflight(rig_files: list[str]) -> tuple[int, str] | None:
    """Every rig file valid and every port openable (all rigs at once)? ``(exit status, one line)`` of
    the first rig's problem (``exit_status``: a bad file is 2, a rig that cannot be reached 10), or None
    (``run --rig``)."""
    def check(path: str) -> HarnessError | None:
        try:
            Rig.preflight(path)
        except HarnessError as exc:
            return exc
        return None

    with ThreadPoolExecutor(max(1, len(rig_files)), thread_name_prefix="preflight") as pool:
        problems = list(pool.map(check, rig_files))
    exc = next((p for p in problems if p is not None), None)
    return None if exc is None else (exit_status(exc), one_line(exc))


def _fail(exc: HarnessError) -> int:
    """Before any board is used: one line on stderr, the status of its kind."""
    print(one_line(exc), file=sys.stderr)
    return exit_status(exc)


def _cmd_check(args: argparse.Namespace) -> int:
    try:
        report = rig_check(args.rig_file, log_dir=args.log_dir)
    except HarnessError as exc:
        return _fail(exc)
    print(report.format())
    return 0 if report.ok else 1


def _cmd_monitor(args: argparse.Namespace) -> int:
    colour = {"auto": None, "always": True, "never": False}[args.color]
    try:
        with _keys_from_the_terminal() as keys:
            rig_monitor(args.rig_file, sys.stdout, args.duration, print_filter=args.print_filter, colour=colour,
                        elves=parse_elf_args(args.elf), toolchain_prefix=args.toolchain_prefix,
                        log_dir=args.log_dir, keys=keys)
    except monitor.FilterError as exc:
        print(f"rig monitor: --print-filter: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except HarnessError as exc:
        return _fail(exc)
    return 0


@contextlib.contextmanager
def _keys_from_the_terminal():
    """Standard input's descriptor in cbreak mode (each key at once, Ctrl+C still a signal) while the
    monitor runs, when it is a terminal; else None (no keys)."""
    if not sys.stdin.isatty():
        yield None
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield fd
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _cmd_virtual(args: argparse.Namespace) -> int:
    """Virtual boards behind RFC2217 servers on 127.0.0.1 until Ctrl-C, and the rig file for them."""
    import signal
    import tempfile

    from .virtual import VirtualRig

    nodes = [n.strip() for n in args.nodes.split(",") if n.strip()]
    if not args.control_plane and not args.api_url:
        print("rig virtual: --no-control-plane needs --api-url URL (the kube32 API the node boards join)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    overrides = {}
    for item in args.profile_set or []:
        key, _, value = item.partition("=")
        overrides[key.strip()] = float(value)
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="kube32-virtual-rig-"))
    vrig = VirtualRig(workdir, nodes, transport=args.transport, control_plane=args.control_plane,
                      api_url=args.api_url, profile=args.profile, overrides=overrides,
                      lease_interval=overrides.get("lease_renew_interval"),
                      lease_duration=overrides.get("lease_duration"), rig_path=args.write)
    signal.signal(signal.SIGTERM, signal.default_int_handler)   # stop cleanly on kill, too
    try:
        vrig.start()
        print(f"virtual rig: {len(vrig.boards)} board(s), rig file {vrig.rig_path} (Ctrl-C stops)")
        print(f"  control plane: {vrig.api_url}")
        for name in vrig.boards:
            print(f"  {name:<16} {vrig._url(name)}")
        sys.stdout.flush()
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        vrig.stop()
    return 0


def _cmd_flash(args: argparse.Namespace) -> int:
    """esptool write_flash on one board of the rig (a labgrid place is acquired and released around it)."""
    try:
        with Rig.open(args.rig_file) as rig:
            if args.board not in rig.specs:
                print(f"rig flash: no board {args.board!r} in {args.rig_file} (boards: {', '.join(rig.specs)})",
                      file=sys.stderr)
                return EXIT_BAD_INPUT
            out = rig.flash(args.board, args.image, address=args.address, chip=args.chip, baud=args.baud,
                            connect_attempts=args.connect_attempts)
    except FlashError as exc:
        print(one_line(exc), file=sys.stderr)
        return 1
    except HarnessError as exc:
        return _fail(exc)
    print(out.rstrip())
    print(f"flashed {args.image} to board {args.board} at 0x{args.address:x}")
    return 0


def add_subparsers(subparsers) -> None:
    """Add ``check``, ``monitor`` and ``virtual``; each sets ``func(args) -> exit code``."""
    p = subparsers.add_parser("check", help="reset every board of a rig and report what booted")
    p.add_argument("rig_file", help="rig YAML file")
    p.add_argument("--log-dir", default=None, help="write one console log per board here")
    p.set_defaults(func=_cmd_check)
    p = subparsers.add_parser("monitor", help="show every board's console, prefixed by board name")
    p.add_argument("rig_file", help="rig YAML file")
    p.add_argument("--duration", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--print-filter", default="", metavar="'TAG:LEVEL ...'",
                   help="idf.py monitor's filter, e.g. 'kubelet:I wifi:W *:E' (levels N E W I D V)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour log lines by level (E red, W yellow, I green); auto: when a terminal")
    p.add_argument("--elf", action="append", metavar="BOARD=PATH",
                   help="decode this board's backtraces with its firmware ELF (repeatable)")
    p.add_argument("--toolchain-prefix", default=None, metavar="PREFIX",
                   help="addr2line prefix for every board (default: the rig file's, xtensa-esp32-elf-)")
    p.add_argument("--log-dir", default=None, help="also write one console log per board here")
    p.set_defaults(func=_cmd_monitor)
    p = subparsers.add_parser("flash", help="write a firmware image to one board with esptool")
    p.add_argument("rig_file", help="rig YAML file")
    p.add_argument("--board", required=True, help="the board (its name in the rig file)")
    p.add_argument("--image", required=True, help="the binary to write")
    p.add_argument("--address", type=lambda v: int(v, 0), default=0x0,
                   help="flash offset (default 0x0: a merged image; 0x10000 for an app image)")
    p.add_argument("--chip", default="auto", help="esptool --chip (default auto)")
    p.add_argument("--baud", type=int, default=460800, help="esptool --baud (default %(default)s)")
    p.add_argument("--connect-attempts", type=int, default=None, help="esptool --connect-attempts")
    p.set_defaults(func=_cmd_flash)
    p = subparsers.add_parser("virtual", help="start virtual boards (until Ctrl-C) and write their rig file")
    p.add_argument("--nodes", default="node-a,node-b", help="node board names, comma-separated (default %(default)s)")
    p.add_argument("--transport", choices=("rfc2217",), default="rfc2217",
                   help="how other processes reach the boards: RFC2217 servers on 127.0.0.1")
    p.add_argument("--control-plane", action=argparse.BooleanOptionalAction, default=True,
                   help="a virtual control-plane board running the reference (default); without it, "
                        "give --api-url")
    p.add_argument("--api-url", default=None, help="the kube32 API the node boards join (--no-control-plane)")
    p.add_argument("--profile", choices=("hardware", "simulator"), default="hardware")
    p.add_argument("--profile-set", action="append", metavar="FIELD=SECONDS",
                   help="timing-profile fields for the control plane and the kubelets, e.g. lease_duration=4")
    p.add_argument("--workdir", default=None, help="where the control plane keeps its data (default: a temp dir)")
    p.add_argument("--write", required=True, metavar="RIG.yaml", help="write the rig file here")
    p.set_defaults(func=_cmd_virtual)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rig")
    add_subparsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
