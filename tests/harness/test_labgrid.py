"""Boards reached through a real labgrid lab on 127.0.0.1 (coordinator + exporter): the rig acquires
the place, finds each board's serial port among its NetworkSerialPort resources, and gives the place
back when it closes."""

from __future__ import annotations

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
