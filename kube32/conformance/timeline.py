"""Time passing in a scenario, the same text on every target.

Manual clock: jump the target's clock from one kubelet deadline to the next (each jump runs the
target's own due controller ticks), doing the kubelet work due at each stop, then land exactly on
the requested time. Real clock: a background thread does the kubelets' work on time while the
step waits.

Deadlines (``just_before`` / ``by``) set the scenario's judgement window (``kube32.conformance.timing``):
the document's moment T is never assumed to coincide with a target's check, so time stands just
short of T to see that nothing happened early, and at T + one check interval to see that it did.
Consecutive time steps count from where the previous one meant to stand (its deadline), not from
where a real clock happened to be when the step began.
"""

from __future__ import annotations

import threading
import time

from kube32.conformance import timing
from kube32.conformance.errors import HarnessError, TargetUnavailable

CHAIN_SLACK = 1.0     # real seconds after a time step within which the next one chains onto it
REAL_TICK = 0.05      # real seconds between the background kubelet thread's looks (real clock)
WORKLOADS = ("deployments", "daemonsets", "jobs")    # their controllers create and delete pods


class Timeline:
    def __init__(self, clock, kubelets: dict, heartbeat=None) -> None:
        self.clock = clock
        self.heartbeat = heartbeat        # heartbeat.Heartbeat: says how far a long real-time wait has got
        self.kubelets = kubelets          # name -> FakeKubelet (shared with the context)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.errors: list[BaseException] = []
        self.latency = timing.LatencyMeter()
        self.window: timing.Window | None = None
        self.origin = clock.now()         # what timing records count from (the last "last renewal")
        self._nominal: float | None = None
        self._pinned = False
        self.from_renewal = False         # the time steps chain on from a Lease renewal (pin)
        self.workloads = False            # the runner created a Deployment/DaemonSet/Job: pods move alone
        if not clock.manual:
            self._thread = threading.Thread(target=self._run_real, name="kube32-kubelets", daemon=True)
            self._thread.start()

    def now(self) -> float:
        return self.clock.now()

    # -- where the scenario stands ----------------------------------------------------------------
    def pin(self, t: float, origin: bool = False, renewal: bool = False) -> None:
        """The next time step counts from ``t`` (e.g. the renewTime a kubelet just wrote:
        ``renewal``, so deadlines chained on from it count from a renewal, ``timing.Window.sighting``)."""
        self._nominal = t
        self._pinned = True               # the next time step counts from t, however long ago that was
        self.from_renewal = renewal
        if origin:
            self.origin = t

    def unpin(self) -> None:
        """Something else starts the count now (a node stops renewing): a pinned moment no longer
        anchors the next time step."""
        self._pinned = False

    def _base(self) -> float:
        now = self.clock.now()
        if self._nominal is not None and (self.clock.manual or self._pinned or now - self._nominal < CHAIN_SLACK):
            return self._nominal
        return now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time only moves forward")
        target = self._base() + seconds
        self.window = None
        self._move_to(target)
        self._nominal, self._pinned = target, False

    def advance_to(self, t: float) -> None:
        """Stand at ``t`` (no judgement window)."""
        self.window = None
        self.from_renewal = False
        self._move_to(t)
        self._nominal, self._pinned = t, False

    def from_base(self, seconds: float) -> float:
        """The moment ``seconds`` after where the scenario stands."""
        return self._base() + seconds

    def just_before(self, deadline: float, interval: float, what: str, renewal: bool = False,
                    chained: bool = False) -> None:
        """Stand just short of ``deadline``: nothing due at it may have happened yet. ``renewal``:
        the deadline counts from a Lease renewal the runner wrote; ``chained``: what is due there may
        follow another action of the target's due there too (``timing.Window.sighting``)."""
        margin = timing.MANUAL_MARGIN if self.clock.manual else self.latency.margin(interval)
        self._move_to(deadline - margin)
        self.window = timing.Window("before", deadline, deadline - margin, interval, what,
                                    self._sighting(interval, renewal, chained))
        self._nominal, self._pinned = deadline, False

    def by(self, deadline: float, interval: float, what: str, renewal: bool = False, chained: bool = False,
           sighting: float | None = None) -> None:
        """Stand at ``deadline`` + one check interval: what was due at it must have happened."""
        at = deadline + interval
        self._move_to(at)
        self.window = timing.Window("by", deadline, at, interval, what,
                                    self._sighting(interval, renewal, chained) if sighting is None else sighting)
        self._nominal, self._pinned = at, False

    def _sighting(self, interval: float, renewal: bool, chained: bool) -> float:
        return 0.0 if self.clock.manual else interval * (renewal + chained)

    def check_interval_passes(self, interval: float, what: str) -> None:
        """Right after a ``just_before`` step the interval counts from that deadline (the check that
        must see it); otherwise it is an ordinary interval."""
        if self.window is not None and self.window.kind == "before":
            self.by(self.window.deadline, interval, f"{self.window.what}, {what}", sighting=self.window.sighting)
        else:
            self.advance(interval)

    # -- moving the clock ---------------------------------------------------------------------------
    def _move_to(self, target: float) -> None:
        if not self.clock.manual:
            if self.heartbeat is not None:
                self.heartbeat.wait_until(self.clock, target)
            else:
                self.clock.advance_to(target)
            self.latency.woke(target, time.time())
            self._raise_background_errors()
            return
        if target < self.clock.now() - 1e-6:
            raise AssertionError(f"the scenario cannot go back {self.clock.now() - target:.3f} s")
        for k in list(self.kubelets.values()):
            # Between jumps nothing changes but what requests cause; during them, a node's pods
            # change by themselves only through workload controllers (or rebinding, for auto-start)
            if hasattr(k, "pods_move_alone"):
                k.pods_move_alone = self.workloads or k.auto_start
        while True:
            dues = [(k.due(), k) for k in list(self.kubelets.values())]
            dues = [(t, k) for t, k in dues if t is not None and t <= target + 1e-9]
            if not dues:
                break
            at = min(t for t, _ in dues)
            self.clock.advance_to(at)
            due_now = [k for t, k in dues if t <= at + 1e-9]
            pods = self._pods_by_node(due_now, at)
            for k in due_now:
                if pods is not None and k.name in pods:
                    k.run_due(at, pods[k.name])
                else:
                    k.run_due(at)
        self.clock.advance_to(target)

    def _pods_by_node(self, kubelets: list, at: float) -> dict[str, list[dict]] | None:
        """Several fake kubelets syncing at one stop share one listing of all pods."""
        syncing = [k for k in kubelets if getattr(k, "sync_due", lambda _: False)(at)]
        if len(syncing) < 2:
            return None
        pods: dict[str, list[dict]] = {k.name: [] for k in syncing}
        for pod in syncing[0].api.list("Pod", None):
            node = (pod.get("spec") or {}).get("nodeName")
            if node in pods:
                pods[node].append(pod)
        return pods

    def saw_request(self, method: str, path: str, body) -> None:
        """ApiClient observer: a write of the runner's (not a kubelet's lease or node status) may give
        the kubelets something to do, so they sync again within a second."""
        if method == "GET" or path.startswith("/debug") or "/leases/" in path or path.endswith("/status") \
                and "/nodes/" in path:
            return
        if method == "POST" and path.rstrip("/").rsplit("/", 1)[-1] in WORKLOADS:
            self.workloads = True
        for k in list(self.kubelets.values()):
            wake = getattr(k, "wake", None)
            if wake is not None:
                wake()

    def _run_real(self) -> None:
        while not self._stop.is_set():
            now = time.time()
            for k in list(self.kubelets.values()):
                due = k.due()
                if due is not None and due <= now:
                    try:
                        k.run_due(now)
                    except TargetUnavailable:
                        pass  # e.g. the control plane is restarting: a kubelet retries, so does this
                    except Exception as exc:  # reported by the next time step
                        self.errors.append(exc)
            # how late this thread's own short waits end is the machine's scheduling delay all through
            # the scenario, not only at the end of time steps: part of the measured latency allowance
            wanted = time.time() + REAL_TICK
            if not self._stop.wait(REAL_TICK):
                self.latency.woke(wanted, time.time())

    def _raise_background_errors(self) -> None:
        if self.errors:
            exc = self.errors.pop(0)
            raise HarnessError(f"a fake kubelet failed in the background: {exc!r}") from exc

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
