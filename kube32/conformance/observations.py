"""What a scenario saw of its nodes and pods over time: the data behind the report's timelines.

Black-box: an ``Observations`` listens to every object the runner's API client receives (steps,
fake kubelets and the background kubelet thread alike) and keeps only the changes, stamped with
the target's clock: each node's Ready condition, its taints (with ``timeAdded``), its Lease
renewals, and each pod's binding and phase. Nothing is asked of the target for it.
"""

from __future__ import annotations

import threading

from kube32.spec import constants, timefmt

MAX_RENEWALS = 2000     # a long real-time scenario renews often; keep the picture bounded


def _time(text) -> float | None:
    try:
        return timefmt.parse(text) if isinstance(text, str) and text else None
    except ValueError:
        return None


def _changed_at(pod: dict, bound: bool) -> float | None:
    """When the target says the pod last changed binding: PodScheduled's transition for a binding,
    DisruptionTarget's for an eviction."""
    wanted = "PodScheduled" if bound else "DisruptionTarget"
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == wanted and cond.get("status") == "True":
            return _time(cond.get("lastTransitionTime"))
    return None


class Observations:
    def __init__(self, clock, namespace: str) -> None:
        self.clock = clock
        self.namespace = namespace
        self.t0 = clock.now()
        self._lock = threading.Lock()
        self.nodes: dict[str, dict] = {}
        self.pods: dict[str, list] = {}

    # -- the API client's observer ---------------------------------------------------------
    def __call__(self, method: str, path: str, body: dict) -> None:
        items = body.get("items") if body.get("kind", "").endswith("List") else [body]
        now = self.clock.now()
        with self._lock:
            for obj in items or []:
                kind = obj.get("kind") or body.get("kind", "").removesuffix("List")
                if kind == "Node":
                    self._node(obj, now)
                elif kind == "Lease":
                    self._lease(obj)
                elif kind == "Pod":
                    self._pod(obj, now)

    def _node_entry(self, name: str) -> dict:
        return self.nodes.setdefault(name, {"ready": [], "taints": [], "renewals": []})

    def _node(self, node: dict, now: float) -> None:
        entry = self._node_entry(node["metadata"]["name"])
        ready = next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"),
                     None)
        status = ready.get("status", "Unknown") if ready else None
        if status is not None and (not entry["ready"] or entry["ready"][-1]["status"] != status):
            changed = _time(ready.get("lastTransitionTime"))
            at = changed if changed is not None and changed <= now + 1 else now
            entry["ready"].append({"at": at, "seen": now, "status": status, "reason": ready.get("reason", "")})
        present = {(t.get("key"), t.get("effect")): t for t in (node.get("spec") or {}).get("taints") or []}
        open_taints = {(t["key"], t["effect"]): t for t in entry["taints"] if t["gone"] is None}
        for key, taint in present.items():
            if key not in open_taints:
                entry["taints"].append({"key": key[0], "effect": key[1], "added": _time(taint.get("timeAdded")),
                                        "seen": now, "gone": None})
        for key, taint in open_taints.items():
            if key not in present:
                taint["gone"] = now

    def _lease(self, lease: dict) -> None:
        if lease["metadata"].get("namespace") != constants.NODE_LEASE_NAMESPACE:
            return
        renewed = _time((lease.get("spec") or {}).get("renewTime"))
        renewals = self._node_entry(lease["metadata"]["name"])["renewals"]
        if renewed is not None and renewed not in renewals[-3:] and len(renewals) < MAX_RENEWALS:
            renewals.append(renewed)

    def _pod(self, pod: dict, now: float) -> None:
        """A pod's state changes, each from the moment the target stamped it when it says (an
        eviction's DisruptionTarget, a binding's PodScheduled), else from when it was seen; ``last``
        is when the state was last seen, so a picture never draws it past what was observed."""
        meta = pod["metadata"]
        if meta.get("namespace") != self.namespace:
            return
        state = {"node": (pod.get("spec") or {}).get("nodeName") or None,
                 "phase": (pod.get("status") or {}).get("phase", ""),
                 "deleting": bool(meta.get("deletionTimestamp"))}
        history = self.pods.setdefault(meta["name"], [])
        if history and {k: history[-1][k] for k in state} == state:
            history[-1]["last"] = max(history[-1]["last"], now)
            return
        stamped = _changed_at(pod, state["node"] is not None)
        since = history[-1]["last"] if history else float("-inf")
        at = stamped if stamped is not None and since <= stamped <= now + 1 else now
        history.append({"at": at, "seen": now, "last": now, **state})

    # -- the record ----------------------------------------------------------------------
    def to_dict(self) -> dict:
        with self._lock:
            return {"t0": self.t0, "end": self.clock.now(), "clock": "manual" if self.clock.manual else "real",
                    "nodes": {n: {k: [dict(x) if isinstance(x, dict) else x for x in v] for k, v in e.items()}
                              for n, e in self.nodes.items()},
                    "pods": {p: [dict(x) for x in h] for p, h in self.pods.items()}}

    @property
    def eventful(self) -> bool:
        """Something a timeline shows beyond nodes that simply stayed Ready."""
        with self._lock:
            return any(e["taints"] or any(r["status"] != "True" for r in e["ready"]) for e in self.nodes.values())
