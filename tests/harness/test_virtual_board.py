"""The virtual DevKit: DTR/RTS truth table, EN RC delay, download mode, hold freezes the board."""

from __future__ import annotations

import time

import pytest

from kube32.harness.virtual import VirtualBoard


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


@pytest.mark.parametrize(
    ("dtr", "rts", "en_low", "io0_low"),
    [
        (False, False, False, False),
        (True, True, False, False),
        (False, True, True, False),
        (True, False, False, True),
    ],
)
def test_devkit_truth_table(dtr, rts, en_low, io0_low):
    board = VirtualBoard("truth-table")  # not started: pure pin logic
    board.set_lines(dtr=dtr, rts=rts)
    assert (board.en_low, board.io0_low) == (en_low, io0_low)


@pytest.mark.parametrize(("dtr", "rts", "state"), [(False, True, "reset"), (True, True, "running"), (False, False, "running")])
def test_line_states_hold_or_run(make_board, dtr, rts, state):
    board = make_board()
    assert wait_for(lambda: board.state == "running")
    board.set_lines(dtr=dtr, rts=rts)
    time.sleep(board.en_rc_delay * 2)
    assert board.state == state


def test_held_board_is_silent_and_ignores_input(make_board):
    board = make_board()
    board.attach(client := object())
    assert wait_for(lambda: board.state == "running")
    board.rts = True
    board.clear_tx()
    board.receive(b"ping\n")
    time.sleep(0.3)
    assert board.state == "reset"
    assert board.read(4096, 0.05) == b""
    board.rts = False
    assert wait_for(lambda: board.state == "running")
    out = b""
    while b"Calling app_main" not in out:
        chunk = board.read(4096, 2.0)
        assert chunk, f"no boot output after release; got {out!r}"
        out += chunk
    assert b"ets Jun  8 2016 00:22:57" in out
    assert b"rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)" in out
    assert b"pong" not in out
    board.detach(client)


def classic_reset(lines):
    """esptool ClassicReset: D0 R1 W0.1 D1 R0 W0.05 D0 (``lines`` is a pyserial port or a board)."""
    lines.dtr = False
    lines.rts = True
    time.sleep(0.1)
    lines.dtr = True
    lines.rts = False
    time.sleep(0.05)
    lines.dtr = False


def hard_reset(lines):
    lines.rts = True
    time.sleep(0.1)
    lines.rts = False


def test_classic_reset_enters_download_mode_thanks_to_en_delay(make_board):
    board = make_board()
    assert wait_for(lambda: board.state == "running")
    classic_reset(board)
    assert wait_for(lambda: board.state == "download")
    assert board.boots[-1] == (0x1, "POWERON_RESET", True)


def test_without_en_delay_classic_reset_boots_normally(make_board):
    """The pitfall the RC model exists for: with no delay the passing (1,1) state releases EN."""
    board = make_board(en_rc_delay=0.0)
    assert wait_for(lambda: board.state == "running")
    classic_reset(board)
    assert wait_for(lambda: len(board.boots) == 2 and board.state == "running")
    assert board.boots[-1][2] is False


def test_hard_reset_boots_normally(make_board):
    board = make_board()
    assert wait_for(lambda: board.state == "running")
    hard_reset(board)
    assert wait_for(lambda: len(board.boots) == 2 and board.state == "running")
    assert board.boots[-1] == (0x1, "POWERON_RESET", False)


def test_panic_reboots_with_sw_cpu_reset(make_board):
    board = make_board()
    assert wait_for(lambda: board.state == "running")
    board.panic()
    assert wait_for(lambda: len(board.boots) == 2 and board.state == "running")
    assert board.boots[-1] == (0xC, "SW_CPU_RESET", False)
