"""The rig from the command line: a bad rig file is one line and exit 2 before any scenario, in
``run --rig`` exactly as in ``rig check``."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

CP = {"url": "loop://", "role": "control-plane", "api_url": {"fixed": "http://127.0.0.1:9"}, "reset": "none"}


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kube32.conformance.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("boards: [\n", "not valid YAML"),
        (yaml.safe_dump({"boards": {"cp": {**CP, "role": "control-planet"}}}),
         "boards.cp.role: must be one of control-plane, node (got 'control-planet')"),
        (yaml.safe_dump({"boards": {"cp": CP, "node-a": {"role": "node", "node_name": "node-a"}}}),
         "boards.node-a.url: required"),
        (yaml.safe_dump({"boards": {"cp": CP, "node-a": {"url": "/dev/ttyK32-missing", "role": "node",
                                                         "node_name": "node-a"}}}),
         "board node-a: serial port /dev/ttyK32-missing disconnected: cannot open"),
    ],
    ids=["yaml", "bad-value", "missing-field", "missing-port"],
)
def test_a_bad_rig_is_one_line_and_exit_2_in_run_as_in_rig_check(tmp_path, text, problem):
    rig = tmp_path / "rig.yaml"
    rig.write_text(text)
    run = cli("run", "--rig", str(rig), "--report", str(tmp_path / "report"))
    check = cli("rig", "check", str(rig))
    assert run.returncode == 2 and check.returncode == 2, (run, check)
    assert run.stdout == "" and len(run.stderr.splitlines()) == 1, run.stderr
    assert problem in run.stderr
    assert run.stderr == check.stderr          # the same wording
    assert not (tmp_path / "report").exists()  # no scenario ran, no report was started
