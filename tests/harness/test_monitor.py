"""Consoles as idf.py monitor shows them: print filter, colours, escaped control characters, bounded
memory with an honest drop count on floods, and backtraces decoded through esp-idf-panic-decoder
with a host ELF and the host's addr2line (no Xtensa toolchain needed)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import threading
import time

import pytest

from kube32.harness import BoardConsole, BoardCrashed
from kube32.harness.cli import rig_monitor
from kube32.harness.console import parse_line
from kube32.harness.decode import BacktraceDecoder, DecoderError, parse_elf_args
from kube32.harness.monitor import FilterError, KeyCommands, Printer, PrintFilter, render
from kube32.harness.virtual import IdleFirmware, VirtualRig


@pytest.mark.parametrize(
    ("spec", "line", "shown"),
    [
        ("", "I (10) wifi: up", True),
        ("", "plain text", True),
        ("wifi:W", "W (10) wifi: weak", True),
        ("wifi:W", "I (10) wifi: up", False),
        ("wifi:W", "E (10) kubelet: boom", False),            # no '*': other tags are not shown
        ("wifi:W", "plain text", False),
        ("wifi:W *:E", "E (10) kubelet: boom", True),
        ("wifi:W *:E", "I (10) kubelet: ok", False),
        ("wifi:W *:E", "plain text", True),
        ("kubelet", "V (10) kubelet: verbose", True),           # no level = V
        ("*:N", "E (10) kubelet: boom", False),
        ("*:N", "plain text", False),
        ("kubelet:*", "D (10) kubelet: debug", True),
    ],
)
def test_print_filter_follows_idf_monitor(spec, line, shown):
    assert PrintFilter(spec).shows(parse_line(line.encode())) is shown


@pytest.mark.parametrize("spec", [":W", "wifi:X", "a:b:c"])
def test_print_filter_rejects_what_idf_monitor_rejects(spec):
    with pytest.raises(FilterError):
        PrintFilter(spec)


def test_levels_are_coloured_as_esp_idf_colours_them_and_control_characters_escaped():
    assert render(parse_line(b"\x1b[0;31mE (1) app: bad\x1b[0m"), colour=True) == "\x1b[0;31mE (1) app: bad\x1b[0m"
    assert render(parse_line(b"W (1) app: meh"), colour=True) == "\x1b[0;33mW (1) app: meh\x1b[0m"
    assert render(parse_line(b"I (1) app: ok"), colour=True) == "\x1b[0;32mI (1) app: ok\x1b[0m"
    assert render(parse_line(b"D (1) app: dbg"), colour=True) == "D (1) app: dbg"
    assert render(parse_line(b"I (1) app: ok"), colour=False) == "I (1) app: ok"
    shown = render(parse_line(b"evil \x00 \x1b]0;title\x07 \xff end"), colour=True)
    assert shown == "evil \\x00 \\x1b]0;title\\x07 \\xff end"
    assert not any(ord(c) < 0x20 for c in shown)


class SlowTerminal(io.StringIO):
    """A terminal slower than the board: every write takes a little while."""

    def write(self, text: str) -> int:
        time.sleep(0.0002)
        return super().write(text)


def test_a_10_mb_flood_stays_bounded_and_every_byte_is_shown_or_counted_as_dropped(make_board, tmp_path):
    board = make_board()
    while board.state != "running":     # the firmware hears the host only once it runs
        time.sleep(0.01)
    log = tmp_path / "flood.log"
    console = BoardConsole(board.name, f"vboard://{board.name}", log_path=log, max_buffer=1024 * 1024).open()
    out = SlowTerminal()
    printer = Printer(out, width=len(board.name), limit=1000)
    console.add_listener(printer)
    lines = 100_000
    sent = 0
    try:
        # the firmware answers ``ping`` only once its boot log is out: after "pong" only the flood is heard
        console.write_line("ping")
        deadline = time.monotonic() + 60
        while "pong" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "pong" in out.getvalue(), "the board did not answer ping"
        before, printed_before = console.mark().index, printer.printed_bytes[board.name]
        for chunk in range(0, lines, 1000):
            data = b"".join(b"I (%d) flood: line %08d %s\n" % (i, i, b"x" * 70) for i in range(chunk, chunk + 1000))
            board.inject(data)
            sent += len(data)
        assert sent >= 10_000_000
        deadline = time.monotonic() + 120
        while console.mark().index < before + lines and time.monotonic() < deadline:
            time.sleep(0.05)
        assert console.mark().index == before + lines, "the console did not take in the whole flood"
        # memory: bounded by max_buffer; what was forgotten is counted and said, the log file has all
        assert console._kept <= console.max_buffer
        assert console.dropped_lines > 0 and console.dropped_bytes > 0
        first = console.slice()[0]
        assert "earlier lines dropped from memory (console buffer limit 1048576 bytes" in first.text
        assert console.disconnected is None
    finally:
        console.close()
        printer.close(timeout=120)
    assert sum(1 for _ in log.open()) == before + lines
    shown = out.getvalue()
    assert "disconnected" not in shown
    dropped = printer.dropped()
    assert not dropped                     # every drop was reported ...
    notes = [line for line in shown.splitlines() if "bytes dropped" in line]
    assert notes, "a terminal slower than the flood must drop lines and say so"
    noted = sum(int(n.split("--- ")[1].split()[0]) for n in notes)
    assert printer.printed_bytes[board.name] - printed_before + noted == sent   # ... and nothing vanished unsaid


# A tiny freestanding "firmware", built by the host gcc as a 32-bit ELF linked where an ESP32's
# flash code lives (IROM, 0x400d0000): addresses look like an ESP32 backtrace's, and the host's
# addr2line decodes them as xtensa-esp32-elf-addr2line decodes a real one.
FIRMWARE_C = """\
int kube32_crash_here(int x) { volatile int *p = 0; return *p + x; }
int kube32_caller(int x) { return kube32_crash_here(x) + 1; }
"""


@pytest.fixture(scope="module")
def host_elf(tmp_path_factory):
    if shutil.which("gcc") is None or shutil.which("addr2line") is None or shutil.which("ld") is None:
        pytest.skip("needs gcc, ld and addr2line on the host")
    d = tmp_path_factory.mktemp("elf")
    (d / "fw.c").write_text(FIRMWARE_C)
    subprocess.run(["gcc", "-g", "-O0", "-m32", "-ffreestanding", "-nostdlib", "-fno-pic", "-c", "-o",
                    str(d / "fw.o"), str(d / "fw.c")], check=True)
    subprocess.run(["ld", "-m", "elf_i386", "-Ttext=0x400d0000", "-e", "kube32_caller", "-o", str(d / "fw.elf"),
                    str(d / "fw.o")], check=True)
    symbols = subprocess.run(["nm", str(d / "fw.elf")], capture_output=True, text=True, check=True).stdout
    addr = {name: int(a, 16) for a, _, name in (line.split() for line in symbols.splitlines() if len(line.split()) == 3)}
    return d / "fw.elf", addr


def test_a_host_elf_backtrace_is_decoded_into_functions_and_lines(host_elf):
    elf, addr = host_elf
    decoder = BacktraceDecoder(elf, toolchain_prefix="")
    pcs = [addr["kube32_crash_here"] + 8, addr["kube32_caller"] + 8]
    frames = decoder.decode("Backtrace: " + " ".join(f"0x{pc:08x}:0x3ffb0000" for pc in pcs))
    assert frames[0].startswith(f"0x{pcs[0]:08x}: kube32_crash_here at ") and "fw.c:1" in frames[0]
    assert any(f.startswith(f"0x{pcs[1]:08x}: kube32_caller at ") and "fw.c:2" in f for f in frames)
    assert decoder.decode("nothing to see 0x3ffb0000") == []


def test_decoded_frames_reach_the_error_the_log_and_the_monitor(host_elf, tmp_path):
    elf, addr = host_elf
    pc = addr["kube32_crash_here"] + 8
    vr = VirtualRig(tmp_path, ["dec"], control_plane=False, api_url="http://127.0.0.1:9", transport="vboard",
                    prefix="d-", node_firmware={"dec": IdleFirmware()})
    crash = (b"Guru Meditation Error: Core  0 panic'ed (LoadProhibited). Exception was unhandled.\r\n"
             b"Backtrace: 0x%08x:0x3ffb0000\r\n\r\nELF file SHA256: 0123456789abcdef\r\n\r\nRebooting...\r\n" % pc)
    with vr:
        board = vr.board("dec")

        def crash_once_listened_to() -> None:
            while board._client is None:
                time.sleep(0.02)
            board.inject(crash)

        threading.Thread(target=crash_once_listened_to, daemon=True).start()

        out = io.StringIO()
        # (10 s: on a loaded machine opening the rig alone has taken more than 3 s)
        rig_monitor(vr.rig_path, out, duration=10, elves={"d-dec": str(elf)}, toolchain_prefix="",
                    log_dir=tmp_path / "logs")
    shown = out.getvalue()
    assert f"--- decoded 0x{pc:08x}: kube32_crash_here at " in shown and "fw.c:1" in shown
    log = (tmp_path / "logs" / "d-dec.log").read_text()
    assert f"--- decoded 0x{pc:08x}: kube32_crash_here at " in log
    # the error a scenario gets carries the frames too
    console = BoardConsole("x", "loop://", decoder=BacktraceDecoder(elf, ""))
    console.open()
    try:
        console.serial.write(crash)
        with pytest.raises(BoardCrashed) as info:
            console.expect("never", timeout=5)
        assert "kube32_crash_here at " in str(info.value)
    finally:
        console.close()


def test_decoder_problems_are_one_clear_line(tmp_path):
    with pytest.raises(DecoderError, match="does not exist"):
        BacktraceDecoder(tmp_path / "missing.elf", "")
    (tmp_path / "fw.elf").write_bytes(b"\x7fELF")
    with pytest.raises(DecoderError, match="xtensa-k32-elf-addr2line is not on PATH"):
        BacktraceDecoder(tmp_path / "fw.elf", "xtensa-k32-elf-")
    with pytest.raises(DecoderError, match="BOARD=PATH"):
        parse_elf_args(["node-a"])


@pytest.mark.parametrize(("keys", "want"), [
    ("\x14r", [("reset", ["cp", "node-a", "node-b"])]),
    ("\x14R", [("reset", ["cp", "node-a", "node-b"])]),
    ("\x142", [("reset", ["node-a"])]),
    ("\x144", [("unknown", ["4"])]),          # three boards: no fourth
    ("r\x14h", [("help", [])]),               # a plain key is no command
    ("\x1d", [("quit", [])]),
    ("\x14\x14r", [("unknown", ["\x14"])]),   # Ctrl+T twice, then a plain r
])
def test_keys_are_read_as_idf_monitor_reads_them(keys, want):
    commands = KeyCommands(["cp", "node-a", "node-b"])
    assert [a for a in map(commands.feed, keys) if a is not None] == want


def test_the_monitor_says_what_it_shows_at_once_and_resets_a_board_from_a_key(tmp_path):
    """Idle boards print nothing; the banner names the rig, its boards and the keys before any board
    speaks, and Ctrl+T then a board's number reboots that board (its boot log shows again)."""
    vr = VirtualRig(tmp_path, ["quiet"], control_plane=False, api_url="http://127.0.0.1:9", transport="vboard",
                    prefix="k-", node_firmware={"quiet": IdleFirmware()})
    read_keys, write_keys = os.pipe()
    with vr:
        out = io.StringIO()

        def press_once_shown() -> None:
            deadline = time.monotonic() + 20
            while "--- Quit:" not in out.getvalue() and time.monotonic() < deadline:
                time.sleep(0.02)
            os.write(write_keys, b"\x142")

        threading.Thread(target=press_once_shown, daemon=True).start()
        rig_monitor(vr.rig_path, out, duration=8, keys=read_keys)
    os.close(read_keys)
    os.close(write_keys)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"--- kube32 rig monitor on {vr.rig_path}: 2 board(s) ---", lines   # and its control plane
    assert lines[1].split()[:2] == ["---", "1"] and lines[1].split()[3] == "control-plane", lines
    assert lines[2].split() == ["---", "2", "k-quiet", "node", "vboard://k-quiet"], lines
    assert lines[3].startswith("--- Quit: Ctrl+] or Ctrl+C | Reset a board: Ctrl+T then its number"), lines
    reset_at = next(i for i, line in enumerate(lines) if "--- reset from the keyboard" in line)
    assert any("rst:" in line for line in lines[reset_at:]), "the board did not boot again after the key"


def test_a_port_another_client_holds_is_called_busy(make_board, make_server):
    """Over RFC2217 the second client only sees the connection close; the harness says what that means."""
    from kube32.harness import BoardDisconnected

    board = make_board()
    server = make_server(board)
    first = BoardConsole(board.name, server.url).open()
    try:
        with pytest.raises(BoardDisconnected) as err:
            BoardConsole(board.name, server.url).open()
    finally:
        first.close()
    assert "(busy: the RFC2217 server closed the connection as it opened" in str(err.value)
