"""ScenarioContext (the ``k32`` fixture): everything one scenario knows about its target.

Steps read and write the target only through ``k32.api`` (HTTP), ``k32.kubelets`` (fake kubelets or
rig nodes), ``k32.timeline`` (time) and ``k32.target`` (capabilities, restart). The polling
helpers ``eventually``/``consistently`` derive their windows from the target's timing profile.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from kube32.conformance import credentials, deadline_judge, kinds, naming, timing
from kube32.conformance.client import ApiClient
from kube32.conformance.errors import (
    ApiStatusError,
    CapabilityMissing,
    CleanupFailed,
    HarnessError,
    TargetUnavailable,
    Unmet,
)
from kube32.conformance.kubelets import FakeKubelet
from kube32.conformance.levels import DOCUMENT, REFERENCE, Judge
from kube32.conformance.observations import Observations
from kube32.conformance.targets import base
from kube32.conformance.timeline import Timeline

# Namespaced kinds the runner cleans out of a scenario namespace on shared targets: what acts or
# occupies nodes (Events, the target's own records, go with the namespace).
CLEANUP_KINDS = ("Deployment", "DaemonSet", "Job", "Service", "Pod")
# A scenario that shares the target's node set with others is fenced to its own nodes: they carry
# this label (value: the scenario namespace) and every pod the runner asks the scheduler to place,
# and every workload template, requires it (``fence``).
FENCE_LABEL = "conformance.kube32.io/scenario"
WORKLOAD_KINDS = ("Deployment", "DaemonSet", "Job")
MANUAL_SETTLE = 2.0    # real seconds a manual-clock target gets to finish work it started
HOLD_WINDOW = 1.0      # real seconds a "stays"/"is not" check holds on a real clock


class ScenarioContext:
    def __init__(self, target, namespace: str | None = None, tags: frozenset[str] = frozenset(),
                 heartbeat=None, judge: Judge | None = None, before_nodes: Callable[[], None] | None = None,
                 own_nodes: list[str] | None = None) -> None:
        self.target = target
        self.api: ApiClient = target.api
        self.profile = target.profile
        self.ns = namespace or f"k32-{secrets.token_hex(4)}"
        self.kubelets: dict[str, Any] = {}
        if target.clock.manual and not target_is_fresh(target):
            # a shared target: what this scenario creates is at least a whole second newer than
            # anything an earlier scenario left (timestamps have whole seconds); the answer says
            # where the clock stands, whoever else moved it
            target.clock.jump(1.0)
        self.timeline = Timeline(target.clock, self.kubelets, heartbeat)
        self.objects: dict[str, dict] = {}       # feature name -> last object seen/created
        self.responses: dict[str, Any] = {}      # feature name -> last HTTP answer (object or ApiStatusError)
        self.notes: dict[str, Any] = {}          # scratch space for area steps
        self.tags = tags                         # the scenario's tags (rig boards read them)
        self.before_nodes = before_nodes         # called before the first node (parallel.Turn.alone)
        # own node names and a fence on a target other scenarios use at the same time (naming.py)
        # (own_nodes: the feature's node names, None when the scenario has the node set to itself)
        # (a target may choose them: a rig shared by workers names its own boards, rig_jobs.py)
        own_names = getattr(target, "own_names", naming.own_names)
        self.node_names = own_names(own_nodes or (), self.ns.removeprefix("k32-"))
        self.renamer = naming.Renamer(self.node_names)
        self.fence_labels = {FENCE_LABEL: self.ns} if own_nodes is not None else {}
        self.judge = judge or Judge(())          # failed checks, by clause and level (levels.py)
        self.observations = Observations(target.clock, self.ns)   # what the report's timeline draws
        self.timings: list[dict] = []            # timing verdicts (kube32.conformance.timing.record)
        self.api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})
        self.written: set[str] = set()           # kinds the runner wrote in the namespace (cleanup)
        self.api.observers.append(self.observations)
        self.api.observers.append(self.timeline.saw_request)
        self.api.observers.append(self._saw_write)
        if not self.manual:
            self.api.round_trips.append(self.timeline.latency.request)

    # -- names ----------------------------------------------------------------------------
    def name(self, feature_name: str) -> str:
        """Namespaced objects keep their feature names: the scenario namespace isolates them."""
        return feature_name

    def fence(self, obj: dict) -> dict:
        """A pod or a workload, fenced to this scenario's nodes when it shares the node set (nothing
        changes otherwise). A pod created with nodeName too: evicted, it goes back to the scheduler."""
        if not self.fence_labels or obj.get("kind") not in ("Pod", *WORKLOAD_KINDS):
            return obj
        spec = obj.setdefault("spec", {})
        if obj["kind"] != "Pod":
            spec = spec.setdefault("template", {}).setdefault("spec", {})
        spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **self.fence_labels}
        return obj

    @property
    def manual(self) -> bool:
        return self.target.clock.manual

    def has(self, capability: str) -> bool:
        return capability in self.target.capabilities

    def require(self, capability: str) -> None:
        if not self.has(capability):
            raise CapabilityMissing(f"this step needs the target capability {capability!r}")

    # -- judging ----------------------------------------------------------------------------
    def judging(self, clause: str | None = None, level: str = DOCUMENT):
        """``with k32.judging("NODE-EVICT-EVENT"):`` a failed assertion inside counts against that
        clause only, and the scenario goes on (see levels.py)."""
        return self.judge.judging(clause, level)

    def reference(self, clause: str | None = None):
        """``with k32.reference("NODE-EVICT-EVENT"):`` a check of our reading where the document is
        silent (an exact string, an upstream format): it never decides the document-level verdict."""
        return self.judge.judging(clause, REFERENCE)

    # -- nodes ----------------------------------------------------------------------------
    def add_kubelet(self, name: str, lease_duration: float | None = None) -> FakeKubelet:
        if name in self.kubelets:
            raise AssertionError(f"node {name!r} is already part of this scenario")
        if self.before_nodes is not None:   # node names are cluster-wide: no other run's scenario may use them
            self.before_nodes()
        # A target may play some nodes itself (a rig's boards); the rest are the runner's fake kubelets.
        board_node = getattr(self.target, "node_driver", None)
        kubelet = board_node(name, self, lease_duration=lease_duration) if board_node is not None else None
        if kubelet is None:
            kubelet = FakeKubelet(self._node_api(name), self.target.clock, name, self.profile,
                                  len(self.kubelets) + 1, lease_duration=lease_duration)
            kubelet.fence_labels = self.fence_labels
            created = getattr(self.target, "created_nodes", None)
            if created is not None:
                created.add(name)
        self.kubelets[name] = kubelet
        return kubelet

    def _node_api(self, name: str) -> ApiClient:
        """The node's own credentials when the target has them (--node-credentials), else the runner's."""
        access = credentials.node_access(getattr(self.target, "node_credentials", None), name)
        if access is None:
            return self.api
        api = ApiClient(self.api.base_url, **access.client_kwargs(), **getattr(self.target, "timeout_kw", {}))
        api.observers, api.round_trips = self.api.observers, self.api.round_trips
        return api

    def kubelet(self, name: str) -> FakeKubelet:
        try:
            return self.kubelets[name]
        except KeyError:
            raise AssertionError(f"node {name!r} was not registered in this scenario "
                                 f"(known: {', '.join(self.kubelets) or 'none'})") from None

    def kubelet_of(self, pod: dict) -> FakeKubelet:
        node = (pod.get("spec") or {}).get("nodeName")
        if not node:
            raise AssertionError(f"pod {pod['metadata']['name']} is not bound to a node")
        return self.kubelet(node)

    # -- time and polling -------------------------------------------------------------------
    def settle_window(self) -> float:
        """How long (real seconds) a real-clock target gets to show a change."""
        return 2 * self._one_check() + 2.0

    def eventually(self, check: Callable[[], Any], what: str, timeout: float | None = None) -> Any:
        """Call ``check`` until it stops raising AssertionError; fail with the last one. Inside a
        deadline's window (see ``kube32.conformance.timing``) the window decides how long."""
        window = self.timeline.window
        if window is not None and not self.manual:
            return self._judge_real(check, what, window)
        if timeout is None:
            timeout = getattr(self.target, "manual_settle", MANUAL_SETTLE) if self.manual else self.settle_window()
        __tracebackhide__ = True
        started = time.monotonic()
        deadline = started + timeout
        while True:
            try:
                result = check()
            except AssertionError as exc:
                if time.monotonic() >= deadline:
                    self._record(window, "failed", None, str(exc))
                    raise Unmet(what, str(exc), self._clock_now(), time.monotonic() - started) from None
            else:
                self._record(window, "passed", self.timeline.now())
                return result
            time.sleep(0.05)

    def _clock_now(self) -> float | None:
        try:
            return self.target.clock.now()
        except Exception:   # noqa: BLE001 - a clock that cannot be read must not hide the failure
            return None

    def consistently(self, check: Callable[[], Any], what: str, window: float | None = None) -> Any:
        """``check`` must pass now and keep passing over the window (only "now" on a manual clock,
        where nothing changes until time is moved). Inside a deadline's window on a real clock the
        window decides (``_judge_real``)."""
        __tracebackhide__ = True
        deadline = self.timeline.window
        if deadline is not None and not self.manual:
            # just before T its first answer in time decides (the window's further checks need
            # answers before T too); by T + I it is what must have happened by then (an action the
            # target may take up to T + I + the measured latency is waited for)
            return self._judge_real(check, what, deadline)
        started = time.monotonic()
        hold = window if window is not None else (0.0 if self.manual else HOLD_WINDOW)
        # real clock: what was due where time stands may show up to one check and the measured
        # latency later. A state that is there is held; one that is not yet is waited for that long
        # (a state that is wrong stays wrong, so this only spares the target a look too early).
        grace = 0.0 if self.manual else self._one_check() + self.timeline.latency.allowance()
        end = None
        while True:
            try:
                result = check()
            except AssertionError as exc:
                if end is None and time.monotonic() < started + grace:
                    time.sleep(0.05)
                    continue
                self._record(deadline, "failed", self.timeline.now(), str(exc))
                raise Unmet(what, str(exc), self._clock_now(), time.monotonic() - started) from None
            if end is None:
                end = time.monotonic() + hold
            if time.monotonic() >= end:
                self._record(deadline, "passed", self.timeline.now())
                return result
            time.sleep(0.1)

    def _one_check(self) -> float:
        """The longest check interval of the target's controllers (its timing profile)."""
        p = self.profile
        return max(p.reconcile_interval, p.lifecycle_check_interval, p.deployment_interval, p.workload_interval)

    def _judge_real(self, check: Callable[[], Any], what: str, window: timing.Window) -> Any:
        """Real clock, inside a deadline's window: look until ``deadline_judge`` has a verdict."""
        meter = self.timeline.latency
        allowance = meter.allowance()
        judge = deadline_judge.judge_for(window, allowance)
        while True:
            sent = timing.now()
            try:
                result, ok, detail = check(), True, ""
            except AssertionError as exc:
                result, ok, detail = None, False, str(exc)
            received = timing.now()
            meter.observed(sent, received)
            out = judge.look(deadline_judge.Look(sent, received, ok, detail))
            if out.verdict is None:
                time.sleep(out.pause)
                continue
            self._record(window, out.verdict, out.at, out.detail, allowance, acted=out.acted)
            if out.verdict == "passed":
                return result
            if out.verdict == "failed":
                raise Unmet(what, f"{out.detail} ({timing.describe(self.timings[-1])})", self._clock_now())
            raise timing.RunnerTooLate(f"{what}: the runner could not look before the deadline, and after it "
                                       "the change was there "
                                       f"({timing.describe(self.timings[-1])}); the target was not judged")

    def _record(self, window: timing.Window | None, verdict: str, observed: float | None, detail: str = "",
                allowance: float = 0.0, acted: tuple[float, float] | None = None) -> None:
        if window is not None:
            self.timings.append(timing.record(window, origin=self.timeline.origin, verdict=verdict,
                                              observed=observed, allowance=allowance, detail=detail, acted=acted,
                                              latency=self.timeline.latency))

    # -- teardown -------------------------------------------------------------------------
    def close(self) -> None:
        self.timeline.close()
        for observer in (self.observations, self.timeline.saw_request, self._saw_write):
            if observer in self.api.observers:
                self.api.observers.remove(observer)
        if self.timeline.latency.request in self.api.round_trips:
            self.api.round_trips.remove(self.timeline.latency.request)
        for k in self.kubelets.values():
            (getattr(k, "detach", None) or k.silence)()   # a rig board is not held after its scenario

    def _saw_write(self, method: str, path: str, body: dict) -> None:
        if method != "GET" and (body.get("metadata") or {}).get("namespace") == self.ns:
            self.written.add(body.get("kind", ""))

    def cleanup(self) -> None:
        """On shared targets: delete what the scenario made in its namespace, then the namespace.
        Of these kinds only Pods can exist without a write of the runner's (a workload's); each kind
        goes in one collection DELETE, or one by one where the target does not serve that. Whatever
        could not be deleted is named in ``CleanupFailed`` (an ``error`` of the scenario)."""
        problems = []
        made = self.written & set(CLEANUP_KINDS)
        kinds = [k for k in CLEANUP_KINDS if k in made or (made and k == "Pod")]
        for kind in kinds:
            problems += self._delete_all(kind, grace=0 if kind == "Pod" else None)
        problems += self._delete("Namespace", self.ns, None)
        if problems:
            raise CleanupFailed(f"cleanup of namespace {self.ns} failed: " + "; ".join(problems))

    def _delete_all(self, kind: str, grace: int | None) -> list[str]:
        path = kinds.kind(kind).path(self.ns)
        try:
            self.api.call("DELETE", path, params={"gracePeriodSeconds": str(grace)} if grace is not None else None,
                          idempotent=True)
            return []
        except ApiStatusError as exc:
            if exc.code not in (404, 405):          # deletecollection not served: one by one
                return [f"delete {kind} in {self.ns}: {exc}"]
        except TargetUnavailable:
            raise                                   # the cause, not a leftover: nothing more can be deleted
        except HarnessError as exc:
            return [f"delete {kind} in {self.ns}: {exc}"]
        try:
            items = self.api.list(kind, self.ns)
        except ApiStatusError as exc:
            return [] if exc.code in (404, 405) else [f"list {kind}: {exc}"]    # a kind this target does not serve
        except TargetUnavailable:
            raise
        except HarnessError as exc:
            return [f"list {kind}: {exc}"]
        problems = []
        for obj in items:
            problems += self._delete(kind, obj["metadata"]["name"], self.ns, grace=grace)
        return problems

    def _delete(self, kind: str, name: str, namespace: str | None, grace: int | None = None) -> list[str]:
        try:
            self.api.delete(kind, name, namespace, grace=grace, idempotent=True)
        except ApiStatusError as exc:
            if exc.code != 404:
                return [f"delete {kind} {name}: {exc}"]
        except TargetUnavailable:
            raise
        except HarnessError as exc:
            return [f"delete {kind} {name}: {exc}"]
        return []


def target_is_fresh(target) -> bool:
    """The in-process reference starts empty for every scenario: nothing to clean."""
    return base.EXCLUSIVE_NODES in target.capabilities and target.name == "reference"
