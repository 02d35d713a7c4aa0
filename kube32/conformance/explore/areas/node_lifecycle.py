"""Node lifecycle on the manual clock: nodes whose Leases declare their own duration or none, last
renewals, silences and returns (with the kubelet's status report), pods on them with every kind of
unreachable toleration (none, zero, negative, short, long, without a limit, the defaults), pods that
finished or are being deleted, control-plane restarts, a Deployment's pods and a DaemonSet whose
template limits its unreachable toleration; the time rule aims at every deadline. Stories start
from rest and end in the moments the document decides (a running pod from its node's last renewal
to its fate, a pod placed on a node whose taint has aged, the timeout flags followed to their
effect), since a random walk rarely strings them together. What the document says a node shows and
where a pod is at a moment is lifecycle_model's; this module holds the rules and the comparisons.

Compared where the document decides, on both sides at once: a node's Ready condition and its
unreachable taints outside the check interval that follows each deadline (the lapse at the Lease's
duration, NoExecute 15 s later, the return at a renewal); the NoExecute taint's timeAdded; where a
pod is (on its node, evicted, removed) outside its eviction window, counted from the timeAdded
each side wrote; an evicted pod's status a pass later; a pod's tolerations after its create; and
the NodeNotReady, NodeReady and Evicted events -- none before their change could have come, one
once it surely came and a while has passed (the document gives events no deadline; the features
look again after the NoExecute delay, and so does this area); the Deployment's pods' tolerations;
that the DaemonSet keeps each pod it had.

What the document leaves open is never compared: a restart while a node is in a window or already
timed out, or before its return was surely seen (whether the new controller counts it as timed out
is a reading), several matching tolerations with different limits, a node renewed inside a pod's
eviction window, whether admission counts a toleration for another value as one the pod already
has, an event or an evicted pod's status still to come when the control plane restarts."""

from __future__ import annotations

import yaml
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from kube32.conformance.explore.areas import Area
from kube32.conformance.explore.areas.lifecycle_model import (
    EPS,
    FOREVER,
    NOEXECUTE,
    NOSCHEDULE,
    NOT_READY,
    SLACK,
    TOLERATIONS,
    UNREACHABLE,
    Episode,
    NodeLife,
    Notes,
    PodLife,
    Timing,
    doc_seconds,
    effective_seconds,
    node_state,
    notes,
    pod_fate,
    restarted_within,
    status_due,
)
from kube32.conformance.explore.case import Check
from kube32.conformance.explore.gherkin import Step, table
from kube32.conformance.explore.machine import seconds_text
from kube32.conformance.explore.snapshot import Snapshot, condition, phase
from kube32.conformance.steps import deployment as deployment_steps
from kube32.conformance.steps.events import events_about
from kube32.conformance.steps.workloads import node_of, owned_pods
from kube32.conformance.steps.workloads import notes as ds_notes
from kube32.conformance.steps.workloads import terminating as ds_terminating
from kube32.spec import timefmt

MAX_NODES = 3
MAX_PODS = 6
LEASES = (8, 25)                 # durations a Lease may declare besides the kubelet's own (renewals every 5 s)
def _manifest(node: str, kind: str) -> dict:
    spec: dict = {"nodeName": node, "containers": [{"name": "main", "image": "kube32/app:1"}]}
    if TOLERATIONS[kind]:
        spec["tolerations"] = TOLERATIONS[kind]
    return {"spec": spec}


def _renewing(self) -> bool:
    return any(not n.silent for n in notes(self.case).nodes.values())


def _silent(self) -> bool:
    return any(n.silent for n in notes(self.case).nodes.values())


def _has_pods(self) -> bool:
    return bool(notes(self.case).pods)


def _tainted(self) -> list[str]:
    """Silent nodes whose NoExecute taint both sides were seen to write (at a moment the document decides)."""
    life, timing = notes(self.case), Timing(self.case)
    return sorted(n.name for n in life.nodes.values() if n.silent and len(n.episodes[-1].added) == 2
                  and not n.episodes[-1].open and not n.unsettled and not timing.noexecute_open)


def _soonest(timing: Timing, pod: PodLife) -> float:
    """How long the pod stays by the document, for ordering (no limit, or open: last)."""
    seconds = doc_seconds(timing, pod.kind)
    return seconds if isinstance(seconds, float) else float("inf")


def _ahead(self) -> bool:
    return self.case.manual and bool(AREA.upcoming(self.case))


class LifecycleRules:
    """Each rule picks among the nodes and pods it can act on (so few steps are wasted)."""

    @precondition(lambda self: not self.case.trace)    # (a restart with one flag drops another area's)
    @rule(which=st.sampled_from(("eviction timeout", "not-ready timeout")), story=st.booleans())
    def timeouts(self, which, story):
        """The simulator's --eviction-timeout or --not-ready-timeout, set another way; then (the
        first step of an example is too rare a place to leave the rest to chance) a node whose
        timeout that is and a pod with the default tolerations, followed to their end."""
        if not self.apply(Step("Given", f"the control plane runs with {'an' if which[0] == 'e' else 'a'} {which} other "
                                        "than the default"), "NODE-SIMULATOR-TIMEOUT-FLAGS", {"flags": which}):
            return
        if story and self.case.manual:
            node = self._register("none" if which[0] == "n" else "kubelet")
            if node is not None:
                self._silence_story(node, ["none"])

    @precondition(lambda self: len(notes(self.case).nodes) < MAX_NODES)
    @rule(lease=st.sampled_from(("kubelet", "kubelet", *LEASES, "none")))
    def register_node(self, lease):
        self._register(lease)

    def _register(self, lease) -> str | None:
        life = notes(self.case)
        if len(life.nodes) >= MAX_NODES:
            return None
        name = life.next_node()
        if lease == "kubelet":
            step = Step("Given", "these Ready nodes:", table(["name", "memory"], [[name, "200Ki"]]))
        elif lease == "none":
            step = Step("Given", f'a Ready node "{name}" whose lease declares no duration')
        else:
            step = Step("Given", f'a Ready node "{name}" whose lease declares {lease} seconds')
        return name if self.apply(step, "NODE-NOTREADY-AT-LEASE-DURATION", {"lifecycle_node": (name, lease)}) else None

    @precondition(_renewing)
    @rule(how=st.sampled_from(("last", "last", "stop")), data=st.data())
    def go_silent(self, how, data):
        node = data.draw(st.sampled_from(sorted(n for n, v in notes(self.case).nodes.items() if not v.silent)))
        text = (f'node "{node}" renews its lease for the last time' if how == "last"
                else f'node "{node}" stops renewing its lease')
        self.apply(Step("When", text), "NODE-NOTREADY-AT-LEASE-DURATION", {"silence": node})

    @precondition(_silent)
    @rule(data=st.data())
    def come_back(self, data):
        node = data.draw(st.sampled_from(sorted(n for n, v in notes(self.case).nodes.items() if v.silent)))
        if self.apply(Step("When", f'node "{node}" renews its lease again'), "NODE-RECOVERY-CLEARS-TAINTS",
                      {"return": node}):
            self.apply(Step("When", f'the kubelet on node "{node}" reports node status'),
                       "NODE-RECOVERY-CLEARS-TAINTS", {})

    @precondition(lambda self: notes(self.case).nodes and len(notes(self.case).pods) < MAX_PODS)
    @rule(kind=st.sampled_from(sorted(TOLERATIONS)), start=st.integers(0, 3), data=st.data())
    def create_pod(self, kind, start, data):
        life = notes(self.case)
        if len(life.pods) >= MAX_PODS or not life.nodes:
            return
        node = data.draw(st.sampled_from(sorted(life.nodes)))
        self._pod_on(node, kind, start=bool(start) and not life.nodes[node].silent)

    def _pod_on(self, node: str, kind: str, start: bool) -> str | None:
        """Create a pod of that toleration kind on the node (and let its kubelet start it)."""
        name = f"l{len(notes(self.case).pods) + 1}"
        body = yaml.safe_dump(_manifest(node, kind), sort_keys=False, default_flow_style=None)
        if not self.apply(Step("When", f'I create a pod "{name}" with:', docstring=body),
                          "NODE-DEFAULT-TOLERATIONS", {"lifecycle_pod": (name, node, kind)}):
            return None
        if kind == "other-value" and not notes(self.case).pods[name].open:
            # (the replayed scenario says so: a target of the other reading cannot run it)
            self.apply(Step("When", f'pod "{name}" has no toleration matching "{NOEXECUTE}"'),
                       "NODE-EVICT-NO-TOLERATION", {})
        if start:
            self.apply(Step("When", f'the kubelet on node "{node}" starts pod "{name}"'),
                       "NODE-EVICT-AT-TOLERATION-EXPIRY", {"started": name})
        return name

    @precondition(lambda self: _renewing(self) and len(notes(self.case).pods) < MAX_PODS)
    @rule(kind=st.sampled_from(("none", "zero", "one", "short", "medium", "any-noexecute", "noschedule")),
          finish=st.sampled_from(("", "", "succeeds", "fails")), data=st.data())
    def pod_then_silence(self, kind, finish, data):
        """What an eviction needs in one go: a running pod (or a finished one) on a node that then
        renews its lease for the last time; the time rules take it from there."""
        life = notes(self.case)
        node = data.draw(st.sampled_from(sorted(n for n, v in life.nodes.items() if not v.silent)))
        name = self._pod_on(node, kind, start=True)
        if name is None:
            return
        if finish:
            self.apply(Step("When", f'pod "{name}" {finish}'), "NODE-LEAVES-FINISHED-PODS", {"finished": name})
        self.apply(Step("When", f'node "{node}" renews its lease for the last time'), "NODE-NOTREADY-AT-LEASE-DURATION",
                   {"silence": node})

    @precondition(lambda self: self.case.manual and _renewing(self) and len(notes(self.case).pods) < MAX_PODS - 1)
    @rule(kinds=st.lists(st.sampled_from(("none", "zero", "negative", "one", "short", "forever", "other-value")),
                         min_size=1, max_size=2, unique=True), data=st.data())
    def eviction_story(self, kinds, data):
        """Running pods' whole story in one go (one or two toleration kinds): the node's last
        renewal, its lapse and the NoExecute taint surely there, then for each pod, the soonest
        first, just before its time runs out, past its eviction's window, a pass later (its status)
        and the NoExecute delay later (its event); an unlimited toleration is followed past the
        default's end."""
        life = notes(self.case)
        self._silence_story(data.draw(st.sampled_from(sorted(n for n, v in life.nodes.items() if not v.silent))), kinds)

    def _start_silence(self, node: str, kinds: list[str]) -> tuple[list[str], float] | None:
        """Running pods of these kinds on the node, then its last renewal: the pods and its lapse."""
        names = [name for name in (self._pod_on(node, kind, start=True) for kind in kinds) if name is not None]
        if not names or not self.apply(Step("When", f'node "{node}" renews its lease for the last time'),
                                       "NODE-NOTREADY-AT-LEASE-DURATION", {"silence": node}):
            return None
        life_node = notes(self.case).nodes[node]
        return names, Timing(self.case).threshold(life_node, life_node.episodes[-1])

    def _silence_story(self, node: str, kinds: list[str]) -> None:
        started = self._start_silence(node, kinds)
        if started is None:
            return
        (names, lapse), life, timing = started, notes(self.case), Timing(self.case)
        self._advance_to(lapse + timing.interval + 0.01)
        self._advance_to(lapse + timing.delay + timing.interval + 0.01)
        for name in sorted(names, key=lambda n: _soonest(timing, life.pods[n])):
            self._follow_eviction(life.pods[name], lapse + timing.delay)

    @precondition(lambda self: self.case.manual and len(notes(self.case).pods) < MAX_PODS and bool(_tainted(self)))
    @rule(kind=st.sampled_from(("short", "medium")), age=st.sampled_from((6.0, 10.0)), data=st.data())
    def pod_on_tainted_node(self, kind, age, data):
        """A pod placed on a node whose NoExecute taint has aged: its time counts from the taint's
        timeAdded, not from its arrival."""
        life, timing = notes(self.case), Timing(self.case)
        node = data.draw(st.sampled_from(_tainted(self)))
        ep = life.nodes[node].episodes[-1]
        self._advance_to(max(ep.added.values()) + age)
        name = self._pod_on(node, kind, start=False)
        if name is not None:
            self._follow_eviction(life.pods[name], timing.threshold(life.nodes[node], ep) + timing.delay)

    def _follow_eviction(self, pod: PodLife, noexecute: float) -> None:
        """From the NoExecute taint seen on both sides to the moments that decide the pod's fate."""
        life, timing = notes(self.case), Timing(self.case)
        ep = life.nodes[pod.node].episodes[-1]
        added = [ep.added.get(side.name) for side in (self.case.oracle, self.case.target)]
        seconds = doc_seconds(timing, pod.kind)
        if None in added or pod.open or ep.returned is not None or seconds == "open":
            return
        if seconds is FOREVER:
            self._advance_to(max(added) + timing.eviction + 2 * timing.interval + 1.0)
            return
        self._advance_to(max(min(added) + seconds, pod.arrived) - 0.001)
        latest = max(max(added) + seconds, pod.arrived)
        if not timing.noexecute_open:          # the first moment its eviction is decided
            self._advance_to(max(latest, noexecute + timing.interval) + timing.interval + 0.01)
        end = status_due(timing, latest, noexecute, max(added))
        self._advance_to(end + timing.interval + 0.01)
        self._advance_to(end + timing.delay + 0.01)

    def _advance_to(self, moment: float) -> None:
        seconds = float(seconds_text(moment - self.case.now()))
        if seconds > 0.005:
            self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "NODE-CHECK-INTERVAL", {"time": seconds})

    @precondition(lambda self: any(p.started and not p.finished and not notes(self.case).nodes[p.node].silent
                                   for p in notes(self.case).pods.values()))
    @rule(how=st.sampled_from(("succeeds", "fails")), data=st.data())
    def finish(self, how, data):
        life = notes(self.case)
        pod = data.draw(st.sampled_from(sorted(p for p, v in life.pods.items() if v.started and not v.finished
                                               and not life.nodes[v.node].silent)))
        got = Snapshot(self.case.oracle).pod(pod)
        if got is None or phase(got) != "Running" or (got.get("spec") or {}).get("nodeName") != life.pods[pod].node \
                or life.nodes[life.pods[pod].node].silent:
            return
        self.apply(Step("When", f'pod "{pod}" {how}'), "NODE-LEAVES-FINISHED-PODS", {"finished": pod})

    @precondition(lambda self: _has_pods(self) and _silent(self))
    @rule(data=st.data())
    def delete_on_silent_node(self, data):
        """(A live kubelet confirms a deletion at once: nothing of the lifecycle's.)"""
        life = notes(self.case)
        pods = sorted(p for p, v in life.pods.items() if v.deleted is None and life.nodes[v.node].silent)
        if not pods:
            return
        pod = data.draw(st.sampled_from(pods))
        got = Snapshot(self.case.oracle).pod(pod)
        if got is None or (got.get("spec") or {}).get("nodeName") != life.pods[pod].node:
            return
        self.apply(Step("When", f'I delete pod "{pod}"'), "NODE-TERMINATING-REMOVED", {"deleted": pod})

    @precondition(lambda self: _silent(self) and len(notes(self.case).restarts) < 2)
    @rule()
    def restart(self):
        self.apply(Step("When", "the control plane restarts"), "NODE-RESTART-GRACE", {"restart": True})

    @precondition(lambda self: self.case.manual and _renewing(self) and len(notes(self.case).pods) < MAX_PODS
                  and len(notes(self.case).restarts) < 2)
    @rule(kind=st.sampled_from(("zero", "short", "medium")), late=st.booleans(), data=st.data())
    def restart_story(self, kind, late, data):
        """A control-plane restart in a node's silence, with a running pod on it: a second before its
        Lease lapses (the new controller gives the node a whole lease duration from the restart:
        looked at just after the old lapse and the new one), or once its NoExecute taint is there
        (the taint's timeAdded, and the pod's time counted from it, stay); then the pod's fate."""
        life = notes(self.case)
        node = data.draw(st.sampled_from(sorted(n for n, v in life.nodes.items() if not v.silent)))
        started = self._start_silence(node, [kind])
        if started is None:
            return
        ([name], lapse), timing, life_node = started, Timing(self.case), life.nodes[node]
        self._advance_to(lapse + timing.delay + timing.interval + 0.01 if late else lapse - 1.0)
        if not self.apply(Step("When", "the control plane restarts"), "NODE-RESTART-GRACE", {"restart": True}):
            return
        if not late:
            self._advance_to(lapse + timing.interval + 0.01)
            lapse = timing.threshold(life_node, life_node.episodes[-1])       # (counted from the restart now)
            self._advance_to(lapse + timing.interval + 0.01)
            self._advance_to(lapse + timing.delay + timing.interval + 0.01)
        self._follow_eviction(life.pods[name], lapse + timing.delay)

    @precondition(lambda self: notes(self.case).nodes and not notes(self.case).deployed)
    @rule()
    def deployment(self):
        """A Deployment's pods: the controller's creates carry the default tolerations too."""
        if self.apply(Step("When", 'the Deployment "web" is created with 1 replica'),
                      "NODE-DEFAULT-TOLERATIONS-CONTROLLERS", {}):
            for _ in range(2):
                self.apply(Step("When", "the deployment interval passes"), "NODE-DEFAULT-TOLERATIONS-CONTROLLERS",
                           {"deployment": "web"})

    @precondition(lambda self: notes(self.case).nodes and not _silent(self) and not notes(self.case).daemonsets)
    @rule(seconds=st.sampled_from((0, 3, 10)))
    def daemonset(self, seconds):
        """A DaemonSet whose template limits its unreachable toleration: its pods stay all the same."""
        if self.apply(Step("Given", f'a DaemonSet "agent" whose pods tolerate "{NOEXECUTE}" for {seconds} seconds'),
                      "NODE-LEAVES-DAEMONSET-PODS", {}):
            self.apply(Step("Given", 'the DaemonSet "agent" pods are running and ready'), "NODE-LEAVES-DAEMONSET-PODS",
                       {"daemonset": "agent"})

    @precondition(_ahead)
    @rule(offset=st.sampled_from(("before", "before", "after", "past")))
    def to_the_next_deadline(self, offset):
        """The next deadline first (a lapse, then NoExecute, then an eviction: each follows the last)."""
        self.to_a_deadline(0, offset)

    @precondition(_ahead)
    @rule(which=st.integers(0, 3), offset=st.sampled_from(("before", "on", "after", "past")))
    def to_a_deadline(self, which, offset):
        """Straight to one of the next deadlines: just before it, on it, one check interval after it."""
        now, timing = self.case.now(), Timing(self.case)
        ahead = AREA.upcoming(self.case)
        moment = ahead[min(which, len(ahead) - 1)]
        at = {"before": moment - 0.001, "on": moment, "after": moment + timing.interval,
              "past": moment + timing.interval + 0.001}[offset]
        seconds = float(seconds_text(at - now))
        if seconds > 0:
            self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "NODE-CHECK-INTERVAL", {"time": seconds})


class NodeLifecycle(Area):
    NAME = "node_lifecycle"
    Rules = LifecycleRules

    def upcoming(self, case) -> list[float]:
        """The deadlines not yet passed (their check interval included), soonest first."""
        now = case.now()
        return sorted({m for m, i in self.deadlines(case) if m + i + 0.001 > now + EPS})

    def deadlines(self, case) -> list[tuple[float, float]]:
        life, timing = notes(case), Timing(case)
        out = []
        for node in life.nodes.values():
            if not node.silent:
                continue
            ep = node.episodes[-1]
            t = timing.threshold(node, ep)
            out += [(t, timing.interval), (t + timing.delay, timing.interval)]
            for added in ep.added.values():       # each side counts from the timeAdded it wrote
                for pod in life.pods.values():
                    if pod.node != node.name or pod.finished or pod.away:
                        continue
                    seconds = doc_seconds(timing, pod.kind)
                    if isinstance(seconds, float):
                        start = max(added + seconds, pod.arrived)
                        # the eviction, then the pass after its window (the evicted pod's status)
                        out += [(start, timing.interval),
                                (status_due(timing, start, t + timing.delay, added), timing.interval)]
        return out

    # -- the notes, after every step -------------------------------------------------------------
    def after(self, case, intent, before) -> list[Check]:
        life, timing = notes(case), Timing(case)
        now = case.now()
        self._note(case, life, timing, intent, now)
        if not life.nodes:
            return []
        if abs(case.oracle.now() - case.target.now()) > EPS:
            case.diverge("lifecycle", "a Then step waited on the target alone: the clocks parted")
        if "lifecycle" in case.diverged:
            return []
        mine, theirs = Snapshot(case.oracle), Snapshot(case.target)
        self._see_time_added(case, life, timing, mine, theirs, now)
        checks: list[Check] = []
        for node in life.nodes.values():
            checks += self._node_checks(case, timing, node, mine, theirs, now)
        for pod in life.pods.values():
            checks += self._pod_checks(case, timing, life, pod, mine, theirs, now)
        return checks + self._workload_checks(case, life)

    # -- the controllers' pods ---------------------------------------------------------------------
    def _workload_checks(self, case, life: Notes) -> list[Check]:
        checks = []
        if life.flags == "eviction timeout":
            life.deployments.clear()       # (their default tolerations' seconds are a reading then)
        for name in life.deployments:
            ours, their = (sorted({tuple(r) for p in pods_of(side.ctx, name) for r in _toleration_rows(p)})
                           for side in (case.oracle, case.target))
            if not pods_of(case.oracle.ctx, name):
                continue
            case.stats.compared += 1
            if ours != their:
                checks.append(Check("NODE-DEFAULT-TOLERATIONS-CONTROLLERS",
                                    Step("Then", f'the Deployment "{name}" pods have these tolerations:',
                                         table(["key", "operator", "effect", "tolerationSeconds"],
                                               [list(r) for r in ours])),
                                    f"the Deployment's pods: the reference {ours}, the target {their}"))
        for name in life.daemonsets:
            for node in sorted(ds_notes(case.oracle.ctx, "ds-pod")):
                if node[0] != name or node not in ds_notes(case.target.ctx, "ds-pod"):
                    continue
                for taint in (NOEXECUTE, f"{NOT_READY}:NoExecute"):
                    limitless = [_ds_limitless(side.ctx, name, node[1], taint) for side in (case.oracle, case.target)]
                    case.stats.compared += 1
                    if limitless[0] and limitless[1] is False:
                        checks.append(Check("NODE-DAEMONSET-TOLERATIONS", Step(
                            "Then", f'the DaemonSet "{name}" pod on node "{node[1]}" tolerates "{taint}" without a '
                                    "time limit"), f"the DaemonSet's pod on {node[1]}: {taint} with a limit on the target"))
                kept = [_ds_kept(side.ctx, name, node[1]) for side in (case.oracle, case.target)]
                case.stats.compared += 1
                if kept[0] and not kept[1]:
                    checks.append(Check("NODE-LEAVES-DAEMONSET-PODS",
                                        Step("Then", f'the DaemonSet "{name}" keeps the same pod on node "{node[1]}"'),
                                        f"the DaemonSet's pod on {node[1]} is gone from it on the target"))
        life.deployments = [n for n in life.deployments if not pods_of(case.oracle.ctx, n)]
        return checks

    def _note(self, case, life: Notes, timing: Timing, intent: dict, now: float) -> None:
        if "lifecycle_node" in intent:
            name, lease = intent["lifecycle_node"]
            declares = None if lease == "none" else timing.default if lease == "kubelet" else float(lease)
            # --not-ready-timeout: whether a Lease that declares its own duration keeps it is a reading
            life.nodes[name] = NodeLife(name, declares, unsettled=lease != "none" and life.flags == "not-ready timeout")
        if not ({intent.get("silence"), intent.get("return")} - {None}) <= life.nodes.keys() or not (
                {intent.get("finished"), intent.get("deleted"), intent.get("started")} - {None}) <= life.pods.keys():
            return                  # (a shrunk trace without the step that made it)
        if "silence" in intent:
            node = life.nodes[intent["silence"]]
            renewed = case.oracle.ctx.kubelet(node.name).renewed_at - case.oracle.start
            if node.silent and renewed > node.episodes[-1].renewed:
                # (a shrunk trace: a last renewal of a silent node returns it without a status report)
                node.episodes[-1].returned = now
                node.episodes.append(Episode(renewed, unreported=True))
            elif not node.silent:
                node.episodes.append(Episode(renewed))
        if "return" in intent and life.nodes[intent["return"]].silent:
            life.nodes[intent["return"]].episodes[-1].returned = now
        if "lifecycle_pod" in intent and intent["lifecycle_pod"][1] in life.nodes:
            name, node, kind = intent["lifecycle_pod"]
            life.pods[name] = PodLife(name, node, now, kind)
        if "started" in intent:
            life.pods[intent["started"]].started = True
        if "finished" in intent:
            life.pods[intent["finished"]].finished = True
        if "deleted" in intent:
            life.pods[intent["deleted"]].deleted = now
        if "flags" in intent:
            life.flags = intent["flags"]
        if "deployment" in intent and not life.deployed:
            life.deployments.append(intent["deployment"])
            life.deployed = True
        if "daemonset" in intent:
            life.daemonsets.append(intent["daemonset"])
        if "restart" in intent:
            life.restarts.append(now)
            for node in life.nodes.values():
                # a return not yet surely seen: whether the new controller finds the node still timed
                # out (and keeps it so until it renews again) is a reading
                if any(ep.returned is not None and ep.returned >= now - timing.interval - SLACK for ep in node.episodes):
                    node.unsettled = True
                if not node.silent:
                    continue
                ep = node.episodes[-1]
                t = timing.threshold(node, ep)
                if now < t - SLACK:
                    ep.grace = now           # surely Ready: a whole lease duration from the restart
                else:
                    ep.node_open = True      # timed out (or about to): whether it stays so is a reading
                    if now < t + timing.delay + timing.interval + SLACK or len(ep.added) < 2:
                        ep.open = True

    def _see_time_added(self, case, life: Notes, timing: Timing, mine: Snapshot, theirs: Snapshot,
                        now: float) -> None:
        """Remember each side's timeAdded the first time its NoExecute taint is seen (a restart that
        rewrites it must not move the pods' deadlines along with it)."""
        for node in life.nodes.values():
            if not node.silent:
                continue
            ep = node.episodes[-1]
            for side, snap in ((case.oracle, mine), (case.target, theirs)):
                if side.name in ep.added:
                    continue
                taint = _noexecute(snap.node(node.name))
                if taint is not None and taint.get("timeAdded"):
                    try:
                        ep.added[side.name] = timefmt.parse(taint["timeAdded"]) - side.start
                    except (ValueError, TypeError, AttributeError):
                        pass        # (not a time: the step that reads it says so)

    # -- nodes -------------------------------------------------------------------------------------
    def _node_checks(self, case, timing: Timing, node: NodeLife, mine: Snapshot, theirs: Snapshot,
                     now: float) -> list[Check]:
        state = node_state(timing, node, now)
        ours, their = _node_view(mine.node(node.name)), _node_view(theirs.node(node.name))
        if ours is None or their is None:
            return []
        checks = []
        returned = bool(node.episodes) and node.episodes[-1].returned is not None
        graced = bool(node.episodes) and node.episodes[-1].grace is not None
        clause = ("NODE-RECOVERY-CLEARS-TAINTS" if returned else "NODE-RESTART-GRACE" if graced
                  else "NODE-SIMULATOR-TIMEOUT-FLAGS" if node.declares is None and notes(case).flags == "not-ready timeout"
                  else "NODE-NOTREADY-AT-LEASE-DURATION")
        if state is not None and state["ready"] is not None and ours["ready"] != their["ready"]:
            case.stats.compared += 1
            then = (Step("Then", f'node "{node.name}" is Ready') if ours["ready"] == ("True", None)
                    else Step("Then", f'node "{node.name}" has condition "Ready" "{ours["ready"][0]}" with reason '
                                      f'"{ours["ready"][1]}"'))
            checks.append(Check(clause, then, f"Ready: the reference {ours['ready']}, the target {their['ready']}"))
        for key, taint, taint_clause in (("noschedule", NOSCHEDULE, "NODE-NOTREADY-NOSCHEDULE-TAINT"),
                                         ("noexecute", NOEXECUTE, "NODE-NOEXECUTE-AFTER-DELAY")):
            if state is None or state[key] is None:
                continue
            case.stats.compared += 1
            if ours[key] != their[key]:
                words = "has taint" if ours[key] else "has no taint"
                checks.append(Check(clause if returned or graced else taint_clause,
                                    Step("Then", f'node "{node.name}" {words} "{taint}"'),
                                    f"{taint}: the reference {ours[key]}, the target {their[key]}"))
        checks += self._time_added_check(case, timing, node, state, theirs.node(node.name))
        checks += self._event_checks(case, timing, node, mine, theirs, now)
        return checks

    def _time_added_check(self, case, timing: Timing, node: NodeLife, state, their_node: dict | None) -> list[Check]:
        """The target's timeAdded: there, and when the taint came (whole seconds: up to 1 s before),
        counted from the last renewal -- judged once, when both sides surely have the taint."""
        if not node.silent or state is None or not state["noexecute"]:
            return []
        ep = node.episodes[-1]
        if ep.judged_added or ep.grace is not None or case.oracle.name not in ep.added or timing.noexecute_open:
            return []
        after = timing.threshold(node, ep) + timing.delay - ep.renewed
        then = Step("Then", f'the NoExecute taint on node "{node.name}" was added {after:g} seconds after its last '
                            "renewal")
        if case.target.name not in ep.added:
            taint = _noexecute(their_node)
            if taint is None or taint.get("timeAdded"):
                return []             # (not seen yet, or a time this area cannot read: the step judges it)
            ep.judged_added = True
            case.stats.compared += 1
            return [Check("NODE-NOEXECUTE-AFTER-DELAY", then, "timeAdded: the target's NoExecute taint has none")]
        ep.judged_added = True
        theirs, moment = ep.added[case.target.name], ep.renewed + after
        case.stats.compared += 1
        if moment - 1.0 - EPS <= theirs <= moment + timing.interval + EPS:
            return []
        return [Check("NODE-NOEXECUTE-AFTER-DELAY", then,
                      f"timeAdded: the target's lies {theirs - ep.renewed:.3f} s after the last renewal")]

    def _event_checks(self, case, timing: Timing, node: NodeLife, mine: Snapshot, theirs: Snapshot,
                      now: float) -> list[Check]:
        """NodeNotReady and NodeReady: none before the first change could come; one a while after a
        change surely came."""
        checks = []
        if node.unsettled:
            return checks
        i, later = timing.interval, timing.delay
        lapses = [ep for ep in node.episodes if not ep.node_open]
        first = node.episodes[0] if node.episodes else None
        surely = [timing.threshold(node, ep) + i for ep in lapses if timing.lapsed(node, ep)
                  and timing.threshold(node, ep) + i + SLACK <= (ep.returned if ep.returned is not None else now)]
        returns = [ep.returned + i for ep in lapses if ep.returned is not None and timing.lapsed(node, ep)]
        # (an event still to come when the control plane restarts may never come: events are best effort)
        restarts = notes(case).restarts
        surely, returns = ([m for m in came if not restarted_within(restarts, m - i, m + later)]
                           for came in (surely, returns))
        for reason, clause, came, first_possible in (
                ("NodeNotReady", "NODE-NOTREADY-EVENT", surely,
                 timing.threshold(node, first) if first else None),
                ("NodeReady", "NODE-RECOVERY-CLEARS-TAINTS", returns,
                 first.returned if first and first.returned is not None else None)):
            ours, their = (bool(_events(side, "Node", node.name, reason)) for side in (case.oracle, case.target))
            if any(now >= moment + later + SLACK for moment in came):
                case.stats.compared += 1
                if ours and not their:
                    checks.append(Check(clause, Step("Then", f'there is a "Normal" event "{reason}" about node '
                                                             f'"{node.name}"'), f"no {reason} event on the target"))
            elif (first_possible is None or now < first_possible - SLACK) and not any(
                    ep.node_open for ep in node.episodes):
                case.stats.compared += 1
                if their and not ours:
                    checks.append(Check(clause, Step("Then", f'there is no "{reason}" event about node "{node.name}"'),
                                        f"a {reason} event on the target before any change"))
        return checks

    # -- pods --------------------------------------------------------------------------------------
    def _pod_checks(self, case, timing: Timing, life: Notes, pod: PodLife, mine: Snapshot, theirs: Snapshot,
                    now: float) -> list[Check]:
        ours, their = mine.pod(pod.name), theirs.pod(pod.name)
        checks = []
        if pod.kind == "other-value" and their is not None and effective_seconds(_tolerations(their)) != 0.0:
            pod.open = pod.compared_tolerations = True     # its admission read "already tolerates" the other way
        if not pod.compared_tolerations and ours is not None and not timing.defaults_open:
            pod.compared_tolerations = True
            checks += self._toleration_checks(case, pod, ours, their)
        if pod.open or pod.away:
            return checks
        node = life.nodes[pod.node]
        fates = (pod_fate(timing, node, pod, case.oracle.name, now), pod_fate(timing, node, pod, case.target.name, now))
        if None in fates or fates[0] != fates[1]:
            return checks        # (each side counts from the timeAdded it wrote: whole seconds may differ)
        case.stats.compared += 1
        seen = (_where(ours, pod.node), _where(their, pod.node))
        clause = self._fate_clause(timing, node, pod)
        if seen[0] != seen[1]:
            checks.append(Check(clause, self._fate_step(pod, ours, seen[0]),
                                f"pod {pod.name}: the reference {seen[0]}, the target {seen[1]}"))
            return checks
        if seen[0] == "away":
            checks += self._evicted_checks(case, timing, node, pod, ours, their, now)
        return checks

    @staticmethod
    def _fate_clause(timing: Timing, node: NodeLife, pod: PodLife) -> str:
        if pod.finished:
            return "NODE-LEAVES-FINISHED-PODS"
        if pod.deleted is not None:
            return "NODE-TERMINATING-REMOVED"
        seconds = doc_seconds(timing, pod.kind)
        if seconds is FOREVER:
            return "NODE-TOLERATE-FOREVER"
        if timing.defaults_open and seconds == timing.eviction and not TOLERATIONS[pod.kind]:
            return "NODE-SIMULATOR-TIMEOUT-FLAGS"        # the default toleration, --eviction-timeout's
        if seconds == 0.0:
            return "NODE-EVICT-NO-TOLERATION" if pod.kind == "other-value" else \
                "NODE-EVICT-NONPOSITIVE-SECONDS"
        if node.episodes and any(pod.arrived > added for added in node.episodes[-1].added.values()):
            return "NODE-EVICT-COUNTS-FROM-TIMEADDED"      # it came after the taint
        return "NODE-EVICT-AT-TOLERATION-EXPIRY"

    @staticmethod
    def _fate_step(pod: PodLife, ours: dict | None, where: str) -> Step:
        if where == "gone":
            return Step("Then", f'pod "{pod.name}" is gone')
        if where == "away":
            return Step("Then", f'pod "{pod.name}" is evicted from node "{pod.node}"')
        got = phase(ours)
        if got == "Running":
            return Step("Then", f'pod "{pod.name}" still runs on node "{pod.node}"')
        return Step("Then", f'pod "{pod.name}" still has phase "{got}" on node "{pod.node}"')

    def _evicted_checks(self, case, timing: Timing, node: NodeLife, pod: PodLife, ours: dict, their: dict,
                        now: float) -> list[Check]:
        """A pass after the eviction, both unbound: Pending, reason Evicted, DisruptionTarget True; an
        Evicted event a while later."""
        ep = node.episodes[-1] if node.episodes else None
        added = [ep.added.get(s.name) for s in (case.oracle, case.target)] if ep else []
        if not ep or None in added:
            pod.away = True
            return []
        seconds = doc_seconds(timing, pod.kind) or 0.0
        t2 = timing.threshold(node, ep) + timing.delay
        end = status_due(timing, max(max(added) + seconds, pod.arrived), t2, max(added))
        if now < end + timing.interval + SLACK:
            return []
        checks = []
        earliest = max(min(added) + seconds, pod.arrived)
        # (not compared: bound again elsewhere -- a status written a pass late may never come to a pod
        # the scheduler took within that pass; a restart between the eviction and its status -- what
        # a restarted control plane remembers of unfinished work is not the document's)
        restarted = restarted_within(notes(case).restarts, earliest, end + timing.interval)
        if not restarted and not any((p.get("spec") or {}).get("nodeName") for p in (ours, their)):
            case.stats.compared += 1
            for got, then in ((lambda p: phase(p), Step("Then", f'pod "{pod.name}" is Pending')),
                              (lambda p: (p.get("status") or {}).get("reason"),
                               Step("Then", f'pod "{pod.name}" has status reason "Evicted"')),
                              (lambda p: (condition(p, "DisruptionTarget") or {}).get("status"),
                               Step("Then", f'pod "{pod.name}" has condition "DisruptionTarget" set to "True"'))):
                if got(ours) != got(their):
                    checks.append(Check("NODE-EVICT-RETURNS-TO-PENDING", then,
                                        f"the evicted pod: the reference {got(ours)!r}, the target {got(their)!r}"))
        if now >= end + timing.delay + SLACK:
            pod.away = True
            if restarted_within(notes(case).restarts, earliest, end + timing.delay):
                return checks        # (an event still to come at a restart may never come)
            case.stats.compared += 1
            if _events(case.oracle, "Pod", pod.name, "Evicted") and not _events(case.target, "Pod", pod.name, "Evicted"):
                checks.append(Check("NODE-EVICT-EVENT", Step("Then", f'pod "{pod.name}" has an event "Evicted"'),
                                    "no Evicted event on the target"))
        return checks

    def _toleration_checks(self, case, pod: PodLife, ours: dict, their: dict | None) -> list[Check]:
        rows_ours, rows_their = _toleration_rows(ours), _toleration_rows(their)
        case.stats.compared += 1
        if their is None or sorted(rows_ours) == sorted(rows_their):
            return []
        clause = "NODE-DEFAULT-TOLERATIONS-ONLY-MISSING" if TOLERATIONS[pod.kind] else "NODE-DEFAULT-TOLERATIONS"
        header = ["key", "operator", "effect", "tolerationSeconds"]
        return [Check(clause, Step("Then", f'pod "{pod.name}" has exactly these tolerations:',
                                   table(header, [list(r) for r in rows_ours])),
                      f"tolerations: the reference {rows_ours}, the target {rows_their}")]


def _events(side, kind: str, name: str, reason: str) -> list[dict]:
    """Events as the steps find them (in whichever namespace the side keeps them)."""
    return events_about(side.ctx, kind, side.ctx.name(name) if kind == "Pod" else name, reason)


def pods_of(k32, name: str) -> list[dict]:
    """The Deployment's pods (none when it does not exist: a shrunk trace may lack its create)."""
    try:
        return deployment_steps.pods_of(k32, name)
    except AssertionError:
        return []


def _ds_kept(k32, name: str, node: str) -> bool:
    """The DaemonSet's pod first seen on the node is still there, bound and not being deleted."""
    uid = ds_notes(k32, "ds-pod").get((name, node))
    here = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node]
    return [p["metadata"]["uid"] for p in here] == [uid] and not ds_terminating(here[0]) and \
        here[0]["spec"].get("nodeName") == node


def _ds_limitless(k32, name: str, node: str, taint: str) -> bool | None:
    """The DaemonSet's pod on the node tolerates the taint (key and effect) without a time limit;
    None when there is no such pod."""
    key, _, effect = taint.partition(":")
    here = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node and not ds_terminating(p)]
    if len(here) != 1:
        return None
    match = [t for t in here[0]["spec"].get("tolerations") or [] if t.get("key") == key and t.get("effect") == effect]
    return bool(match) and all(t.get("operator") == "Exists" and "tolerationSeconds" not in t for t in match)


def _noexecute(node: dict | None) -> dict | None:
    for taint in ((node or {}).get("spec") or {}).get("taints") or []:
        if (taint.get("key"), taint.get("effect")) == (UNREACHABLE, "NoExecute"):
            return taint
    return None


def _node_view(node: dict | None) -> dict | None:
    if node is None:
        return None
    ready = condition(node, "Ready") or {}
    taints = {f"{t.get('key')}:{t.get('effect')}" for t in (node.get("spec") or {}).get("taints") or []}
    status = ready.get("status")
    return {"ready": (status, ready.get("reason") if status == "Unknown" else None),
            "noschedule": NOSCHEDULE in taints, "noexecute": NOEXECUTE in taints}


def _tolerations(pod: dict | None) -> list[dict]:
    return list(((pod or {}).get("spec") or {}).get("tolerations") or [])


def _toleration_rows(pod: dict | None) -> list[tuple[str, ...]]:
    out = []
    for t in _tolerations(pod):
        seconds = t.get("tolerationSeconds")
        out.append((t.get("key") or "", t.get("operator") or "", t.get("effect") or "",
                    "" if seconds is None else str(seconds)))
    return out


def _where(pod: dict | None, node: str) -> str:
    if pod is None:
        return "gone"
    return "home" if (pod.get("spec") or {}).get("nodeName") == node else "away"


AREA = NodeLifecycle()
