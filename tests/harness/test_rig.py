"""The Rig over a VirtualRig: reference control plane + virtual kubelets behind RFC2217 servers."""

from __future__ import annotations

import io
import time

import pytest
import requests

from kube32.harness.cli import rig_check, rig_monitor
from kube32.harness.errors import BoardCrashed, HarnessError
from kube32.harness.rig import Rig
from kube32.harness.virtual.virtual_rig import VirtualRig

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


@pytest.fixture(scope="module")
def vrig(tmp_path_factory):
    with VirtualRig(tmp_path_factory.mktemp("vrig"), ["node-a", "node-b"], lease_interval=0.3, lease_duration=2, prefix="r-") as vr:
        yield vr


@pytest.fixture(scope="module")
def rig(vrig, tmp_path_factory):
    with Rig.open(vrig.rig_path, log_dir=tmp_path_factory.mktemp("logs")) as rig:
        rig.start()
        yield rig


def renew_time(api_url, node):
    return requests.get(f"{api_url}{LEASES}/{node}", timeout=5).json()["spec"]["renewTime"]


def wait_until(fn, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.05)
    return fn()


def test_start_registers_nodes_and_leases(rig):
    nodes = requests.get(f"{rig.api_url}/api/v1/nodes", timeout=5).json()["items"]
    by_name = {n["metadata"]["name"]: n for n in nodes}
    assert {"node-a", "node-b"} <= set(by_name)
    node = by_name["node-a"]
    ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True"
    assert node["status"]["capacity"]["esp32.io/gpio"] == "16"
    lease = requests.get(f"{rig.api_url}{LEASES}/node-a", timeout=5).json()
    assert lease["spec"]["holderIdentity"] == "node-a" and lease["spec"]["leaseDurationSeconds"] == 2
    assert rig.boot_reasons["r-node-a"].startswith("rst:0x1 (POWERON_RESET)")


def test_allocatable_subtracts_pods_bound_to_the_node(rig):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "blinky", "namespace": "default"},
        "spec": {
            "nodeName": "node-b",
            "containers": [{"name": "c", "image": "blinky", "resources": {"requests": {"memory": "32Ki", "esp32.io/gpio": "2"}}}],
        },
    }
    resp = requests.post(f"{rig.api_url}/api/v1/namespaces/default/pods", json=pod, timeout=5)
    assert resp.status_code in (200, 201), resp.text

    def allocatable():
        node = requests.get(f"{rig.api_url}/api/v1/nodes/node-b", timeout=5).json()
        alloc = node["status"]["allocatable"]
        return alloc if alloc["esp32.io/gpio"] == "14" else None

    alloc = wait_until(allocatable)
    assert alloc, "node-b never reported the bound pod's GPIO as used"
    assert int(alloc["memory"]) == 192 * 1024 - 32 * 1024


def test_hold_stops_lease_renewal_and_release_resumes_it(rig):
    mark = rig.mark()
    rig.hold("node-a")
    held_at = renew_time(rig.api_url, "node-a")
    time.sleep(1.0)  # several renew intervals (0.3 s) pass while held
    assert renew_time(rig.api_url, "node-a") == held_at
    rig.release("node-a")
    assert wait_until(lambda: renew_time(rig.api_url, "node-a") != held_at)
    logs = rig.scenario_logs(mark)
    assert "rst:0x1 (POWERON_RESET)" in logs["r-node-a"] and "kubelet: kubelet ready" in logs["r-node-a"]
    assert "rst:" not in logs["r-node-b"]
    rig.check()


def test_restart_control_plane_keeps_data_and_url(rig):
    url = rig.api_url
    rig.restart_control_plane()
    assert rig.api_url == url
    names = {n["metadata"]["name"] for n in requests.get(f"{url}/api/v1/nodes", timeout=5).json()["items"]}
    assert {"node-a", "node-b"} <= names
    rig.check()


def test_crash_on_a_node_surfaces_through_rig_check(rig, vrig):
    mark = rig.mark()
    vrig.board("node-b").panic("InstrFetchProhibited")
    with pytest.raises(BoardCrashed) as info:
        rig.consoles["r-node-b"].expect("never printed", 10)
    assert "InstrFetchProhibited" in str(info.value)
    assert rig.crashes_since(mark)["r-node-b"][0].crash.kind == "panic"
    rig.consoles["r-node-b"].expect("kubelet: kubelet ready", 10)  # it reboots and rejoins


def test_unknown_node_name_is_a_clear_error(tmp_path):
    vr = VirtualRig(tmp_path, ["n1"], control_plane=False, api_url="http://127.0.0.1:9", transport="vboard", prefix="u-")
    with vr, Rig.open(vr.rig_path) as rig, pytest.raises(HarnessError, match="no board or node named 'nope'"):
        rig.hold("nope")


def test_rig_check_reports_each_board(tmp_path):
    with VirtualRig(tmp_path, ["node-c"], prefix="c-", lease_interval=0.3, lease_duration=2) as vr:
        report = rig_check(vr.rig_path)
    assert report.ok, report.format()
    by_board = {b.board: b for b in report.boards}
    assert by_board["c-cp"].api_url.startswith("http://127.0.0.1:")
    assert by_board["c-cp"].reset_reason == "0x1 (POWERON_RESET)"
    assert by_board["c-node-c"].node_name == "node-c"
    assert "OK" in report.format()


def test_rig_check_reports_a_board_that_never_boots(tmp_path):
    from kube32.harness.virtual import NeverBoots

    with VirtualRig(
        tmp_path, ["stuck"], control_plane=False, api_url="http://127.0.0.1:9", transport="vboard",
        prefix="s-", node_firmware={"stuck": NeverBoots()}, timeouts={"boot": 1, "ready": 1},
    ) as vr:
        report = rig_check(vr.rig_path)
    entry = {b.board: b for b in report.boards}["s-stuck"]
    assert not report.ok and not entry.ok
    assert "Calling app_main" in entry.error and "spi_flash" in entry.error


def test_rig_monitor_prefixes_lines_with_board_name(tmp_path):
    with VirtualRig(tmp_path, ["m1"], control_plane=False, api_url="http://127.0.0.1:9", transport="vboard", prefix="m-") as vr:
        import threading

        out = io.StringIO()
        board = vr.board("m1")
        threading.Timer(0.3, board.inject, args=(b"I (1) probe: hello monitor\r\n",)).start()
        rig_monitor(vr.rig_path, out, duration=1.0)
    assert "[m-m1] " in out.getvalue() and "probe: hello monitor" in out.getvalue()


def test_rig_target_driver_adapts_the_rig(tmp_path):
    from kube32.conformance.targets import base
    from kube32.conformance.targets.rig import RigTarget
    from kube32.spec import profiles

    with VirtualRig(tmp_path, ["node-t"], prefix="t-", lease_interval=0.3, lease_duration=2) as vr:
        target = RigTarget(str(vr.rig_path), profiles.load("hardware"))
        try:
            target.start()
            assert {base.RESTART, base.REAL_KUBELET} <= target.capabilities
            target.begin_scenario()
            target.hold("node-t")
            target.release("node-t")
            target.end_scenario()
            assert "kubelet: kubelet ready" in target.last_logs["t-node-t"]
        finally:
            target.stop()
