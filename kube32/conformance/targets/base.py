"""The Target interface every driver implements, and the clocks the runner drives time through."""

from __future__ import annotations

import time
from typing import Protocol

from kube32.conformance.client import ApiClient
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

    def advance_to(self, t: float) -> None:
        if t <= self._now:
            return
        self._now = float(self.api.call("POST", "/debug/clock", json={"set": t})["epoch"])


def detect_clock(api: ApiClient) -> TargetClock:
    resp = api.request("GET", "/debug/clock")
    if resp.status_code == 200 and "epoch" in (resp.json() if resp.content else {}):
        return ManualTargetClock(api)
    return RealTargetClock()


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
