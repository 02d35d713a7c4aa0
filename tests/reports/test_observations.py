"""The scenario's observations: only changes are kept, stamped with the target clock; the picture
built from them puts the deadlines where the timing verdicts say."""

from __future__ import annotations

from kube32.conformance.observations import Observations
from kube32.conformance.reports import timelines

T0 = 1_700_000_000.0


class Clock:
    manual = True

    def __init__(self) -> None:
        self.t = T0

    def now(self) -> float:
        return self.t


def _iso(t: float) -> str:
    import datetime as dt
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node(ready: str, changed: float, taints=()) -> dict:
    return {"kind": "Node", "metadata": {"name": "node-a"},
            "spec": {"taints": [{"key": k, "effect": e, "timeAdded": _iso(t)} for k, e, t in taints]},
            "status": {"conditions": [{"type": "Ready", "status": ready, "reason": "r",
                                       "lastTransitionTime": _iso(changed)}]}}


def test_changes_only_with_target_times():
    clock = Clock()
    obs = Observations(clock, "k32-ns")
    obs("GET", "/api/v1/nodes/node-a", node("True", T0))
    clock.t += 5
    obs("GET", "/api/v1/nodes/node-a", node("True", T0))                     # no change: nothing new
    obs("PUT", "/lease", {"kind": "Lease", "metadata": {"name": "node-a", "namespace": "kube-node-lease"},
                          "spec": {"renewTime": _iso(T0 + 5)}})
    clock.t += 40
    unreachable = ("node.kubernetes.io/unreachable", "NoExecute", T0 + 30)
    obs("GET", "/api/v1/nodes", {"kind": "NodeList", "items": [node("Unknown", T0 + 20, [unreachable])]})
    obs("GET", "/api/v1/namespaces/other/pods/x", {"kind": "Pod", "metadata": {"name": "x", "namespace": "other"}})
    for bound in ("node-a", "node-a", None):
        obs("GET", "/pod", {"kind": "Pod", "metadata": {"name": "web", "namespace": "k32-ns"},
                            "spec": {"nodeName": bound} if bound else {}, "status": {"phase": "Pending"}})
    clock.t += 10
    obs("GET", "/api/v1/nodes/node-a", node("Unknown", T0 + 20))                 # the taint went away
    record = obs.to_dict()
    entry = record["nodes"]["node-a"]
    assert [(r["status"], r["at"]) for r in entry["ready"]] == [("True", T0), ("Unknown", T0 + 20)]
    assert entry["renewals"] == [T0 + 5]
    assert entry["taints"] == [{"key": unreachable[0], "effect": "NoExecute", "added": T0 + 30, "seen": T0 + 45,
                                "gone": T0 + 55}]
    assert [h["node"] for h in record["pods"]["web"]] == ["node-a", None] and "x" not in record["pods"]
    assert obs.eventful


def test_the_picture_marks_the_deadline_and_zooms_in():
    obs = {"t0": T0, "origin": T0 + 2, "end": T0 + 400, "nodes": {}, "pods": {
        "web": [{"at": T0, "node": "node-a", "phase": "Running", "deleting": False},
                {"at": T0 + 333, "node": None, "phase": "Pending", "deleting": False}]}}
    timing = [{"step": "evicted", "kind": "by", "deadline": 330.0, "allowed": [330.0, 330.5], "allowance": 0.2,
               "observed": 331.0, "verdict": "failed", "detail": "still bound"}]
    (caption, whole), (_, close) = timelines.pictures(obs, timing)
    assert caption == "the whole scenario"
    assert [m.label for m in whole.marks] == ["expected +332 s"]             # origin + deadline, from t0
    band_x, band_width, _ = close.bands[0]
    mark_x = close.marks[0].x
    assert band_x == mark_x and band_width > 50                               # readable in the close-up
    dot_x = close.dots[0][0]
    assert dot_x > band_x + band_width and close.dots[0][2] == timelines.VERDICT_COLOURS["failed"]
    assert timelines.pictures({"t0": T0, "end": T0, "nodes": {}, "pods": {}}, []) == []


def _pod(node: str | None, disrupted: float | None = None) -> dict:
    status = {"phase": "Running" if node else "Pending"}
    if disrupted is not None:
        status["conditions"] = [{"type": "DisruptionTarget", "status": "True", "lastTransitionTime": _iso(disrupted)}]
    return {"kind": "Pod", "metadata": {"name": "web", "namespace": "k32-ns"},
            "spec": {"nodeName": node} if node else {}, "status": status}


def test_a_pod_evicted_between_looks_is_drawn_as_observed_not_as_still_bound():
    """The pod was last seen on node-a at +10 s, evicted at +230 s (its DisruptionTarget says so) and
    seen Pending at +330 s: the picture ends node-a at +10 s, shows +10..+230 s as not observed, and
    Pending from +230 s — never "on node-a" up to the moment the runner looked again."""
    clock = Clock()
    obs = Observations(clock, "k32-ns")
    obs("GET", "/pod", _pod("node-a"))
    clock.t += 10
    obs("GET", "/pod", _pod("node-a"))
    clock.t += 320
    obs("GET", "/pod", _pod(None, disrupted=T0 + 230))
    record = obs.to_dict()
    history = record["pods"]["web"]
    assert [(h["node"], h["at"] - T0, h["last"] - T0) for h in history] == [("node-a", 0, 10), (None, 230, 330)]
    picture = timelines.build(record)
    bars = picture.lanes[0].bars
    assert [b.title.split(" (")[0] for b in bars] == ["bound to node-a", "not observed from +10 s to +230 s", "not bound"]
    assert bars[0].x + bars[0].width == bars[1].x and bars[1].x + bars[1].width == bars[2].x


def test_a_stamp_before_the_last_look_is_not_believed():
    """A DisruptionTarget older than a look that still saw the pod bound (an old condition kept from an
    earlier eviction) does not move the change before that look."""
    clock = Clock()
    obs = Observations(clock, "k32-ns")
    obs("GET", "/pod", _pod("node-a"))
    clock.t += 50
    obs("GET", "/pod", _pod("node-a"))
    clock.t += 10
    obs("GET", "/pod", _pod(None, disrupted=T0 + 20))
    assert [h["at"] - T0 for h in obs.to_dict()["pods"]["web"]] == [0, 60]
