"""The rig from the command line: a bad rig file is one line and exit 2 before any scenario, a rig
that cannot be reached one line and exit 10, in ``run --rig`` exactly as in ``rig check``."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import yaml

CP = {"url": "loop://", "role": "control-plane", "api_url": {"fixed": "http://127.0.0.1:9"}, "reset": "none"}


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kube32.conformance.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize(
    ("text", "problem", "status"),
    [
        ("boards: [\n", "not valid YAML", 2),
        (yaml.safe_dump({"boards": {"cp": {**CP, "role": "control-planet"}}}),
         "boards.cp.role: must be one of control-plane, node (got 'control-planet')", 2),
        (yaml.safe_dump({"boards": {"cp": CP, "node-a": {"role": "node", "node_name": "node-a"}}}),
         "boards.node-a.url: required", 2),
        (yaml.safe_dump({"boards": {"cp": CP, "node-a": {"url": "/dev/ttyK32-missing", "role": "node",
                                                         "node_name": "node-a"}}}),
         "board node-a: cannot open serial port /dev/ttyK32-missing: ", 10),
    ],
    ids=["yaml", "bad-value", "missing-field", "missing-port"],
)
def test_a_bad_rig_is_one_line_in_run_as_in_rig_check(tmp_path, text, problem, status):
    """A bad file is bad input (2, as argparse's usage errors); a board that cannot be reached is an
    unreachable target (10, as run says of a URL target that does not answer)."""
    rig = tmp_path / "rig.yaml"
    rig.write_text(text)
    run = cli("run", "--rig", str(rig), "--report", str(tmp_path / "report"))
    check = cli("rig", "check", str(rig))
    monitor = cli("rig", "monitor", str(rig), "--duration", "1")
    assert run.returncode == check.returncode == monitor.returncode == status, (run, check, monitor)
    assert run.stdout == "" and len(run.stderr.splitlines()) == 1, run.stderr
    assert problem in run.stderr
    assert run.stderr == check.stderr == monitor.stderr     # the same wording
    assert not (tmp_path / "report").exists()  # no scenario ran, no report was started


class VirtualRigProcess:
    """``kube32-conformance rig virtual ...`` in a subprocess, stopped with Ctrl-C (SIGINT)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kube32.conformance.cli", "rig", "virtual", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = [self.proc.stdout.readline() for _ in range(2)]   # banner + control plane URL
        assert self.lines[0].startswith("virtual rig:"), self.lines + [self.proc.stdout.read()]
        self.api_url = self.lines[1].split()[-1]

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=60)


def test_rig_virtual_serves_boards_whose_rig_file_passes_rig_check_with_or_without_a_control_plane(tmp_path):
    from kube32.harness.virtual import VirtualRig  # where the README says it is

    assert VirtualRig.__name__ == "VirtualRig"
    full = VirtualRigProcess("--nodes", "node-a,node-b", "--write", str(tmp_path / "full.yaml"),
                             "--workdir", str(tmp_path / "full"))
    nodes_only = None
    try:
        check = cli("rig", "check", str(tmp_path / "full.yaml"))
        assert check.returncode == 0, check.stdout + check.stderr
        assert "node-b" in check.stdout and "api: http://127.0.0.1:" in check.stdout
        nodes_only = VirtualRigProcess("--nodes", "node-c", "--no-control-plane", "--api-url", full.api_url,
                                       "--write", str(tmp_path / "nodes.yaml"))
        check = cli("rig", "check", str(tmp_path / "nodes.yaml"))
        assert check.returncode == 0, check.stdout + check.stderr
        assert f"api: {full.api_url}" in check.stdout and "node: node-c" in check.stdout
    finally:
        codes = [p.interrupt() for p in (nodes_only, full) if p is not None]
    assert codes == [0, 0]


def test_rig_virtual_without_a_control_plane_needs_an_api_url(tmp_path):
    run = cli("rig", "virtual", "--no-control-plane", "--write", str(tmp_path / "rig.yaml"))
    assert run.returncode == 2 and "--no-control-plane needs --api-url" in run.stderr
    assert not (tmp_path / "rig.yaml").exists()


def test_rig_flash_drives_esptool_on_the_board_and_reports_its_failure_in_one_line(tmp_path):
    pytest.importorskip("esptool")
    from kube32.harness.virtual import IdleFirmware, VirtualRig

    image = tmp_path / "app.bin"
    image.write_bytes(b"\xe9" + b"\0" * 255)
    with VirtualRig(tmp_path, ["f"], control_plane=False, api_url="http://127.0.0.1:9", prefix="fl-",
                    node_firmware={"f": IdleFirmware()}) as vr:
        run = cli("rig", "flash", str(vr.rig_path), "--board", "fl-f", "--image", str(image), "--address", "0x10000",
                  "--chip", "esp32", "--connect-attempts", "1")
        # esptool really drove the port: its reset sequence put the board into the ROM downloader ...
        assert any(download for _, _, download in vr.board("f").boots), vr.board("f").boots
        unknown = cli("rig", "flash", str(vr.rig_path), "--board", "nope", "--image", str(image))
    # ... and, as a virtual board speaks no ROM loader protocol, esptool's failure is one clear line
    assert run.returncode == 1, run
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("esptool exited with 2 (expected 0): ")
    assert "write_flash 0x10000" in run.stderr
    assert unknown.returncode == 2 and "no board 'nope'" in unknown.stderr
