"""BoardConsole through real pyserial: vboard:// in process and rfc2217:// over 127.0.0.1 sockets."""

from __future__ import annotations

import os
import pty
import time

import pytest

from kube32.harness import (
    BoardConsole,
    BoardCrashed,
    BoardDisconnected,
    BoardTimeout,
    FlashError,
    ResetNotSupported,
    StateError,
)
from kube32.harness import flash as flash_mod
from kube32.harness.virtual import NeverBoots

BOOTED = r"main_task: Calling app_main\(\)"


def booted(console):
    console.reset()
    match = console.expect(BOOTED, 5)
    console.expect("app: idle firmware running", 5)  # the last line IdleFirmware prints at boot
    return match


def test_reset_boots_with_poweron_banner(make_board, open_console):
    board = make_board()
    console = open_console(board)
    mark = console.mark()
    console.reset()
    banner = console.expect(r"rst:0x(\w+) \((\w+)\)", 5)
    assert banner.group(2) == "POWERON_RESET"
    console.expect(BOOTED, 5)
    assert any("ets Jun  8 2016" in line.text for line in console.slice(mark))
    assert board.boots[-1] == (0x1, "POWERON_RESET", False)
    console.check()  # the banner we asked for is not a crash


def test_hold_keeps_board_silent_until_release(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    console.hold()
    held = console.mark()
    console.write_line("ping")
    with pytest.raises(BoardTimeout):
        console.expect("pong|rst:", 0.5)
    assert board.state == "reset"
    assert console.slice(held) == []
    console.release()
    console.expect(r"rst:0x1 \(POWERON_RESET\)", 5)
    console.expect(BOOTED, 5)
    console.write_line("ping")
    console.expect("^pong$", 5)
    console.check()


def test_custom_sequence_classic_reset_reaches_download_mode(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    console.expect_reboot()
    ser = console.serial
    ser.dtr = False
    ser.rts = True
    time.sleep(0.1)
    ser.dtr = True
    ser.rts = False
    time.sleep(0.05)
    ser.dtr = False
    line = console.expect(r"rst:.*boot:0x3 \(DOWNLOAD_BOOT", 5)
    assert "DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2)" in line.line.text
    console.expect("waiting for download", 5)
    assert board.state == "download"


def test_panic_mid_expect_raises_with_text_and_backtrace(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    console.write_line("ping")
    console.expect("pong", 5)
    import threading

    threading.Timer(0.3, board.panic, kwargs={"reason": "LoadProhibited"}).start()
    with pytest.raises(BoardCrashed) as info:
        console.expect("this line never comes", 10)
    err = info.value
    assert err.kind == "panic"
    assert err.text.startswith("Guru Meditation Error: Core  0 panic'ed (LoadProhibited)")
    assert err.text.rstrip().endswith("Rebooting...")
    assert err.backtrace.startswith("Backtrace: 0x")
    assert "ELF file SHA256" in str(err) and err.backtrace in str(err)
    # the SW_CPU_RESET reboot belongs to the crash: the board comes back, no second crash
    console.expect(r"rst:0xc \(SW_CPU_RESET\)", 5)
    console.expect(BOOTED, 5)
    console.check()


def test_abort_is_detected_by_check(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    board.abort()
    deadline = time.monotonic() + 5
    with pytest.raises(BoardCrashed) as info:
        while time.monotonic() < deadline:
            console.check()
            time.sleep(0.02)
    assert info.value.kind == "abort" and "Guru" not in info.value.text


def test_unexpected_reboot_is_a_crash(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    board.restart()  # nobody asked the harness for this reboot
    with pytest.raises(BoardCrashed) as info:
        console.expect("never", 5)
    assert info.value.kind == "unexpected_reboot"
    assert "SW_CPU_RESET" in str(info.value)


def test_never_booting_board_times_out_naming_pattern_and_last_lines(make_board, open_console):
    board = make_board(NeverBoots())
    console = open_console(board)
    console.reset()
    with pytest.raises(BoardTimeout) as info:
        console.expect(BOOTED, 1.0)
    msg = str(info.value)
    assert repr(BOOTED) in msg
    assert "spi_flash: Detected size" in msg and "rst:0x1 (POWERON_RESET)" in msg
    assert info.value.last_lines[-1].startswith("W (")


def test_line_noise_is_garbage_not_an_error(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    board.inject(b"\xff\xfe\x00\x9c\x80 garbage\r\n\x1b[0;32mI (9) app: after noise\x1b[0m\r\n")
    line = console.expect("app: after noise", 5)
    assert line.line.text == "I (9) app: after noise"
    from kube32.harness.console import Garbage

    assert any(isinstance(cl.event, Garbage) for cl in console.slice())
    console.check()


def test_disconnect_raises_board_disconnected(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    board.disconnect()
    with pytest.raises(BoardDisconnected) as info:
        console.expect("never", 10)
    assert board.name in str(info.value) and console.url in str(info.value)
    with pytest.raises(BoardDisconnected):
        console.reset()


def test_disconnect_of_the_rfc2217_server(make_board, make_server):
    board = make_board()
    server = make_server(board)
    with BoardConsole(board.name, server.url) as console:
        booted(console)
        server.drop_clients()
        with pytest.raises(BoardDisconnected):
            console.expect("never", 10)


def test_mark_and_slice_give_timestamped_scenario_output(make_board, open_console):
    board = make_board()
    console = open_console(board)
    booted(console)
    before = console.mark()
    console.write_line("ping")
    console.expect("pong", 5)
    after = console.mark()
    console.write_line("ping")
    console.expect("pong", 5)
    lines = console.slice(before, after)
    assert [line.text for line in lines] == ["pong"]
    text = console.text(before, after)
    assert text.endswith(" pong\n") and text[2] == ":"


def test_log_file_gets_every_line(make_board, tmp_path):
    board = make_board()
    log = tmp_path / "logs" / f"{board.name}.log"
    with BoardConsole(board.name, f"vboard://{board.name}", log_path=log) as console:
        booted(console)
    content = log.read_text()
    assert "rst:0x1 (POWERON_RESET)" in content and "Calling app_main()" in content


def test_reset_refused_on_socket_urls():
    console = BoardConsole("raw", "socket://127.0.0.1:9")
    with pytest.raises(ResetNotSupported, match="socket.*silently drops DTR/RTS"):
        console.hold()


def test_reset_refused_on_a_pty():
    master, slave = pty.openpty()
    try:
        path = os.ttyname(slave)
        with BoardConsole("pty", path) as console:
            for op in (console.reset, console.hold, console.release):
                with pytest.raises(ResetNotSupported, match="pseudo-terminal"):
                    op()
    finally:
        os.close(master)
        os.close(slave)


def test_reset_none_is_refused(make_board):
    board = make_board()
    with BoardConsole(board.name, f"vboard://{board.name}", reset="none") as console, pytest.raises(
        ResetNotSupported, match="reset: none"
    ):
        console.reset()


def test_expect_before_open_is_a_state_error():
    with pytest.raises(StateError, match="not open"):
        BoardConsole("x", "vboard://nothing").expect("x", 0.1)


def test_unknown_vboard_fails_to_open_clearly():
    with pytest.raises(BoardDisconnected, match="no virtual board named 'nope'"):
        BoardConsole("nope", "vboard://nope").open()


def test_flash_without_esptool_says_how_to_install(monkeypatch):
    monkeypatch.setattr(flash_mod, "esptool_available", lambda: False)
    with pytest.raises(FlashError, match=r"pip install kube32-conformance\[flash\]"):
        flash_mod.write_flash("rfc2217://127.0.0.1:1", "app.bin")


def test_flash_command_is_esptool_write_flash():
    cmd = flash_mod.build_command("rfc2217://h:4000", [(0x1000, "boot.bin"), (0x10000, "app.bin")], baud=921600)
    assert cmd[1:3] == ["-m", "esptool"]
    assert cmd[cmd.index("--port") + 1] == "rfc2217://h:4000"
    assert cmd[cmd.index("write_flash") + 1 :] == ["0x1000", "boot.bin", "0x10000", "app.bin"]
