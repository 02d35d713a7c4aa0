"""Time passing in a scenario, the same text on every target.

Manual clock: jump the target's clock from one kubelet deadline to the next (each jump runs the
target's own due controller ticks), doing the kubelet work due at each stop, then land exactly on
the requested time. Real clock: a background thread does the kubelets' work on time while the
step waits.
"""

from __future__ import annotations

import threading
import time

from kube32.conformance.errors import HarnessError, TargetUnavailable


class Timeline:
    def __init__(self, clock, kubelets: dict, heartbeat=None) -> None:
        self.clock = clock
        self.heartbeat = heartbeat        # heartbeat.Heartbeat: says how far a long real-time wait has got
        self.kubelets = kubelets          # name -> FakeKubelet (shared with the context)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.errors: list[BaseException] = []
        if not clock.manual:
            self._thread = threading.Thread(target=self._run_real, name="kube32-kubelets", daemon=True)
            self._thread.start()

    def now(self) -> float:
        return self.clock.now()

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time only moves forward")
        target = self.clock.now() + seconds
        if not self.clock.manual:
            if self.heartbeat is not None:
                self.heartbeat.wait_until(self.clock, target)
            else:
                self.clock.advance_to(target)
            self._raise_background_errors()
            return
        while True:
            dues = [(k.due(), k) for k in list(self.kubelets.values())]
            dues = [(t, k) for t, k in dues if t is not None and t <= target + 1e-9]
            if not dues:
                break
            at = min(t for t, _ in dues)
            self.clock.advance_to(at)
            for t, k in dues:
                if t <= at + 1e-9:
                    k.run_due(at)
        self.clock.advance_to(target)

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
            self._stop.wait(0.05)

    def _raise_background_errors(self) -> None:
        if self.errors:
            exc = self.errors.pop(0)
            raise HarnessError(f"a fake kubelet failed in the background: {exc!r}") from exc

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
