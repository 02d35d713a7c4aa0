"""Issue 13's store rows: a damaged data dir stops ``serve`` with one line naming the file and the
problem (exit 2, no traceback; ``--debug`` shows one) and never starts empty; disk full is an error
naming the cause, recovered from once space is back; a namespace deletion cut short by kill -9
finishes after the restart; the poison Deployment stays out across a restart; a manual clock goes
on from where it stood."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
import requests
from hostile import hostile
from integration_helpers import Serve

from kube32.reference.clock import ManualClock
from kube32.reference.controllers import namespace
from kube32.reference.store import SqliteBackend, Store

PODS = "/api/v1/namespaces/default/pods"
FILE = SqliteBackend.FILENAME


def pod(name: str, ns: str = "default") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "a", "image": "blink"}]}}


def filled_store(data_dir, pods: int = 5) -> None:
    """A store as a server leaves it: namespaces and a few pods."""
    store = Store(SqliteBackend(str(data_dir)), ManualClock(1_800_000_000))
    store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
    for i in range(pods):
        store.create("pods", pod(f"p{i}"))
    store.close()


def start(data_dir, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "kube32.conformance", "serve", "--listen", "127.0.0.1:0",
           "--data-dir", str(data_dir), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def sql(data_dir, statement: str) -> None:
    db = sqlite3.connect(str(data_dir / FILE), isolation_level=None)
    db.execute(statement)
    db.close()


def _empty(d):
    d.mkdir()
    (d / FILE).write_bytes(b"")


def _header(d):
    filled_store(d)
    data = bytearray((d / FILE).read_bytes())
    data[:16] = b"not a database!!"
    (d / FILE).write_bytes(bytes(data))


def _truncated(d):
    filled_store(d, pods=300)
    sql(d, "PRAGMA wal_checkpoint(TRUNCATE)")
    data = (d / FILE).read_bytes()
    (d / FILE).write_bytes(data[:len(data) // 2])


def _garbage_row(d):
    filled_store(d)
    sql(d, "UPDATE objects SET body='{garbage' WHERE name='p2'")


def _rolled_back(d):
    filled_store(d)
    sql(d, "UPDATE meta SET value='3' WHERE key='resourceVersion'")


def _a_file(d):
    d.write_text("I am not a directory\n")


@pytest.mark.parametrize("damage, fragment", [
    (_empty, "empty (0 bytes)"), (_header, "corrupt header"), (_truncated, "damaged"),
    (_garbage_row, "pods default/p2 is not a kube32 object"), (_rolled_back, "rolled back"),
    (_a_file, "is a file, not a directory"),
], ids=["empty", "header", "truncated", "garbage-row", "rolled-back", "dir-is-a-file"])
def test_damaged_store_stops_with_one_line(tmp_path, damage, fragment):
    data = tmp_path / "data"
    damage(data)
    result = start(data)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert fragment in lines[0] and str(data) in lines[0], lines[0]
    debug = start(data, "--debug")
    assert "Traceback" in debug.stderr and debug.returncode != 0


def test_unwritable_data_dir_stops_with_one_line(tmp_path):
    """A read-only mount (``os.access`` says yes to root, so the server tries a write)."""
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("mounting a read-only tmpfs needs root")
    try:
        result = start(mnt)
    finally:
        subprocess.run(["umount", str(mnt)], check=True)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "not writable" in result.stderr and "Read-only file system" in result.stderr


def test_disk_full_names_the_cause_and_recovers(tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    server = None
    try:
        server = Serve("--clock", "manual", data_dir=str(mnt / "data"), log_path=tmp_path / "serve.log").start()
        filler = mnt / "filler"
        with open(filler, "wb", buffering=0) as f:   # take what is left of the 2 MiB but ~100 KiB
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass
        with open(filler, "r+b") as f:
            f.truncate(max(filler.stat().st_size - 100_000, 0))
        http = requests.Session()
        big = pod("big")
        big["metadata"]["annotations"] = {"x": "y" * 200_000}
        before = int(http.get(server.url + PODS).json()["metadata"]["resourceVersion"])
        refused = None
        for i in range(20):
            big["metadata"]["name"] = f"big{i}"
            resp = http.post(server.url + PODS, json=big, timeout=60)
            if resp.status_code != 201:
                refused = resp
                break
        assert refused is not None, "the disk never filled"
        assert refused.status_code == 500 and "disk is full" in refused.json()["message"], refused.text
        listed = http.get(server.url + PODS).json()
        assert f"big{i}" not in {p["metadata"]["name"] for p in listed["items"]}      # nothing half-stored
        filler.unlink()
        again = http.post(server.url + PODS, json=big, timeout=60)
        assert again.status_code == 201, again.text
        assert int(again.json()["metadata"]["resourceVersion"]) > before
    finally:
        if server is not None:
            server.kill()
        subprocess.run(["umount", str(mnt)], check=True)


def test_namespace_deletion_cut_short_finishes_after_restart(tmp_path):
    """The state kill -9 leaves in the middle of a namespace DELETE: the namespace marked
    Terminating (stored first), half its objects gone."""
    data = tmp_path / "data"
    store = Store(SqliteBackend(str(data)), ManualClock(1_800_000_000))
    store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}})
    for i in range(40):
        store.create("pods", pod(f"p{i}", "doomed"))

    class Cp:   # what mark_terminating needs of a control plane
        clock = ManualClock(1_800_000_000)

    Cp.store = store
    namespace.mark_terminating(Cp, store.head.get("namespaces", "", "doomed"))
    for i in range(20):
        store.delete("pods", "doomed", f"p{i}")
    store.close()
    server = Serve("--clock", "manual", data_dir=str(data), log_path=tmp_path / "serve.log").start()
    try:
        assert requests.get(server.url + "/api/v1/namespaces/doomed", timeout=30).status_code == 404
        assert requests.get(server.url + "/api/v1/namespaces/doomed/pods", timeout=30).json()["items"] == []
    finally:
        server.stop()


def test_namespace_delete_goes_terminating_then_away(tmp_path):
    server = Serve("--clock", "manual", log_path=tmp_path / "serve.log").start()
    try:
        http = requests.Session()
        http.post(server.url + "/api/v1/namespaces",
                  json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gone"}}).raise_for_status()
        for i in range(5):
            http.post(server.url + "/api/v1/namespaces/gone/pods", json=pod(f"p{i}", "gone")).raise_for_status()
        answer = http.delete(server.url + "/api/v1/namespaces/gone").json()
        assert answer["status"]["phase"] == "Terminating" and answer["metadata"]["deletionTimestamp"]
        assert http.get(server.url + "/api/v1/namespaces/gone").status_code == 404
        assert http.get(server.url + "/api/v1/namespaces/gone/pods").json()["items"] == []
    finally:
        server.stop()


def test_poison_deployment_across_a_restart(tmp_path):
    """Refused before the restart; one already stored (an older server let it in) neither hangs the
    restarted server nor makes pods without end: the controller creates a bounded burst per pass."""
    data = tmp_path / "data"
    log = tmp_path / "serve.log"
    first = Serve("--clock", "manual", data_dir=str(data), log_path=log).start()
    poison = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "poison"},
              "spec": {"replicas": 2**70, "selector": {"matchLabels": {"app": "p"}},
                       "template": {"metadata": {"labels": {"app": "p"}},
                                    "spec": {"containers": [{"name": "a", "image": "blink"}]}}}}
    deploys = "/apis/apps/v1/namespaces/default/deployments"
    assert requests.post(first.url + deploys, data=json.dumps(poison), timeout=30,
                         headers={"Content-Type": "application/json"}).status_code == 400
    first.kill()
    poison["spec"]["replicas"] = 1
    store = Store(SqliteBackend(str(data)), ManualClock(1_800_000_000))
    stored = store.create("deployments.apps", {**poison, "metadata": {"name": "poison", "namespace": "default"}})
    stored["spec"]["replicas"] = 2**70                 # as an older server would have stored it
    store.update("deployments.apps", stored)
    store.close()
    second = Serve("--clock", "manual", data_dir=str(data), log_path=log, port=first.port).start()
    try:
        out = hostile(second.url, "POST", "/debug/clock", json={"advance": 1.5})
        assert out.response.status_code == 200 and out.probes and out.worst_probe < 5
        pods = requests.get(second.url + PODS, timeout=30).json()["items"]
        assert 0 < len(pods) <= 500
        assert requests.get(second.url + deploys + "/poison", timeout=30).status_code == 200
    finally:
        second.stop()


def test_manual_clock_goes_on_after_a_restart(tmp_path):
    data = tmp_path / "data"
    log = tmp_path / "serve.log"
    first = Serve("--clock", "manual", "--clock-start", "1800000000.25", data_dir=str(data), log_path=log).start()
    requests.post(first.url + "/debug/clock", json={"advance": 3600}, timeout=60).raise_for_status()
    first.kill()
    second = Serve("--clock", "manual", data_dir=str(data), log_path=log, port=first.port).start()
    try:
        assert requests.get(second.url + "/debug/clock", timeout=30).json()["epoch"] == 1800003600.25
    finally:
        second.stop()
    third = Serve("--clock", "manual", "--clock-start", "1700000000", data_dir=str(data), log_path=log,
                        port=first.port).start()
    try:
        assert requests.get(third.url + "/debug/clock", timeout=30).json()["epoch"] == 1700000000
    finally:
        third.stop()
