"""Deployments on the manual clock: created with random replicas, scaled (in the spec and through
the scale subresource), their template's image and labels changed, their own labels changed, their
pods started and deleted, themselves deleted.

Compared after every step: metadata.generation (it moves with spec changes only, whenever they
happen) and the scale subresource's desired count. Compared once the world has stood still (as the workloads area does: a clock move of
``SETTLE`` workload intervals over which no kubelet has a write due, both clocks together) and no
rollout is under way on either side (every live pod of a side carries one pod-template-hash and
the current image): the live pods' count, whether they are made from the template and carry the
documented tolerations, the Available condition's status, the scale subresource's desired count;
after a deletion, that no pod is left."""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, rule

from kube32.conformance.errors import ApiStatusError
from kube32.conformance.explore import fleet
from kube32.conformance.explore.areas import Area
from kube32.conformance.explore.areas.workloads import SETTLE, _interval, made_from
from kube32.conformance.explore.case import Check
from kube32.conformance.explore.gherkin import Step, table
from kube32.conformance.explore.machine import seconds_text
from kube32.conformance.explore.snapshot import Snapshot, condition, terminating
from kube32.conformance.steps.deployment import _uid_key
from kube32.spec import constants

MAX_DEPLOYMENTS = 2
FAMILY = "deployment"


@dataclasses.dataclass
class Notes:
    made: list[str] = dataclasses.field(default_factory=list)
    deleted: set = dataclasses.field(default_factory=set)
    images: int = 1
    changed: dict = dataclasses.field(default_factory=dict)   # Deployment -> when its template last changed
    settled: bool = False


def notes(case) -> Notes:
    return case.notes.setdefault(FAMILY, Notes())


def _deployment(snap: Snapshot, name: str) -> dict | None:
    return next((d for d in snap.list("Deployment") if d["metadata"]["name"] == name), None)


def _pods(snap: Snapshot, dep: dict | None) -> list[dict]:
    """The live pods carrying the Deployment's owner reference."""
    uid = (dep or {}).get("metadata", {}).get("uid")
    return [p for p in snap.pods() if not terminating(p)
            and any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]


def _image(pod_or_template: dict) -> str:
    return ((pod_or_template.get("spec") or {}).get("containers") or [{}])[0].get("image", "")


def _rolled(snap: Snapshot, dep: dict, image: bool = True) -> bool:
    """No rollout under way: every live pod carries one pod-template-hash (and, on the oracle, the
    current image; on the target that is what the comparison then judges)."""
    pods = _pods(snap, dep)
    hashes = {(p["metadata"].get("labels") or {}).get(constants.POD_TEMPLATE_HASH_LABEL) for p in pods}
    return len(hashes) <= 1 and (not image or all(_image(p) == _image(dep["spec"]["template"]) for p in pods))


class DeploymentRules:
    deployments = Bundle("deployments")

    @rule()
    def register_node(self):
        nodes = fleet.notes(self.case)
        if len(nodes.nodes) < 2:
            name = nodes.next_node()
            self.apply(Step("Given", "these Ready nodes:", table(["name", "memory"], [[name, "200Ki"]])),
                       "DEPLOY-CREATE-MISSING", {"nodes": [name]})

    @rule()
    def start_when_bound(self):
        if fleet.notes(self.case).nodes:
            self.apply(Step("Given", "Deployment pods are started as soon as they are bound"), "DEPLOY-CREATE-MISSING")

    @rule(target=deployments, replicas=st.integers(0, 4), budget=st.sampled_from((None, None, "0", "1", "50%")))
    def create(self, replicas, budget):
        made = notes(self.case)
        if len(made.made) >= MAX_DEPLOYMENTS:
            return multiple()
        name = f"dep{len(made.made) + 1}"
        if budget is None:
            step = Step("When", f'the Deployment "{name}" is created with {replicas} replica{"" if replicas == 1 else "s"}')
        else:
            step = Step("When", f'the Deployment "{name}" is created with:', docstring=(
                f"spec:\n  replicas: {replicas}\n  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n"
                f"      maxUnavailable: {budget if budget.isdigit() else repr(budget)}\n"))
        if not self.apply(step, "DEPLOY-CREATE-MISSING", {"deployment": name}):
            return multiple()
        return name

    @rule(dep=deployments, replicas=st.integers(0, 4), how=st.sampled_from(("spec", "spec", "PUT", "PATCH")))
    def scale(self, dep, replicas, how):
        plural = "" if replicas == 1 else "s"
        text = (f'the Deployment "{dep}" is scaled to {replicas} replica{plural}' if how == "spec" else
                f'the Deployment "{dep}" is scaled to {replicas} replica{plural} with a {how} of its scale subresource')
        self.apply(Step("When", text), "DEPLOY-DELETE-SURPLUS" if how == "spec" else "DEPLOY-SCALE-SUBRESOURCE")

    @rule(dep=deployments, what=st.sampled_from(("image", "image", "template label", "label")))
    def change(self, dep, what):
        made = notes(self.case)
        if what == "image":
            made.images += 1
            text = f'the Deployment "{dep}" image changes to "kube32/app:{made.images}"'
        elif what == "template label":
            text = f'the Deployment "{dep}" pod template gets label "tier=t{made.images}"'
        else:
            text = f'the Deployment "{dep}" gets label "team=t{made.images}"'
        self.apply(Step("When", text), "DEPLOY-GENERATION", {"template": dep} if what != "label" else {})

    @rule(dep=deployments, what=st.sampled_from(("pods are started", "loses one pod deleted with grace period 0",
                                                 "gets 1 of its pods started", "gets 1 of its pods marked not ready")))
    def pods(self, dep, what):
        self.apply(Step("When", f'the Deployment "{dep}" {what}'), "DEPLOY-CREATE-MISSING", {"pods of": dep})

    @rule(dep=deployments)
    def delete(self, dep):
        if dep not in notes(self.case).deleted:
            self.apply(Step("When", f'the Deployment "{dep}" is deleted'), "DEPLOY-GC-ON-DELETE", {"deleted": dep})

    @rule(intervals=st.sampled_from((3, 3, 5, 8)))
    def settle(self, intervals):
        seconds = intervals * _interval(self.case)
        self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "DEPLOY-CREATE-MISSING", {"time": seconds})


class Deployments(Area):
    NAME = "deployment"
    TIME_FREE = False
    Rules = DeploymentRules

    def allows(self, case, intent) -> bool:
        """A step on "the Deployment's pods" only where both sides have the same pods to act on."""
        if "pods of" not in intent:
            return True
        name = intent["pods of"]
        mine, theirs = Snapshot(case.oracle), Snapshot(case.target)
        shape = [sorted(((p.get("spec") or {}).get("nodeName") or "", (p.get("status") or {}).get("phase", ""))
                        for p in _pods(snap, _deployment(snap, name))) for snap in (mine, theirs)]
        return notes(case).settled and shape[0] == shape[1] and bool(shape[0])

    def before(self, case, intent):
        return "time" in intent and case.quiet(intent["time"])

    def after(self, case, intent, before) -> list[Check]:
        made = notes(case)
        made.settled = False
        if "deployment" in intent:
            made.made.append(intent["deployment"])
        if "deleted" in intent:
            made.deleted.add(intent["deleted"])
        if "template" in intent:
            made.changed[intent["template"]] = case.now()
        if abs(case.oracle.now() - case.target.now()) > 1e-6:
            case.diverge(FAMILY, "a Then step waited on the target alone: the clocks parted")
        if FAMILY in case.diverged or not made.made:
            return []
        mine, theirs = Snapshot(case.oracle), Snapshot(case.target)
        checks = [c for name in made.made if name not in made.deleted
                  for c in [*self._generation(case, name, mine, theirs), *_scale(case, name)]]
        made.settled = before is True and intent.get("time", 0) >= SETTLE * _interval(case)
        if made.settled:
            for name in made.made:
                checks += self._settled(case, name, mine, theirs)
        return checks

    @staticmethod
    def _generation(case, name, mine: Snapshot, theirs: Snapshot) -> list[Check]:
        ours, their = _deployment(mine, name), _deployment(theirs, name)
        if ours is None or their is None:
            return []
        case.stats.compared += 1
        want = ours["metadata"].get("generation")
        if want == their["metadata"].get("generation"):
            return []
        return [Check("DEPLOY-GENERATION", Step("Then", f'the Deployment "{name}" has generation {want}'))]

    @staticmethod
    def _settled(case, name, mine: Snapshot, theirs: Snapshot) -> list[Check]:
        ours, their = _deployment(mine, name), _deployment(theirs, name)
        if name in notes(case).deleted:
            left = [_pods(snap, {"metadata": {"uid": side.ctx.notes.get(_uid_key(name))}})
                    for snap, side in ((mine, case.oracle), (theirs, case.target))]
            if left[0] or not left[1]:
                return []
            return [Check("DEPLOY-GC-ON-DELETE", Step("Then", f'the Deployment "{name}" has no pods left'))]
        if ours is None or their is None or not _rolled(mine, ours) or not _rolled(theirs, their, image=False):
            return []
        # one stale pod a pass, or (another reading) every other pass, and a replacement may come a
        # pass after its stale pod went: a rollout of n pods may take 2n passes
        rollout = (2 * (ours["spec"].get("replicas") or 0) + SETTLE) * _interval(case)
        if name in notes(case).changed and case.now() - notes(case).changed[name] < rollout:
            return []
        checks = []
        pods, other = _pods(mine, ours), _pods(theirs, their)
        case.stats.compared += 4
        if len(pods) != len(other):
            checks.append(Check("DEPLOY-CREATE-MISSING" if len(pods) > len(other) else "DEPLOY-DELETE-SURPLUS",
                                Step("Then", f'the Deployment "{name}" has {len(pods)} pod{"" if len(pods) == 1 else "s"}')))
        elif pods and not all(map(made_from(their["spec"]["template"]), other)):
            checks.append(Check("DEPLOY-CREATE-MISSING", Step("Then", f'the Deployment "{name}" pods are made from its template')))

        want = condition(ours, "Available") or {}
        if want and (condition(their, "Available") or {}).get("status") != want.get("status"):
            checks.append(Check("DEPLOY-AVAILABLE-CONDITION", Step(
                "Then", f'the Deployment "{name}" has condition "Available" "{want.get("status")}" with reason '
                        f'"{want.get("reason")}"')))
        if pods and other:
            rows = sorted(tuple(str(t.get(k, "")) for k in ("key", "operator", "effect", "tolerationSeconds"))
                          for t in (pods[0].get("spec") or {}).get("tolerations") or [])
            got = sorted(tuple(str(t.get(k, "")) for k in ("key", "operator", "effect", "tolerationSeconds"))
                         for t in (other[0].get("spec") or {}).get("tolerations") or [])
            if rows != got:
                checks.append(Check("DEPLOY-DEFAULT-TOLERATIONS", Step(
                    "Then", f'the Deployment "{name}" pods have these tolerations:',
                    table(["key", "operator", "effect", "tolerationSeconds"], [list(r) for r in rows]))))
        return checks


def _scale(case, name: str) -> list[Check]:
    """The scale subresource's desired count (what kubectl scale reads): the spec's, at any moment."""
    answers = []
    for side in (case.oracle, case.target):
        ctx = side.ctx
        try:
            answers.append(ctx.api.get("Deployment", ctx.name(name), ctx.ns, sub="scale"))
        except ApiStatusError:
            answers.append(None)
    mine, theirs = answers
    if mine is None or ((theirs or {}).get("spec") or {}).get("replicas") == (mine.get("spec") or {}).get("replicas"):
        return []
    status = mine.get("status") or {}
    return [Check("DEPLOY-SCALE-SUBRESOURCE", Step(
        "Then", f'the Deployment "{name}" scale shows {(mine.get("spec") or {}).get("replicas", 0)} desired and '
                f'{status.get("replicas", 0)} current replica{"" if status.get("replicas", 0) == 1 else "s"} with '
                f'selector "{status.get("selector", "")}"'))]


AREA = Deployments()
