"""The Target interface every driver implements, and the clocks the runner drives time through."""

from __future__ import annotations

import time
from typing import Protocol

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import ApiStatusError, ClockUnknown
from kube32.spec.profiles import Profile

# Capabilities a target may have; scenarios tagged @needs-<capability> are disabled without them.
MANUAL_CLOCK = "manual-clock"        # time can be jumped (POST /debug/clock)
RESTART = "restart"                  # the control plane can be restarted on the same data
EXCLUSIVE_NODES = "exclusive-nodes"  # the scenario owns the whole node set
REAL_KUBELET = "real-kubelet"        # nodes are real kube32 kubelets (rigs)
FAKE_KUBELETS = "fake-kubelets"      # nodes are the runner's fake kubelets


class TargetClock(Protocol):
    manual: bool

    def now(self) -> float: ...

    def advance_to(self, t: float) -> None: ...


class RealTargetClock:
    """Wall time: advancing means waiting."""

    manual = False

    def now(self) -> float:
        return time.time()

    def advance_to(self, t: float) -> None:
        delay = t - time.time()
        if delay > 0:
            time.sleep(delay)


class ManualTargetClock:
    """The target's manual clock behind ``/debug/clock``; every jump runs the target's due ticks."""

    manual = True

    def __init__(self, api: ApiClient) -> None:
        self.api = api
        self._now = float(api.call("GET", "/debug/clock")["epoch"])

    def now(self) -> float:
        return self._now

    def refresh(self) -> float:
        self._now = float(self.api.call("GET", "/debug/clock")["epoch"])
        return self._now

    def jump(self, seconds: float) -> float:
        """Move on ``seconds`` from wherever the clock stands now (another runner sharing the target
        may have moved it); a repeat after a lost answer only moves it further."""
        self._now = float(self.api.call("POST", "/debug/clock", json={"advance": seconds}, idempotent=True)["epoch"])
        return self._now

    def advance_to(self, t: float) -> None:
        if t <= self._now:
            return
        # setting an absolute time is idempotent: a lost answer may be retried
        self._now = float(self.api.call("POST", "/debug/clock", json={"set": t}, idempotent=True)["epoch"])


CLOCK_MODES = ("auto", "manual", "real")   # --clock


def choose_clock(api: ApiClient, mode: str = "auto") -> tuple[TargetClock, str]:
    """The target's clock and how it was chosen. ``auto`` probes ``GET /debug/clock`` (retried like
    every read): 200 with an epoch means manual, 404 means real; any other answer means the runner
    cannot tell, and says so instead of guessing (a wrong guess turns passes into false failures)."""
    if mode == "real":
        return RealTargetClock(), "forced by --clock real"
    if mode == "manual":
        try:
            return ManualTargetClock(api), "forced by --clock manual"
        except ApiStatusError as exc:
            raise ClockUnknown(f"--clock manual, but the target has no manual clock: {exc}") from None
    if mode != "auto":
        raise ValueError(f"--clock must be one of {', '.join(CLOCK_MODES)}, not {mode!r}")
    resp = api.request("GET", "/debug/clock")
    attempts = getattr(resp, "attempts", 1)
    tries = f" (attempt {attempts})" if attempts > 1 else ""
    try:
        body = resp.json()
    except ValueError:
        body = None
    if resp.status_code == 200 and isinstance(body, dict) and "epoch" in body:
        return ManualTargetClock(api), f"probed: GET /debug/clock answered 200{tries}"
    if resp.status_code == 404:
        return RealTargetClock(), f"probed: GET /debug/clock answered 404{tries}"
    raise ClockUnknown(f"cannot tell whether the target's clock is manual: GET /debug/clock answered "
                       f"{resp.status_code} {resp.text[:200]!r}; choose with --clock manual or --clock real")


class Target(Protocol):
    """What the runner needs from a target. Lifecycle: start -> (begin_scenario -> end_scenario)* -> stop."""

    name: str
    profile: Profile
    capabilities: frozenset[str]
    api: ApiClient
    clock: TargetClock

    def start(self) -> None: ...

    def begin_scenario(self) -> None: ...

    def end_scenario(self) -> None: ...

    def restart_control_plane(self) -> None: ...

    def stop(self) -> None: ...

    def describe(self) -> dict: ...
