"""Which bound pods count against a node, and the FailedScheduling text."""

from __future__ import annotations

import pytest

from kube32.reference.scheduler import accounting, framework, messages
from kube32.spec import reasons


def bound(rv: int, phase: str | None = None, waiting: bool = False) -> dict:
    status: dict = {}
    if phase:
        status["phase"] = phase
    if waiting:
        status["containerStatuses"] = [{"name": "c", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]
    return {"metadata": {"resourceVersion": str(rv)}, "spec": {"nodeName": "n"}, "status": status}


@pytest.mark.parametrize(("case", "pod", "counts"), [
    ("no phase yet (Pending)", bound(5), True),
    ("Pending, older than the node's write", bound(5, "Pending"), True),
    ("Running, older than the node's write", bound(5, "Running"), False),
    ("Running, written after the node's write", bound(15, "Running"), True),
    ("Running, container waiting to restart", bound(5, "Running", waiting=True), True),
    ("Succeeded, written after", bound(15, "Succeeded"), False),
    ("Failed, written after", bound(15, "Failed"), False),
    ("same resourceVersion is not after", bound(10, "Running"), False),
])
def test_counts_against_node(case, pod, counts):
    assert accounting.counts_against_node(pod, 10) is counts, case


def test_usage_sums_only_counted_pods():
    amounts = {"memory": 100, "esp32.io/gpio": 1}
    pairs = [(bound(5, "Running"), amounts), (bound(15, "Running"), amounts), (bound(1), amounts)]
    usage = accounting.usage(pairs, 10)
    assert usage["memory"] == 200 and usage["esp32.io/gpio"] == 2


def st(*reasons_: str) -> framework.Status:
    return framework.unschedulable("X", *reasons_)


@pytest.mark.parametrize(("total", "statuses", "want"), [
    (3, [st("Node(s) failed Filter plugin FalseFilter-1")] * 3,
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1."),
    (3, [st("Node(s) failed Filter plugin FalseFilter-2")] + [st("Node(s) failed Filter plugin FalseFilter-1")] * 2,
     "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
     "2 Node(s) failed Filter plugin FalseFilter-1."),
    (13, [st("node(s) were not ready")] + [st("Insufficient memory")] * 10 + [st("node(s) were unschedulable")] * 2,
     "0/13 nodes are available: 1 node(s) were not ready, 10 Insufficient memory, 2 node(s) were unschedulable."),
    (2, [st("Insufficient esp32.io/gpio", "Insufficient esp32.io/adc"), st("Insufficient esp32.io/gpio")],
     "0/2 nodes are available: 1 Insufficient esp32.io/adc, 2 Insufficient esp32.io/gpio."),
    (1, [st("Insufficient memory", "Insufficient memory")], "0/1 nodes are available: 1 Insufficient memory."),
    (0, [], reasons.NO_NODES_AVAILABLE),
])
def test_fit_error(total, statuses, want):
    assert messages.fit_error(total, statuses) == want


def test_entries_sort_by_bytes_upper_case_first():
    assert messages.sort_entries(["1 b", "1 B", "10 a", "2 a"]) == ["1 B", "1 b", "10 a", "2 a"]


def test_scheduled_message():
    assert messages.scheduled("ns", "p", "node-a") == "Successfully assigned ns/p to node-a"
