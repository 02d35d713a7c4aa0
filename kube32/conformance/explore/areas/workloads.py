"""DaemonSets and Jobs on the manual clock: Jobs with random completions, parallelism, backoffLimit
and restartPolicy whose pods the kubelets start, finish and restart; DaemonSets with and without a
node selector over nodes that join, get labels and are deleted, whose pods fail or are deleted;
deletions of either owner.

The controllers act within one workload interval of a change and a status may lag its pass by one
more, so the sides are compared only once the world has stood still for longer than that: after a
clock move of at least ``SETTLE`` intervals over which no kubelet has a write due, with both clocks
at the same moment (a Then step that waits for a late status moves only the target's clock; the
example is then no longer compared). Compared, through the suite's own Then steps: whether a Job
was accepted, its active pods, its pods in total (while none is terminating: when a kubelet
confirms a deletion depends on when the controller asked), its Complete and Failed conditions
(Failed with the documented reason); the nodes a DaemonSet has live pods on."""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, rule

from kube32.conformance.context import FENCE_LABEL
from kube32.conformance.errors import ApiStatusError
from kube32.conformance.explore import fleet
from kube32.conformance.explore.areas import Area
from kube32.conformance.explore.case import Check
from kube32.conformance.explore.gherkin import Step, table
from kube32.conformance.explore.machine import seconds_text
from kube32.conformance.explore.snapshot import Snapshot, condition, phase, terminating
from kube32.spec.constants import HOSTNAME_LABEL

MAX_NODES = 3
MAX_JOBS = 2
MAX_DAEMONSETS = 1
ROLLOUT = 40.0                  # seconds a DaemonSet's rollout is followed (three nodes take about 15)
SETTLE = 2.5                    # workload intervals a clock move must last before the sides are compared
ROLE = "role"
FAMILY = "workloads"
JOB_COUNTS = "job-counts"


@dataclasses.dataclass
class Notes:
    jobs: list[str] = dataclasses.field(default_factory=list)
    daemonsets: list[str] = dataclasses.field(default_factory=list)
    deleted: set = dataclasses.field(default_factory=set)
    keep: list = dataclasses.field(default_factory=list)     # (kind, owner): pods must outlive another's deletion
    settled: bool = False          # nothing has happened since a settled comparison found the sides alike


def notes(case) -> Notes:
    return case.notes.setdefault(FAMILY, Notes())


def _interval(case) -> float:
    return case.oracle.ctx.profile.workload_interval


def _owned(snap: Snapshot, kind: str, name: str) -> list[dict]:
    return [p for p in snap.pods() if any(r.get("kind") == kind and r.get("name") == name
                                          for r in p["metadata"].get("ownerReferences") or [])]


def _bound(snap: Snapshot, kind: str, name: str) -> list[tuple]:
    """The owner's live pods as a kubelet step finds them: bound to a node, by node and phase."""
    return sorted(((p.get("spec") or {}).get("nodeName"), phase(p)) for p in _owned(snap, kind, name)
                  if not terminating(p) and (p.get("spec") or {}).get("nodeName"))


def _kind(owner: str) -> str:
    return "Job" if owner.startswith("j") else "DaemonSet"


def _job_template(snap: Snapshot, job: str) -> dict:
    return next((j["spec"]["template"] for j in snap.list("Job") if j["metadata"]["name"] == job), {})


def made_from(template: dict):
    """Whether a pod carries the template's labels and runs its containers (a cheap look before the
    step that judges it)."""
    want_labels = ((template.get("metadata") or {}).get("labels") or {}).items()
    want = [(c.get("name"), c.get("image")) for c in (template.get("spec") or {}).get("containers") or []]
    return lambda pod: want_labels <= (pod["metadata"].get("labels") or {}).items() and \
        [(c.get("name"), c.get("image")) for c in (pod.get("spec") or {}).get("containers") or []] == want


def _active(pod: dict) -> bool:
    return phase(pod) not in ("Succeeded", "Failed") and not terminating(pod)


@st.composite
def job_fields(draw) -> dict[str, str]:
    field = st.sampled_from(("unset", "1", "2", "3"))
    return {"completions": draw(field), "parallelism": draw(field),
            "backoffLimit": draw(st.sampled_from(("unset", "0", "1", "2"))),
            "restartPolicy": draw(st.sampled_from(("Never", "Never", "OnFailure", "Always", "unset")))}


class WorkloadsRules:
    jobs = Bundle("jobs")
    daemonsets = Bundle("daemonsets")

    @rule(labelled=st.booleans())
    def register_node(self, labelled):
        nodes = fleet.notes(self.case)
        if len(nodes.nodes) >= MAX_NODES:
            return
        name = nodes.next_node()
        self.apply(Step("Given", "these Ready nodes:", table(["name", "memory", "labels"],
                                                             [[name, "200Ki", f"{ROLE}=sensor" if labelled else ""]])),
                   "DS-ONE-POD-PER-NODE", {"nodes": [name]})

    @rule(node=st.integers(0, MAX_NODES - 1), value=st.sampled_from(("sensor", "relay")))
    def label_node(self, node, value):
        names = sorted(fleet.notes(self.case).nodes)
        if names:
            self.apply(Step("When", f'node "{names[node % len(names)]}" gets label "{ROLE}={value}"'),
                       "DS-DELETE-ON-NODE-MISMATCH")

    @rule(node=st.integers(0, MAX_NODES - 1))
    def delete_node(self, node):
        names = sorted(fleet.notes(self.case).nodes)
        if len(names) > 1:
            name = names[node % len(names)]
            self.apply(Step("When", f'node "{name}" is deleted'), "DS-DELETE-ON-NODE-GONE",
                       {"node-health": "gone", "node": name})

    @rule(node=st.integers(0, MAX_NODES - 1), status=st.sampled_from(("False", "Unknown", "True")))
    def report_ready(self, node, status):
        names = sorted(fleet.notes(self.case).nodes)
        if names:
            self.apply(Step("Given", f'node "{names[node % len(names)]}" reports Ready "{status}"'),
                       "DS-STAY-ON-UNREACHABLE", {"node-health": status})

    @rule(target=jobs, fields=job_fields())
    def create_job(self, fields):
        made = notes(self.case)
        if len(made.jobs) >= MAX_JOBS or not fleet.notes(self.case).nodes:
            return multiple()
        name = f"j{len(made.jobs) + 1}"
        if not self.apply(_job_created(name, fields), "JOB-RUN-TO-COMPLETIONS", {"job": name}):
            return multiple()
        return name

    @rule(job=jobs, what=st.sampled_from(("one pod succeed", "one pod succeed", "one pod fail", "pods start",
                                          "pods succeed", "pods fail", "pod containers restart 2 times",
                                          "6 pods fail one after another")))
    def job_pods(self, job, what):
        snap = Snapshot(self.case.oracle)
        if not any(_active(p) and (p.get("spec") or {}).get("nodeName") for p in _owned(snap, "Job", job)):
            return                  # the steps would wait for a pod; the clocks must stay together
        text = f'the Job "{job}" has {what}' if what[0] in "o6" else f'the Job "{job}" {what}'
        self.apply(Step("When", text), "JOB-BACKOFF-LIMIT" if "fail" in what else "JOB-RUN-TO-COMPLETIONS",
                   {"pods of": ("Job", job)})

    @rule(backoff=st.sampled_from(("unset", "0", "1")), parallelism=st.sampled_from(("1", "2")),
          story=st.sampled_from(("up to the limit", "past the limit", "restarts")))
    def job_story(self, backoff, parallelism, story):
        """A Job of its own from rest: its pods fail one after another up to its backoffLimit
        (defaulting to 6) or one past it, or (under OnFailure) its containers restart in place,
        which are not failures; then the world is let stand still, and compared."""
        made = notes(self.case)
        if len(made.jobs) >= MAX_JOBS or not made.settled or JOB_COUNTS in self.case.diverged:
            return
        name = f"j{len(made.jobs) + 1}"
        fields = {"completions": "3", "parallelism": parallelism, "backoffLimit": backoff,
                  "restartPolicy": "OnFailure" if story == "restarts" else "Never"}
        if not self.apply(_job_created(name, fields), "JOB-RUN-TO-COMPLETIONS", {"job": name}):
            return
        self.settle(3)
        failures = (6 if backoff == "unset" else int(backoff)) + (story == "past the limit")
        if story == "restarts":
            text = f'the Job "{name}" pod containers restart 2 times'
        elif failures:
            text = f'the Job "{name}" has {failures} pod{"" if failures == 1 else "s"} fail one after another'
        else:
            return
        if self.apply(Step("When", text), "JOB-BACKOFF-LIMIT", {"pods of": ("Job", name)}):
            self.settle(3)

    @rule(target=daemonsets, selected=st.booleans(), policy=st.sampled_from((None, None, None, None, "Always", "OnFailure", "Never")))
    def create_daemonset(self, selected, policy):
        made = notes(self.case)
        if len(made.daemonsets) >= MAX_DAEMONSETS:
            return multiple()
        name = f"d{len(made.daemonsets) + 1}"
        text = (f'the DaemonSet "{name}" is created with restartPolicy "{policy}"' if policy
                else f'the DaemonSet "{name}" is created with node selector "{ROLE}=sensor"' if selected
                else f'the DaemonSet "{name}" is created')
        if not self.apply(Step("When", text), "DS-ONE-POD-PER-NODE", {"daemonset": name}):
            return multiple()
        return name

    @rule(ds=daemonsets, node=st.integers(0, MAX_NODES - 1), what=st.sampled_from(("fails", "is deleted")))
    def daemonset_pod(self, ds, node, what):
        names = sorted(fleet.notes(self.case).nodes)
        live = {(p.get("spec") or {}).get("nodeName") for p in _owned(Snapshot(self.case.oracle), "DaemonSet", ds)
                if _active(p)}
        if names and names[node % len(names)] in live:
            self.apply(Step("When", f'the DaemonSet "{ds}" pod on node "{names[node % len(names)]}" {what}'),
                       "DS-ONE-POD-PER-NODE", {"pods of": ("DaemonSet", ds)})

    @rule(strategy=st.sampled_from(("RollingUpdate", "default", "2", "OnDelete")), unready=st.integers(0, 2),
          slow=st.booleans())
    def daemonset_rollout(self, strategy, unready, slow):
        """From a world at rest with every node healthy: a DaemonSet of its own, its pods running and
        ready, ``unready`` of them then not ready (the last by name: the name order is a reading of
        ours), the first node's kubelet ``slow`` to let terminating pods go, its template changed and
        its rollout followed; then what the document says of the rollout (node by node within maxUnavailable, defaulting
        to 1, not-ready pods first, a replacement only once the old pod has left its node; under
        OnDelete, nothing replaced)."""
        made, nodes = notes(self.case), sorted(fleet.notes(self.case).nodes)
        name = "r1"
        if not made.settled or name in made.daemonsets or len(nodes) < 2 or JOB_COUNTS in self.case.diverged:
            return
        create = (f'the DaemonSet "{name}" is created with update strategy "{strategy}"' if strategy in ("RollingUpdate", "OnDelete")
                  else f'the DaemonSet "{name}" is created with maxUnavailable "{strategy}"')
        unready_on = nodes[-unready:] if 0 < unready < len(nodes) else []
        steps = [Step("Given", create), Step("Given", f'the DaemonSet "{name}" pods are running and ready'),
                 *(Step("When", f'the DaemonSet "{name}" pod on node "{n}" becomes not ready') for n in unready_on),
                 *([Step("Given", f'the DaemonSet "{name}" pod on node "{nodes[0]}" will be slow to terminate')] if slow else []),
                 Step("When", f'the DaemonSet "{name}" template changes to image "kube32/app:2"')]
        for i, step in enumerate(steps):
            if not self.apply(step, "DS-ROLLING-NODE-BY-NODE", {"daemonset": name} if i == 0 else {}):
                return
        self.apply(Step("When", f'the DaemonSet "{name}" rollout is followed for {ROLLOUT:g} seconds'),
                   "DS-ROLLING-NODE-BY-NODE", {"rollout": (name, strategy, unready_on, nodes)})

    @rule(kind=st.sampled_from(("Job", "DaemonSet")), pick=st.integers(0, 1))
    def delete_owner(self, kind, pick):
        made = notes(self.case)
        owners = [n for n in (made.jobs if kind == "Job" else made.daemonsets) if n not in made.deleted]
        if owners:
            name = owners[pick % len(owners)]
            self.apply(Step("When", f'the {kind} "{name}" is deleted'),
                       "JOB-GC-ON-DELETE" if kind == "Job" else "DS-GC-ON-DELETE", {"deleted": name})

    @rule(intervals=st.sampled_from((3, 3, 5, 8)))
    def settle(self, intervals):
        seconds = intervals * _interval(self.case)
        self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "JOB-RUN-TO-COMPLETIONS",
                   {"time": seconds})


class Workloads(Area):
    NAME = "workloads"
    TIME_FREE = False
    Rules = WorkloadsRules

    def allows(self, case, intent) -> bool:
        """The kubelet acts on an owner's pods only once the sides were found alike and nothing has
        happened since: which pods exist right after a change is the controllers' timing, and a
        step acting on "its pods" would act on different ones."""
        if "pods of" not in intent:
            return True
        kind, name = intent["pods of"]
        return notes(case).settled and \
            _bound(Snapshot(case.oracle), kind, name) == _bound(Snapshot(case.target), kind, name)

    def before(self, case, intent):
        return "time" in intent and case.quiet(intent["time"])

    def after(self, case, intent, before) -> list[Check]:
        made = notes(case)
        made.settled = False
        if intent.get("node-health") == "gone":
            fleet.notes(case).nodes.pop(intent["node"], None)
        if "job" in intent:
            made.jobs.append(intent["job"])
            return self._accepted(case, "Job", intent["job"])
        if "daemonset" in intent:
            made.daemonsets.append(intent["daemonset"])
            return self._accepted(case, "DaemonSet", intent["daemonset"])
        if "rollout" in intent:
            return _rollout_checks(*intent["rollout"])
        if "deleted" in intent:
            made.deleted.add(intent["deleted"])
            kind = _kind(intent["deleted"])
            snap = Snapshot(case.oracle)
            made.keep += [(kind, other) for other in (made.jobs if kind == "Job" else made.daemonsets)
                          if other not in made.deleted and any(not terminating(p) for p in _owned(snap, kind, other))]
        if intent.get("node-health", "True") != "True":
            # the node lifecycle now taints, evicts or collects pods within its own windows: a Job's
            # counts depend on when, the DaemonSet's (its pods tolerate it all) do not
            case.diverge(JOB_COUNTS, "a node went not ready or away")
        if abs(case.oracle.now() - case.target.now()) > 1e-6:
            case.diverge(FAMILY, "a Then step waited on the target alone: the clocks parted")
        settled = before is True and intent.get("time", 0) >= SETTLE * _interval(case)
        made.settled = settled and FAMILY not in case.diverged
        if not made.settled:
            return []
        mine, theirs = Snapshot(case.oracle), Snapshot(case.target)
        checks = [] if JOB_COUNTS in case.diverged else [c for job in made.jobs for c in self._job(case, job, mine, theirs)]
        checks += [c for name in sorted(made.deleted) for c in self._gone(case, name, mine, theirs)]
        checks += [Check(f"{'JOB' if kind == 'Job' else 'DS'}-GC-ON-DELETE",
                         Step("Then", f'the {kind} "{name}" still has every pod it had')) for kind, name in made.keep]
        made.keep = []
        return checks + [c for ds in made.daemonsets for c in self._daemonset(case, ds, mine, theirs)]

    @staticmethod
    def _accepted(case, kind: str, name: str) -> list[Check]:
        """A create the oracle accepted is accepted; one it refused is refused (a refusal, nothing stored)."""
        mine, theirs = case.oracle.ctx.responses.get(name), case.target.ctx.responses.get(name)
        refused = isinstance(mine, ApiStatusError)
        if refused == isinstance(theirs, ApiStatusError):
            return []
        clause = "JOB-RESTART-POLICY" if kind == "Job" else "DS-RESTART-POLICY-ALWAYS"
        if not refused:
            return [Check(clause, Step("Then", f'the {kind} "{name}" is accepted'))]
        causes = (mine.status.get("details") or {}).get("causes") or [{}]
        return [Check(clause, Step(
            "Then", f'the {kind} "{name}" is rejected as Invalid on "{causes[0].get("field")}" saying:',
            docstring=causes[0].get("message") or ""))]

    @staticmethod
    def _job(case, job: str, mine: Snapshot, theirs: Snapshot) -> list[Check]:
        if isinstance(case.oracle.ctx.responses.get(job), ApiStatusError) or job in notes(case).deleted:
            return []
        ours, their = _owned(mine, "Job", job), _owned(theirs, "Job", job)
        checks = []
        case.stats.compared += 4
        active = sum(map(_active, ours))
        if active != sum(map(_active, their)):
            checks.append(Check("JOB-PARALLELISM", Step("Then", f'the Job "{job}" has {active} active pod'
                                                                f'{"" if active == 1 else "s"}')))
        if len(ours) != len(their) and not any(map(terminating, ours + their)):
            checks.append(Check("JOB-FAILED-POD-REPLACED", Step("Then", f'the Job "{job}" has {len(ours)} pod'
                                                                        f'{"" if len(ours) == 1 else "s"} in total')))
        if ours and not all(map(made_from(_job_template(theirs, job)), their)):
            checks.append(Check("JOB-RUN-TO-COMPLETIONS", Step("Then", f'the Job "{job}" pods are made from its template')))
        job_mine = next((j for j in mine.list("Job") if j["metadata"]["name"] == job), None)
        job_theirs = next((j for j in theirs.list("Job") if j["metadata"]["name"] == job), None)
        for ctype, clause in (("Complete", "JOB-COMPLETE-CONDITION"), ("Failed", "JOB-BACKOFF-LIMIT")):
            want, got = condition(job_mine, ctype) or {}, condition(job_theirs, ctype) or {}
            if (want.get("status"), want.get("reason") if ctype == "Failed" else None) == \
                    (got.get("status"), got.get("reason") if ctype == "Failed" else None):
                continue
            if not want:
                checks.append(Check(clause, Step("Then", f'the Job "{job}" has no condition "{ctype}"')))
            elif ctype == "Failed":
                checks.append(Check(clause, Step(
                    "Then", f'the Job "{job}" has condition "Failed" "{want.get("status")}" with reason '
                            f'"{want.get("reason")}" and message:', docstring=want.get("message") or "")))
            else:
                checks.append(Check(clause, Step("Then", f'the Job "{job}" has condition "{ctype}" '
                                                         f'"{want.get("status")}"')))
        return checks

    @staticmethod
    def _gone(case, name: str, mine: Snapshot, theirs: Snapshot) -> list[Check]:
        """A deleted owner's pods are gone or terminating."""
        kind = _kind(name)
        if any(not terminating(p) for p in _owned(mine, kind, name)) or \
                not any(not terminating(p) for p in _owned(theirs, kind, name)):
            return []
        return [Check("JOB-GC-ON-DELETE" if kind == "Job" else "DS-GC-ON-DELETE",
                      Step("Then", f'the {kind} "{name}" pods are all gone or terminating'))]

    @staticmethod
    def _daemonset(case, ds: str, mine: Snapshot, theirs: Snapshot) -> list[Check]:
        if isinstance(case.oracle.ctx.responses.get(ds), ApiStatusError) or ds in notes(case).deleted:
            return []

        def live(snap: Snapshot) -> dict[str, dict]:
            """Live pods by the node each is meant for (bound to it, or pinned to it and not yet bound:
            whether a pod got bound before its node went not ready is the controller's timing)."""
            return {(p.get("spec") or {}).get("nodeName") or _meant(p): p
                    for p in _owned(snap, "DaemonSet", ds) if not terminating(p)}

        def bound(pods: dict) -> bool:
            return all((p.get("spec") or {}).get("nodeName") for p in pods.values())
        case.stats.compared += 1
        ours, their = live(mine), live(theirs)
        extra = sorted(set(their) - set(ours))
        if extra:
            known = fleet.notes(case).nodes
            clause = "DS-DELETE-ON-NODE-GONE" if any(n not in known for n in extra) else "DS-DELETE-ON-NODE-MISMATCH"
            return [Check(clause, Step("Then", f'the DaemonSet "{ds}" has no pod on node "{extra[0]}"'))]
        if set(ours) - set(their):
            if not (bound(ours) and bound(their)):
                return []
            return [Check("DS-ONE-POD-PER-NODE", Step("Then", f'the DaemonSet "{ds}" has pods on exactly nodes '
                                                              f'"{", ".join(sorted(ours))}"'))]
        checks = []
        for node, pod in ours.items():
            other = their[node]
            want = _selector(pod)
            if _selector(other) != want:
                checks.append(Check("DS-HOSTNAME-SELECTOR", Step(
                    "Then", f'the DaemonSet "{ds}" pod on node "{node}" has node selector "{want}"')))
            for key, effect in sorted(_untimed(pod) - _untimed(other)):
                checks.append(Check("NODE-DAEMONSET-TOLERATIONS", Step(
                    "Then", f'the DaemonSet "{ds}" pod on node "{node}" tolerates "{key}:{effect}" without a time limit')))
        return checks


def _job_created(name: str, fields: dict[str, str]) -> Step:
    return Step("When", f'the Job "{name}" is created with:', table(list(fields), [list(fields.values())]))


def _rollout_checks(name: str, strategy: str, unready: list[str], nodes: list[str]) -> list[Check]:
    """What the document says of a rollout followed from rest (``unready``: the nodes whose pods
    were not ready when the template changed)."""
    if strategy == "OnDelete":
        return [Check("DS-ONDELETE", Step("Then", f'the DaemonSet "{name}" keeps the same pod on node "{n}"'))
                for n in nodes]
    budget = max(2 if strategy == "2" else 1, len(unready))     # not-ready pods go whatever the budget
    checks = [Check("DS-ROLLING-NODE-BY-NODE", Step("Then", f'the DaemonSet "{name}" rollout completed')),
              Check("DS-ROLLING-MAX-UNAVAILABLE", Step(
                  "Then", f'the DaemonSet "{name}" rollout never had more than {budget} node{"" if budget == 1 else "s"} '
                          f'without a ready pod')),
              Check("DS-ROLLING-WAIT-TERMINATING",
                    Step("Then", f'the DaemonSet "{name}" rollout never started a pod next to a terminating one'))]
    if len(unready) == 1:
        rest = ", ".join(n for n in nodes if n not in unready)
        checks.append(Check("DS-ROLLING-NOT-READY-FIRST", Step(
            "Then", f'the DaemonSet "{name}" rollout replaced node "{unready[0]}" first, then nodes in order "{rest}"')))
    return checks


def _meant(pod: dict) -> str | None:
    return ((pod.get("spec") or {}).get("nodeSelector") or {}).get(HOSTNAME_LABEL)


def _selector(pod: dict) -> str:
    """The pod's node selector as the step writes it (the runner's own fence label left out)."""
    selector = (pod.get("spec") or {}).get("nodeSelector") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(selector.items()) if k != FENCE_LABEL)


def _untimed(pod: dict) -> set[tuple[str, str]]:
    """The taints the pod tolerates without a time limit."""
    return {(t.get("key"), t.get("effect")) for t in (pod.get("spec") or {}).get("tolerations") or []
            if t.get("operator") == "Exists" and "tolerationSeconds" not in t}


AREA = Workloads()
