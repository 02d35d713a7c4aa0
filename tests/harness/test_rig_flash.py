"""``flash:`` in the rig file: ``run --rig`` writes the image with esptool before the first scenario.

A virtual board models the ESP32's boot straps (esptool's reset puts it in the ROM downloader) but has
no ROM loader to talk to, so real esptool can only fail on it (tests/harness/test_rig_cli.py shows that
failure). Here ``python -m esptool`` finds a stand-in first on PYTHONPATH: it records its command line,
drives the board's port exactly as esptool does (ClassicReset into the downloader, which answers only if
the runner let go of the port, then HardReset) and answers as esptool does — success, or esptool's
"Failed to connect" and exit status 2. A whole run shows the success; the failure is shown where the
run meets it, the rig target's start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.harness.rigrun import profile_args, scenario_results, short_rig

pytest.importorskip("esptool")

FAKE_ESPTOOL = '''
import json, os, sys, time
import serial

args = sys.argv[1:]
with open(os.environ["FAKE_ESPTOOL_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
port = serial.serial_for_url(args[args.index("--port") + 1], timeout=0.1, do_not_open=True)
port.dtr = port.rts = False
port.open()
port.dtr, port.rts = False, True         # esptool's ClassicReset: EN low ...
time.sleep(0.1)
port.dtr, port.rts = True, False         # ... IO0 low while EN rises: the ROM downloader
time.sleep(0.05)
port.dtr = False
said, deadline = b"", time.monotonic() + 10
while b"waiting for download" not in said and time.monotonic() < deadline:
    said += port.read(256)
if os.environ.get("FAKE_ESPTOOL_FAIL") or b"waiting for download" not in said:
    port.close()                         # as esptool does on its way out
    print("A fatal error occurred: Failed to connect to ESP32: No serial data received.")
    sys.exit(2)
print("Wrote 256 bytes at 0x00010000 in 0.1 seconds.\\nHash of data verified.\\nHard resetting via RTS pin...")
port.rts = True                          # HardReset: the new firmware boots
time.sleep(0.1)
port.rts = False
port.close()
'''
SCENARIO = ["--tags", "needs-real-kubelet", "--clause", "KUBELET-REPORTS-INCLUDE-RUNNING-PODS"]


@pytest.fixture
def flashing_rig(tmp_path):
    """A short-timeout virtual rig whose node-a has ``flash:``, and the stand-in esptool's place."""
    fake = tmp_path / "fake" / "esptool"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")      # a regular package: it comes before the installed esptool
    (fake / "__main__.py").write_text(FAKE_ESPTOOL)
    image = tmp_path / "kube32.bin"
    image.write_bytes(b"\xe9" + b"\0" * 255)
    with short_rig(tmp_path / "rig") as vrig:
        doc = yaml.safe_load(vrig.rig_path.read_text())
        doc["boards"]["node-a"]["flash"] = {"image": str(image), "address": 0x10000, "chip": "esp32", "baud": 921600}
        vrig.rig_path.write_text(yaml.safe_dump(doc, sort_keys=False))
        yield vrig, image, tmp_path


def run(vrig, report, env_extra) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(report.parent / "fake"), os.environ.get("PYTHONPATH", "")]),
           **env_extra}
    proc = subprocess.run([sys.executable, "-m", "kube32.conformance.cli", "run", "-q", "--rig", str(vrig.rig_path),
                           "--report", str(report), *SCENARIO, *profile_args()],
                          capture_output=True, text=True, timeout=600, env=env)
    return proc, json.loads((report / "clauses.json").read_text())


def test_run_flashes_the_board_before_the_first_scenario_with_the_rig_files_arguments(flashing_rig):
    vrig, image, tmp = flashing_rig
    log = tmp / "esptool.log"
    proc, doc = run(vrig, tmp / "report", {"FAKE_ESPTOOL_LOG": str(log)})
    out = proc.stdout + proc.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [["--chip", "esp32", "--port", vrig.servers["node-a"].url, "--baud", "921600",
                      "write_flash", "0x10000", str(image)]], out[-3000:]
    # the port was handed over: the board entered the ROM downloader before the run reset it
    assert [download for _, _, download in vrig.board("node-a").boots][-3:-1] == [True, False], \
        vrig.board("node-a").boots
    assert {s["status"] for s in scenario_results(doc).values()} == {"passed"}, out[-3000:]
    assert proc.returncode == 0, out[-3000:]


def test_a_failed_flash_is_a_harness_error_for_every_scenario_and_frees_the_rig(flashing_rig, monkeypatch):
    """The rig target's start (the session's first step, before any scenario) raises the runner's
    HarnessError — what makes each scenario an ``error``, never a failure — with esptool's line,
    and closes the rig: its ports (and labgrid places) are free again."""
    from kube32.conformance import errors
    from kube32.conformance.targets.rig import RigTarget
    from kube32.harness.board_console import BoardConsole
    from kube32.spec import profiles

    vrig, image, tmp = flashing_rig
    monkeypatch.setenv("PYTHONPATH", str(tmp / "fake"))
    monkeypatch.setenv("FAKE_ESPTOOL_LOG", str(tmp / "esptool.log"))
    monkeypatch.setenv("FAKE_ESPTOOL_FAIL", "1")
    target = RigTarget(str(vrig.rig_path), profiles.load("hardware"))
    with pytest.raises(errors.HarnessError) as info:
        target.start()
    assert str(info.value) == (f"rig {vrig.rig_path}: board node-a: flashing {image} before the run failed: esptool "
                               "exited with 2 (expected 0): A fatal error occurred: Failed to connect to ESP32: No "
                               "serial data received. (ran: " + " ".join([sys.executable, "-m", "esptool", "--chip",
                               "esp32", "--port", vrig.servers["node-a"].url, "--baud", "921600", "write_flash",
                               "0x10000", str(image)]) + ")")
    assert vrig.board("node-a").state == "download"      # esptool left it there; nothing else touched it
    BoardConsole("node-a", vrig.servers["node-a"].url).open().close()   # the runner let go of the port
