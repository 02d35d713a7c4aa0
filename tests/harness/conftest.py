"""Fixtures for the harness tests: virtual boards with unique names, cleaned up after each test."""

from __future__ import annotations

import itertools

import pytest

from kube32.harness import BoardConsole
from kube32.harness.virtual import Rfc2217Server, VirtualBoard

_ids = itertools.count()


@pytest.fixture
def make_board():
    boards: list[VirtualBoard] = []

    def make(firmware=None, **kwargs) -> VirtualBoard:
        board = VirtualBoard(f"vb{next(_ids)}", firmware, **kwargs).start()
        boards.append(board)
        return board

    yield make
    for board in boards:
        board.shutdown()


@pytest.fixture
def make_server():
    servers: list[Rfc2217Server] = []

    def make(board: VirtualBoard) -> Rfc2217Server:
        server = Rfc2217Server(f"vboard://{board.name}").start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(params=["vboard", "rfc2217"])
def transport(request):
    return request.param


@pytest.fixture
def open_console(make_server, transport):
    """Open a BoardConsole on a board through the parametrized transport (real pyserial both ways)."""
    consoles: list[BoardConsole] = []

    def open_(board: VirtualBoard, **kwargs) -> BoardConsole:
        url = f"vboard://{board.name}" if transport == "vboard" else make_server(board).url
        console = BoardConsole(board.name, url, **kwargs).open()
        consoles.append(console)
        return console

    yield open_
    for console in consoles:
        console.close()
