"""Boards reached through a real labgrid lab on 127.0.0.1 (coordinator + exporter): the rig acquires
the place, finds each board's serial port among its NetworkSerialPort resources, and gives the place
back when it closes. The default run's labgrid test is tests/harness/test_labgrid_parallel.py (one lab
for two places); the lab tests here run in ``tox -e lab``."""

from __future__ import annotations

import time

import pytest

from kube32.harness.cli import rig_check
from kube32.harness.lab import LabgridError
from kube32.harness.rig import Rig
from tests.harness.labgrid_lab import Lab
from tests.harness.rigrun import short_rig

pytest.importorskip("labgrid")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("lab")
    with short_rig(workdir / "rig-a", prefix="a-") as vrig:
        lab = Lab(workdir / "lab").start({"rig-a": vrig})
        try:
            yield lab, vrig, lab.rig_file("rig-a", vrig, workdir / "rig-a.yaml")
        finally:
            lab.stop()


@pytest.mark.lab
def test_a_rig_in_a_labgrid_place_is_acquired_checked_and_released(lab):
    lab, vrig, rig_file = lab
    assert lab.acquired_by("rig-a") is None
    rig = Rig.open(rig_file)
    try:
        assert lab.acquired_by("rig-a") is not None
        assert rig.specs["a-node-a"].port.url == vrig.servers["a-node-a"].url   # the place's NetworkSerialPort
    finally:
        rig.close()
    assert lab.acquired_by("rig-a") is None
    report = rig_check(rig_file)
    assert report.ok, report.format()
    assert {b.node_name for b in report.boards if b.node_name} == {"node-a", "node-b"}
    assert lab.acquired_by("rig-a") is None


@pytest.mark.lab
def test_a_place_someone_else_holds_is_a_one_line_error_and_stays_theirs(lab, tmp_path):
    lab, vrig, rig_file = lab
    other = {**lab.env, "LG_USERNAME": "colleague"}
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "labgrid.remote.client", "-x", lab.coordinator, "-p", "rig-a", "acquire"],
                   env=other, check=True, capture_output=True, timeout=120)
    try:
        with pytest.raises(LabgridError) as info:
            Rig.open(rig_file)
        assert "labgrid place rig-a" in str(info.value) and "colleague" in str(info.value)
        assert len(str(info.value).splitlines()) == 1
        assert lab.acquired_by("rig-a").endswith("/colleague")
    finally:
        subprocess.run([sys.executable, "-m", "labgrid.remote.client", "-x", lab.coordinator, "-p", "rig-a",
                        "release"], env=other, check=True, capture_output=True, timeout=120)


def test_a_place_with_a_power_switch_resets_through_it_and_its_port_is_found_by_name():
    from kube32.harness.lab import LabgridPlace, PlaceRef, Resource

    place = LabgridPlace(PlaceRef("lab:20408", "bench"))
    place.resources = [
        Resource("NetworkSerialPort", "node-a", {"host": "hil", "port": 4001, "protocol": "rfc2217"}),
        Resource("NetworkSerialPort", "node-b", {"host": "hil", "port": 4002, "protocol": "raw"}),
        Resource("NetworkPowerPort", "node-a-power", {"model": "gude", "host": "pdu", "index": 1}),
    ]
    assert place.serial_url(None, "node-a") == "rfc2217://hil:4001"      # by board name
    assert place.serial_url("node-b", "x") == "socket://hil:4002"        # by resource name, raw = socket
    assert place.power_name(None, "node-a") == "node-a-power"            # <board>-power
    assert place.power_name(None, "node-b") is None                      # never another board's outlet
    assert place.power_name("node-a-power", "node-b") == "node-a-power"  # unless the rig file says so
    with pytest.raises(LabgridError, match="has no power resource named 'pdu-9'"):
        place.power_name("pdu-9", "node-b")
    with pytest.raises(LabgridError, match="has no NetworkSerialPort named 'uart9'"):
        place.serial_url("uart9", "node-a")
    with pytest.raises(LabgridError, match="has 2 NetworkSerialPorts .* name board cp's"):
        place.serial_url(None, "cp")
    place.resources = place.resources[:2]
    assert place.power_name(None, "node-a") is None                      # no power: RTS/DTR as usual


class PowerSwitch:
    """A power switch as labgrid's power driver would be, wired to a virtual board's EN."""

    def __init__(self, board) -> None:
        self.board, self.calls = board, []

    def off(self) -> None:
        self.calls.append("off")
        self.board.set_lines(dtr=False, rts=True)

    def on(self) -> None:
        self.calls.append("on")
        self.board.set_lines(rts=False)

    def cycle(self) -> None:
        self.off()
        time.sleep(0.1)
        self.on()


def test_a_board_with_a_power_switch_is_reset_held_and_released_through_it(make_board):
    from kube32.harness import BoardConsole

    board = make_board()
    power = PowerSwitch(board)
    console = BoardConsole(board.name, f"vboard://{board.name}", power=power).open()
    try:
        mark = console.mark()
        console.reset()
        console.expect(r"rst:0x1 \(POWERON_RESET\)", 10, since=mark)
        console.hold()
        assert board.state == "reset" and console.held
        mark = console.mark()
        console.release()
        console.expect(r"main_task: Calling app_main", 10, since=mark)
        console.check()                     # the power cycles were expected: no "unexpected reboot"
        assert power.calls == ["off", "on", "off", "on"]
    finally:
        console.close()


def test_a_board_on_a_labgrid_power_switch_is_reset_held_and_released_through_labgrid(make_board, make_server,
                                                                                       tmp_path):
    """labgrid's power path end to end: the place has the board's NetworkSerialPort and a
    NetworkPowerPort (labgrid's ``simplerest`` model) on a network power switch; the rig's reset is
    ``labgrid-client power cycle`` (labgrid's NetworkPowerDriver -> HTTP -> the board's supply), hold
    is power off and release power on — and the boots that causes are not taken for crashes."""
    import yaml

    from tests.harness.labgrid_lab import PowerSwitch, serial_port

    board = make_board()
    pdu = PowerSwitch([board])
    lab = Lab(tmp_path / "lab").start({}, places={"bench-p": {board.name: serial_port(make_server(board).url),
                                                               "outlet-1": pdu.resource(0)}})
    try:
        rig_file = tmp_path / "rig.yaml"
        rig_file.write_text(yaml.safe_dump({
            "labgrid": {"coordinator": lab.coordinator, "place": "bench-p"},
            "boards": {"cp": {"url": "loop://", "role": "control-plane", "reset": "none",
                              "api_url": {"fixed": "http://127.0.0.1:9"}},
                       board.name: {"role": "node", "node_name": "node-p"}}}))
        with Rig.open(rig_file) as rig:
            console = rig.consoles[board.name]
            mark = console.mark()
            console.reset()
            console.expect(r"rst:0x1 \(POWERON_RESET\)", 30, since=mark)
            console.hold()
            assert not board.powered and board.state == "off"
            mark = console.mark()
            console.release()
            console.expect(r"main_task: Calling app_main", 30, since=mark)
            console.check()          # power cycles the harness asked for are not "unexpected reboots"
        assert pdu.switched == [(0, False), (0, True), (0, False), (0, True)]
        assert lab.acquired_by("bench-p") is None
    finally:
        lab.stop()
        pdu.stop()
