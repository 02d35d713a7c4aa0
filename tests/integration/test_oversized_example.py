"""The kube32 document's kubectl example, run as the document shows it.

From the repository root, against ``kube32-conformance serve`` with the document's two boards
(created over HTTP): ``kubectl apply -f examples/oversized-pod.yaml``, ``kubectl get pod
oversized-pod`` and ``kubectl get events --field-selector involvedObject.name=oversized-pod``.
The server runs on its manual clock, moved 4 s between the apply and the gets as in the transcript.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import requests
from integration_helpers import (
    KUBECTL_TIMEOUT,
    columns,
    kubectl_binary,
    start_two_board_cluster,
    write_kubeconfig,
)

pytestmark = pytest.mark.kubectl

REPO = Path(__file__).resolve().parents[2]
MESSAGE = ("0/2 nodes are available: 1 Insufficient esp32.io/psram, "
           "1 node(s) didn't match Pod's node affinity/selector.")


@pytest.fixture(scope="module")
def server():
    running = start_two_board_cluster("esp-s3", "esp-c3")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def kubectl(server, tmp_path_factory):
    binary = kubectl_binary("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed here; this test drives the real kubectl binary")
    home = tmp_path_factory.mktemp("kubectl")
    env = {"KUBECONFIG": str(write_kubeconfig(home / "kubeconfig", server.url)),
           "KUBECACHEDIR": str(home / "cache"), "PATH": str(Path(binary).parent) + ":/usr/bin:/bin"}

    def run(*args: str) -> str:
        proc = subprocess.run([binary, *args], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=KUBECTL_TIMEOUT)
        assert proc.returncode == 0, f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr}"
        return proc.stdout
    return run


def rows(output: str) -> tuple[list[str], list[list[str]]]:
    header, *lines = [line for line in output.splitlines() if line.strip()]
    return columns(header), [columns(line) for line in lines]


def test_the_example_file_is_the_documents_pod():
    text = (REPO / "examples" / "oversized-pod.yaml").read_text()
    assert "name: oversized-pod" in text and "esp32.io/psram" in text and "nodeSelector" in text


def test_apply_get_pod_get_events(kubectl, server):
    assert kubectl("apply", "-f", "examples/oversized-pod.yaml").strip() == "pod/oversized-pod created"
    requests.post(server.url + "/debug/clock", json={"advance": 4}).raise_for_status()

    header, pods = rows(kubectl("get", "pod", "oversized-pod"))
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert pods == [["oversized-pod", "0/1", "Pending", "0", "4s"]]

    header, events = rows(kubectl("get", "events", "--field-selector", "involvedObject.name=oversized-pod"))
    assert header == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert all(row[3] == "pod/oversized-pod" for row in events), events
    # the scheduler retried every second, so the one aggregated event was last seen just now
    assert events == [["0s", "Warning", "FailedScheduling", "pod/oversized-pod", MESSAGE]]
