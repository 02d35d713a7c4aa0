"""BoardNode: a feature node played by a rig board's real kubelet (the FakeKubelet surface).

A real kubelet decides by itself what it reports, so this driver only observes and switches:

- ``register(...)`` waits until the board's Node is Ready over the API. The resource columns of
  "these Ready nodes" are IGNORED (the board reports what it measures) in scenarios written for rigs
  (tagged ``@realtime`` or ``@needs-real-kubelet``: they promise not to depend on node figures); any
  other scenario that fixes a board node's figures is disabled (``CapabilityMissing``) rather than
  judged on figures the board does not have. Labels and ``cordoned`` are applied as user writes
  (PATCH) and taken back by ``detach`` at the end of the scenario.
- ``silence()`` holds the board in reset (EN low, port kept open): the node goes silent.
  ``resume()`` releases it and waits for its kubelet-ready console line.
- ``due()`` is None: the board renews its Lease by itself.
- ``start_pod`` waits until the board's kubelet runs the pod (it starts bound pods by itself);
  every other status report (``report_status``, ``set_pod_ready``, ``finish_pod``,
  ``restart_container``, a node that never reported status, a Lease of another duration) raises
  ``CapabilityMissing``: the scenario is disabled on rigs, since a real kubelet decides those.
"""

from __future__ import annotations

import time

from kube32.conformance.errors import CapabilityMissing
from kube32.spec import constants, timefmt

READY_POLL = 0.1
RIG_SCENARIO_TAGS = {"realtime", "needs-real-kubelet"}   # scenarios that do not depend on node figures


class BoardNode:
    def __init__(self, target, name: str, board: str, ctx, lease_duration: float | None = None) -> None:
        self.target, self.name, self.board, self.ctx = target, name, board, ctx
        self.api = ctx.api
        self.profile = ctx.profile
        if lease_duration is not None and lease_duration != self.profile.lease_duration:
            raise self._missing(f"a Lease declaring {lease_duration:g} s (the board declares its own)")
        self.lease_duration = self.profile.lease_duration
        self.silenced = False
        self.auto_start = False     # boards start bound pods by themselves anyway
        self._hold_terminating = False
        self.capacity: dict[str, str] = {}
        self.free: dict[str, str] = {}   # a step may write here; the board never reads it
        self.ready = "True"
        self.next_renew: float | None = None
        self.next_sync: float | None = None
        self._labels: list[str] = []
        self._cordoned = False

    def _missing(self, what: str) -> CapabilityMissing:
        return CapabilityMissing(f"node {self.name} is played by rig board {self.board}, whose real kubelet "
                                 f"decides this itself: {what}")

    @property
    def hold_terminating(self) -> bool:
        return self._hold_terminating

    @hold_terminating.setter
    def hold_terminating(self, value: bool) -> None:
        if value:
            raise self._missing("keeping terminating pods")
        self._hold_terminating = False

    # -- registration -------------------------------------------------------------------------
    def register(self, *, capacity: dict[str, str], allocatable: dict[str, str], labels: dict[str, str],
                 with_status: bool = True, unschedulable: bool = False, ready: str = "True") -> dict:
        """Wait until the board's Node is Ready; resource figures are ignored (the board measures them)."""
        if not with_status:
            raise self._missing("a node that never reported status")
        if ready != "True":
            raise self._missing(f"reporting Ready {ready!r}")
        figures = {**capacity, **allocatable}
        if figures and not (RIG_SCENARIO_TAGS & set(getattr(self.ctx, "tags", ()))):
            shown = ", ".join(f"{k}={v}" for k, v in sorted(figures.items()))
            raise self._missing(f"a node with the scenario's own figures ({shown}); a board reports what it "
                                "measures, and only @realtime / @needs-real-kubelet scenarios promise not to "
                                "depend on them")
        unpark = getattr(self.target, "unpark_board", None)
        if unpark is not None:
            unpark(self.board)      # parked for a scenario that owns the node set: it plays after all
        node = self.wait_ready()
        patch: dict = {}
        labels = {**labels, **getattr(self.ctx, "fence_labels", {})}   # beside other scenarios: the fence (context.py)
        if labels:
            patch["metadata"] = {"labels": dict(labels)}
            self._labels = sorted(labels)
        if unschedulable:
            patch["spec"] = {"unschedulable": True}
            self._cordoned = True
        if patch:
            node = self.api.patch("Node", self.name, patch)
        self.capacity = dict((node.get("status") or {}).get("capacity") or {})
        return node

    def wait_ready(self, timeout: float | None = None) -> dict:
        """The board's Node with Ready True, polled over the API (boards fail fast through the rig)."""
        timeout = timeout if timeout is not None else self.target.ready_timeout()
        deadline = time.monotonic() + timeout
        last = "no Node object"
        while True:
            self.target.check_health()
            node = self.api.try_get("Node", self.name)
            if node is not None:
                conds = [c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"]
                if conds and conds[0].get("status") == "True":
                    return node
                last = f"Ready condition {conds[0] if conds else None}"
            if time.monotonic() >= deadline:
                raise AssertionError(f"node {self.name} (board {self.board}) did not become Ready within "
                                     f"{timeout:g} s; last seen: {last}")
            time.sleep(READY_POLL)

    def detach(self) -> None:
        """End of scenario: take back the labels and cordon this scenario put on the board's Node."""
        patch: dict = {}
        if self._labels:
            patch["metadata"] = {"labels": {k: None for k in self._labels}}
        if self._cordoned:
            patch["spec"] = {"unschedulable": None}
        if patch:
            try:
                self.api.patch("Node", self.name, patch)
            except Exception:  # noqa: BLE001 - best effort; the next scenario re-applies what it needs
                pass
        self._labels, self._cordoned = [], False

    # -- time: the board keeps its own -------------------------------------------------------
    def due(self) -> float | None:
        return None

    def run_due(self, now: float) -> None:
        pass

    def silence(self) -> None:
        """Hold the board in reset: its kubelet stops renewing the Lease."""
        if not self.silenced:
            self.target.hold_board(self.board)
            self.silenced = True

    def resume(self) -> None:
        """Release the board and wait for its kubelet-ready line (it renews at once when up)."""
        if self.silenced:
            self.target.release_board(self.board)
            self.silenced = False

    @property
    def renewed_at(self) -> float | None:
        """The renewTime the board last wrote, read from its Lease (timing verdicts count from it)."""
        lease = self.api.try_get("Lease", self.name, constants.NODE_LEASE_NAMESPACE)
        renew_time = ((lease or {}).get("spec") or {}).get("renewTime")
        return timefmt.parse(renew_time) if renew_time else None

    def renew(self) -> dict:
        raise self._missing("a renewal on demand")

    def sync_pods(self) -> None:
        pass

    # -- reports a real kubelet makes itself ---------------------------------------------------
    def report_status(self) -> dict:
        raise self._missing("a node status report on demand")

    def node_status(self) -> dict:
        raise self._missing("a node status chosen by the runner")

    def start_pod(self, name: str, namespace: str, report: bool = True, known: dict | None = None) -> dict:
        """Wait until the board runs the pod; a pod the board refuses disables the scenario."""
        deadline = time.monotonic() + self.target.ready_timeout()
        while True:
            self.target.check_health()
            pod = self.api.get("Pod", name, namespace)
            status = pod.get("status") or {}
            if status.get("phase") == "Running":
                return pod
            if status.get("phase") in ("Failed", "Succeeded"):
                raise self._missing(f"running pod {name}: the board answered phase {status.get('phase')} "
                                    f"({status.get('reason', '')}: {status.get('message', '')})")
            if time.monotonic() >= deadline:
                raise AssertionError(f"board {self.board} did not start pod {name} within "
                                     f"{self.target.ready_timeout():g} s; status: {status}")
            time.sleep(READY_POLL)

    def set_pod_ready(self, name: str, namespace: str, ready: bool, known: dict | None = None) -> dict:
        raise self._missing(f"pod {name} readiness chosen by the runner")

    def finish_pod(self, name: str, namespace: str, succeeded: bool, known: dict | None = None,
                   report: bool = True) -> dict:
        raise self._missing(f"pod {name} ending on demand")

    def restart_container(self, name: str, namespace: str, known: dict | None = None) -> dict:
        raise self._missing(f"a container restart of pod {name} on demand")
