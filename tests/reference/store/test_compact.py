"""The store's compact copies: what a writer shares with the stored object is kept, not copied again,
and the stored object is the same as a full compaction of what was sent."""

from __future__ import annotations

import json

from kube32.reference.clock import ManualClock
from kube32.reference.store import MemoryBackend, Store
from kube32.reference.store.compact import Compactor


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": {"app": "blink", "tier": "x"}},
            "spec": {"containers": [{"name": "c", "image": "blink", "resources": {"requests": {"memory": "1Ki"}}}],
                     "tolerations": [{"key": "k", "operator": "Exists"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}}


def test_an_update_from_a_draft_keeps_the_shared_parts_and_stores_what_was_sent():
    store = Store(MemoryBackend(), ManualClock(1_800_000_000))
    stored = store.create("pods", pod("p"), copy=False)
    draft = {**stored, "metadata": {**stored["metadata"], "annotations": {"a": "b"}},
             "spec": {**stored["spec"], "nodeName": "esp-1"}}
    sent = json.loads(json.dumps(draft))
    bound = store.update("pods", draft, copy=False)
    assert bound["spec"]["containers"] is stored["spec"]["containers"]      # shared, not copied
    assert bound["status"] is stored["status"] and bound["metadata"]["labels"] is stored["metadata"]["labels"]
    assert bound["spec"] is not stored["spec"] and stored["spec"].get("nodeName") is None
    for key in ("resourceVersion", "generation"):
        sent["metadata"][key] = bound["metadata"][key]
    assert bound == sent
    again = store.update("pods", json.loads(json.dumps(bound)), copy=False)      # nothing shared: equal
    assert again == bound


def test_compacting_like_an_object_gives_what_compacting_from_scratch_gives():
    compactor = Compactor()
    stored = compactor.compact_object(pod("p"))
    draft = {**stored, "spec": {**stored["spec"], "nodeName": "n"}, "status": {"phase": "Running"}}
    assert compactor.compact_object(draft, stored) == Compactor().compact_object(json.loads(json.dumps(draft)))
    assert compactor.compact_object(draft, stored)["spec"]["tolerations"] is stored["spec"]["tolerations"]


def test_equal_parts_are_shared_at_every_depth_and_scalars_keep_their_types():
    compactor = Compactor()
    a, b = compactor.compact_object(pod("a")), compactor.compact_object(pod("b"))
    assert a["spec"] is b["spec"] and a["status"] is b["status"]          # nested containers included
    assert a["metadata"] is not b["metadata"]                             # the store fills it in
    one, real, true = ({"spec": {"replicas": v, "ports": [v]}} for v in (1, 1.0, True))
    shared = [compactor.compact_object(o) for o in (one, real, true)]
    assert [json.dumps(o) for o in shared] == [json.dumps(o) for o in (one, real, true)]
    assert shared[0]["spec"] is not shared[1]["spec"] and shared[0]["spec"] is not shared[2]["spec"]
    empty = [compactor.compact_object({"spec": {"volumes": []}}) for _ in range(2)]
    assert empty[0]["spec"]["volumes"] is not empty[1]["spec"]["volumes"]     # empty ones stay apart
