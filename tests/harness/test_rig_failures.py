"""Boards that break during a conformance run: each gives a clear ERROR scenario carrying the console
text, and the run goes on with the next scenario.

One suite run on a short-timeout virtual rig (rfc2217://127.0.0.1): node-a's kubelet panics when it
sees pod "boom", has its USB cable pulled (and plugged back 1 s later) when it sees pod "unplug";
node-b never boots (stuck before app_main). The scenarios, in order:

1. node-a panics while a time step waits            -> error: panic text, Backtrace line
2. the next scenario on node-a                       -> passed (the board was reset)
3. node-a's serial port drops mid-scenario           -> error: lost its serial port + last console lines
4. the next scenario on node-a                       -> passed (port reopened, board reset)
5. a scenario that needs node-b                      -> error: never came up, with its boot log
6. a scenario without node-b                         -> passed
7. node-a panics the moment it reports a pod Running,
   so the last step passes and the crash arrives after -> error (consoles drained before the verdict)
"""

from __future__ import annotations

import threading

import pytest

from kube32.harness.virtual import NeverBoots
from kube32.harness.virtual.node_firmware import NodeFirmware
from tests.harness.rigrun import TIMEOUTS, run_suite, scenario_results, short_rig

FEATURE = """\
@needs-real-kubelet @clause-KUBELET-FIREWALL-GPIO-PIN
Feature: boards that break during a run

  Background:
    Given a kube32 control plane

  Scenario: 1 node-a panics while a time step waits
    Given these Ready nodes:
      | name   |
      | node-a |
    When I create a pod "boom" on node "node-a" requesting:
      | resource | quantity |
      | memory   | 8Ki      |
    And 3 seconds pass
    Then the kubelet of node "node-a" runs pod "boom"

  Scenario: 2 after the panic node-a runs pods again
    Given these Ready nodes:
      | name   |
      | node-a |
    When I create a pod "fine" on node "node-a" requesting:
      | resource | quantity |
      | memory   | 8Ki      |
    Then the kubelet of node "node-a" runs pod "fine"

  Scenario: 3 node-a's serial cable is pulled mid-scenario
    Given these Ready nodes:
      | name   |
      | node-a |
    When I create a pod "unplug" on node "node-a" requesting:
      | resource | quantity |
      | memory   | 8Ki      |
    And 3 seconds pass
    Then the kubelet of node "node-a" runs pod "unplug"

  Scenario: 4 after the disconnect node-a runs pods again
    Given these Ready nodes:
      | name   |
      | node-a |
    When I create a pod "again" on node "node-a" requesting:
      | resource | quantity |
      | memory   | 8Ki      |
    Then the kubelet of node "node-a" runs pod "again"

  Scenario: 5 a scenario that needs node-b, which never booted
    Given these Ready nodes:
      | name   |
      | node-b |
    Then the kubelet of node "node-b" holds its Lease declaring the lease duration

  Scenario: 6 a scenario without node-b still runs
    Given these Ready nodes:
      | name   |
      | node-a |
    Then the kubelet of node "node-a" holds its Lease declaring the lease duration

  Scenario: 7 node-a panics right after the last step saw its pod run
    Given these Ready nodes:
      | name   |
      | node-a |
    When I create a pod "lastword" on node "node-a" requesting:
      | resource | quantity |
      | memory   | 8Ki      |
    Then the kubelet of node "node-a" runs pod "lastword"
"""


LASTWORD_DELAY = 0.3     # s between reporting "lastword" Running and the panic
SETTLE = 1.0             # the rig's timeouts.settle: how long the verdict waits for late console bytes


class TroubledKubelet(NodeFirmware):
    """A virtual kubelet that panics at pod "boom", calls ``unplug`` at pod "unplug", and panics right
    after reporting pod "lastword" Running (once each)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.unplug = None
        self.done: set[str] = set()
        self.io = None

    def _write_pod_status(self, pod, phase, **kwargs):
        written = super()._write_pod_status(pod, phase, **kwargs)
        if pod["metadata"]["name"] == "lastword" and phase == "Running" and "lastword" not in self.done:
            self.done.add("lastword")
            self.io.sleep(LASTWORD_DELAY)   # the step has seen Running and its after-step check is done
            self.io.panic("StoreProhibited")
        return written

    def _sync_pods(self, io):
        self.io = io
        names = {p["metadata"]["name"] for p in self.my_pods()}
        if "boom" in names and "boom" not in self.done:
            self.done.add("boom")
            io.log("I", "kubelet", "admitting pod boom")
            io.panic("LoadProhibited")
        if "unplug" in names and "unplug" not in self.done and self.unplug is not None:
            self.done.add("unplug")
            self.unplug()
        return super()._sync_pods(io)


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("rigfail")
    features = workdir / "features"
    features.mkdir()
    (features / "broken_boards.feature").write_text(FEATURE)
    troubled = TroubledKubelet("node-a", "")
    vrig = short_rig(workdir / "rig", node_firmware={"node-a": troubled, "node-b": NeverBoots()},
                     timeouts={**TIMEOUTS, "settle": SETTLE})
    # the troubled kubelet needs the control plane's URL, known once the rig has started
    with vrig:
        troubled.api_url = vrig.api_url.rstrip("/")
        troubled.lease_interval = vrig.lease_interval
        troubled.status_interval = vrig.lease_interval
        troubled.lease_duration = vrig.lease_duration
        board = vrig.board("node-a")

        def unplug() -> None:
            board.disconnect()
            threading.Timer(1.0, board.reconnect).start()

        troubled.unplug = unplug
        run = run_suite(vrig.rig_path, workdir / "report", features=features)
        yield run


def _scenario(run, number: int) -> dict:
    by_name = scenario_results(run.doc)
    assert by_name, f"the run produced no clauses.json:\n{run.output[-3000:]}"
    return next(s for name, s in by_name.items() if name.startswith(f"{number} "))


def _log(run, scenario: dict, board: str) -> str:
    return (run.report / scenario["logs"][board]).read_text()


def test_a_panic_is_an_error_with_the_crash_text_and_the_next_scenario_runs(failing_run):
    first = _scenario(failing_run, 1)
    assert first["status"] == "error", first
    assert "board node-a crashed (panic: LoadProhibited)" in first["message"]
    assert "Backtrace: 0x400" in first["message"]
    assert "Guru Meditation Error: Core  0 panic'ed (LoadProhibited)" in _log(failing_run, first, "node-a")
    assert _scenario(failing_run, 2)["status"] == "passed"


def test_a_serial_disconnect_is_an_error_with_the_last_console_text_and_the_next_scenario_runs(failing_run):
    third = _scenario(failing_run, 3)
    assert third["status"] == "error", third
    assert "board node-a lost its serial port rfc2217://127.0.0.1:" in third["message"]
    # the last console lines come with the error (what the board said before the port went away)
    assert "--- last console lines ---" in third["message"]
    assert "I (349) kubelet: kubelet ready" in failing_run.output or "kubelet: kubelet ready" in failing_run.output
    assert _scenario(failing_run, 4)["status"] == "passed"


def test_a_board_that_never_boots_is_an_error_with_its_boot_log_and_the_run_goes_on(failing_run):
    fifth = _scenario(failing_run, 5)
    assert fifth["status"] == "error", fifth
    assert "board node-b is unusable (did not come up at the start of the run" in fifth["message"]
    assert "spi_flash: Detected size(4096k)" in failing_run.output
    assert _scenario(failing_run, 6)["status"] == "passed"
    assert failing_run.returncode == 1     # errors make the run fail


def test_a_panic_right_after_the_last_step_is_an_error_not_a_pass(failing_run):
    seventh = _scenario(failing_run, 7)
    assert seventh["status"] == "error", seventh
    assert "board node-a crashed (panic: StoreProhibited)" in seventh["message"]
