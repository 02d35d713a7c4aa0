"""What time costs in requests on a manual clock: the clock stops where a fake kubelet must act
(its Lease every 5 s, as the document's kubelet renews) and a quiet node's pods are listed only
when something can have moved them -- a write of the runner's, or a workload controller's pass."""

from __future__ import annotations

import collections

import pytest

from kube32.conformance.client import ApiClient
from kube32.conformance.kubelets import FakeKubelet
from kube32.conformance.targets.base import ManualTargetClock
from kube32.conformance.timeline import Timeline
from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread
from kube32.spec import profiles
from tests.proxy import route

START = 1767225600.3       # off a whole second: nothing may depend on the phase


@pytest.fixture
def world():
    server = start_in_thread(Config(listen="127.0.0.1:0", clock="manual", clock_start=START))
    api = ApiClient(server.url)
    sent: collections.Counter[str] = collections.Counter()
    send = api.request

    def counted(method, path, **kw):
        sent[route(method, path)] += 1
        return send(method, path, **kw)

    api.request = counted
    clock = ManualTargetClock(api)
    kubelets: dict[str, FakeKubelet] = {}
    timeline = Timeline(clock, kubelets)
    api.observers.append(timeline.saw_request)
    profile = profiles.load("simulator")
    for i, name in enumerate(("node-a", "node-b")):
        kubelets[name] = FakeKubelet(api, clock, name, profile, i + 1)
        kubelets[name].register(capacity={"memory": "64Ki"}, allocatable={"memory": "64Ki"}, labels={})
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "t"}})
    timeline.advance(1.0)              # the first sync after registering: nothing there
    yield api, timeline, kubelets, sent
    server.stop()


def test_registering_a_node_is_two_writes(world):
    _, _, _, sent = world
    assert sent["POST nodes"] == 2 and sent["POST leases"] == 2
    assert sent["PUT nodes/{name}/status"] == 0 and sent["GET leases/{name}"] == 0   # status came with the Node


def test_without_workloads_a_minute_stops_the_clock_only_for_the_renewals(world):
    _, timeline, _, sent = world
    sent.clear()
    timeline.advance(60.0)
    assert sent == {"POST debug/{name}": 12 + 1, "PUT leases/{name}": 24}, sent    # 12 renewals, the landing


def test_a_write_of_the_runner_brings_one_sync_a_second_later(world):
    api, timeline, kubelets, sent = world
    api.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "t"},
                "spec": {"nodeName": "node-a", "containers": [{"name": "main", "image": "kube32/app:1"}]}})
    api.delete("Pod", "p", "t")                    # graceful: terminating until its kubelet confirms
    sent.clear()
    timeline.advance(30.0)
    assert api.try_get("Pod", "p", "t") is None, "the kubelet did not confirm the deletion"
    assert sent["GET pods"] == 2, sent             # the sync that confirmed, the one that found it gone
    assert sent["DELETE pods/{name}"] == 1


def test_with_a_workload_quiet_nodes_look_at_their_pods_at_their_renewals(world):
    api, timeline, _, sent = world
    api.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "t"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                         "template": {"metadata": {"labels": {"app": "web"}},
                                      "spec": {"nodeSelector": {"board": "none"},
                                               "containers": [{"name": "main", "image": "kube32/app:1"}]}}}})
    timeline.advance(5.0)                          # the woken syncs find nothing to do
    sent.clear()
    timeline.advance(60.0)
    assert sent["POST debug/{name}"] == 12 + 1, sent   # no stops but the renewals (and the landing)
    assert sent["GET pods"] == 12, sent            # one listing per stop, shared by both nodes
