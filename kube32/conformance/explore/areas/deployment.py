"""Deployments on the manual clock: created with random replicas, scaled (in the spec and through
the scale subresource), their template's image and labels changed, their own labels changed, their
pods started and deleted, themselves deleted.

Compared after every step: metadata.generation (it moves with spec changes only, whenever they
happen) and the scale subresource's desired count. Compared once the world has stood still (as the workloads area does: a clock move of
``SETTLE`` workload intervals over which no kubelet has a write due, both clocks together) and no
rollout is under way on either side (every live pod of a side carries one pod-template-hash and
the current image): the live pods' count, whether they are made from the template and carry the
documented tolerations, the Available condition's status, the scale subresource's desired count;
after a deletion, that no pod is left.

At rest also means every pod bound on both sides (which pods the nodes' room goes to, where there is
not enough, is the scheduler's order); a Deployment whose template ever changed is compared only
when, besides, no pod changed on either side over the move (a side between a stale pod's deletion
and its replacement looks rolled). Available is compared where both sides have as many ready pods.

Rules that start from such a moment and end in a check of their own: a scale-down with the ready
pods of the current template remembered (they go last) and, with no rollout under way, the count
two passes later; a change outside the template with every pod remembered (it replaces none); a
template change followed by one pass (at most one stale pod replaced); another Deployment's
deletion (this one's pods stay); the user's own pod with the Deployment's labels (never adopted)."""

from __future__ import annotations

import dataclasses

import yaml
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
from kube32.conformance.steps.deployment import _uid_key, is_ready
from kube32.spec import constants

MAX_DEPLOYMENTS = 2
FAMILY = "deployment"


@dataclasses.dataclass
class Notes:
    made: list[str] = dataclasses.field(default_factory=list)
    deleted: set = dataclasses.field(default_factory=set)
    images: int = 1
    bare: dict = dataclasses.field(default_factory=dict)      # the user's pods -> the Deployment whose labels they carry
    changed: dict = dataclasses.field(default_factory=dict)   # Deployment -> when its template last changed
    settled: bool = False
    still: bool = False        # and no pod changed on either side over that move


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

    @rule(dep=deployments, drop=st.integers(1, 3), mark=st.integers(0, 2))
    def scale_down_at_rest(self, dep, drop, mark):
        """Not-ready and stale pods go first: while a side has at least as many of them as pods to
        remove, every ready pod of the current template stays (``mark`` of them are first marked
        not ready, which sets no controller to work)."""
        rest = self._at_rest(dep)
        idle = rest is not None and not any(current for _, current in rest.sides) and all(p for p, _ in rest.sides)
        if idle and self.apply(Step("When", f'the Deployment "{dep}" gets 1 of its pods started'), "DEPLOY-SURPLUS-ORDER",
                               {"pods of": dep}):
            rest = self._at_rest(dep)
        if rest is None:
            return
        mark = min(mark, *(current - 1 for _, current in rest.sides))
        if mark > 0:
            if not self.apply(Step("When", f'the Deployment "{dep}" gets {mark} of its pods marked not ready'),
                              "DEPLOY-SURPLUS-ORDER", {"pods of": dep}):
                return
            rest = _sides(self.case, dep)
            if rest is None:
                return
        keep = rest.replicas - drop
        if keep < 0:
            return
        # with no rollout under way on either side, every surplus pod goes in the one pass
        count = [("DEPLOY-DELETE-SURPLUS", f'the Deployment "{dep}" has {keep} pod{"" if keep == 1 else "s"}')] \
            if rest.rolled else []
        if all(len(pods) - keep <= len(pods) - current for pods, current in rest.sides):
            self._then_after(dep, f'the Deployment "{dep}" ready pods made from its template are remembered',
                             _scale_text(dep, keep), "DEPLOY-SURPLUS-ORDER", also=tuple(count))
        elif count and self.apply(Step("When", _scale_text(dep, keep)), "DEPLOY-DELETE-SURPLUS"):
            seconds = 2 * _interval(self.case)
            self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "DEPLOY-DELETE-SURPLUS",
                       {"time": seconds, "quiet": True, "then": count})

    @rule(dep=deployments, how=st.sampled_from(("scale up", "label")))
    def change_outside_the_template_at_rest(self, dep, how):
        """Only a template change replaces pods: a scale-up or a label of the Deployment's own
        replaces none, whatever the pace of a rollout."""
        rest = self._at_rest(dep, rolled=True)
        if rest is None or rest.replicas >= 5:
            return
        made = notes(self.case)
        made.images += 1
        change = (_scale_text(dep, rest.replicas + 1) if how == "scale up"
                  else f'the Deployment "{dep}" gets label "team=t{made.images}"')
        self._then_after(dep, f'the Deployment "{dep}" pods are remembered', change, "DEPLOY-ONE-STALE-PER-PASS")

    @rule(dep=deployments)
    def template_change_then_one_pass(self, dep):
        """One stale pod replaced per pass: one pass after an image change, all but one of the pods
        are still of the old image (fewer go where the availability budget holds them back)."""
        rest = self._at_rest(dep, rolled=True)
        if rest is None:
            return
        counts = {len(pods) for pods, _ in rest.sides}
        n = counts.pop() if len(counts) == 1 else 0
        if n < 2:
            return
        made = notes(self.case)
        old = _image(_deployment(Snapshot(self.case.oracle), dep)["spec"]["template"])
        made.images += 1
        if not self.apply(Step("When", f'the Deployment "{dep}" image changes to "kube32/app:{made.images}"'),
                          "DEPLOY-GENERATION", {"template": dep}):
            return
        seconds = _interval(self.case)
        self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), "DEPLOY-ONE-STALE-PER-PASS", {
            "time": seconds, "then": [("DEPLOY-ONE-STALE-PER-PASS",
                                       f'the Deployment "{dep}" has at least {n - 1} pods of image "{old}"')]})

    @rule(dep=deployments)
    def delete_the_other_at_rest(self, dep):
        """Deleting a Deployment deletes its pods only (owner references, not labels): the other
        Deployment's pods all stay."""
        made = notes(self.case)
        others = [d for d in made.made if d != dep and d not in made.deleted]
        if dep in made.deleted or not others or self._at_rest(others[0]) is None:
            return
        other = others[0]
        self._then_after(other, f'the Deployment "{other}" pods are remembered', f'the Deployment "{dep}" is deleted',
                         "DEPLOY-GC-ON-DELETE", {"deleted": dep})

    @rule(dep=deployments)
    def bare_pod(self, dep):
        """A pod of the user's carrying the Deployment's labels: not counted, not adopted, not
        deleted with it (only owner references make a pod the Deployment's)."""
        made = notes(self.case)
        name = f"bare{len(made.bare) + 1}"
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"app": dep}},
                "spec": {"containers": [{"name": "main", "image": "kube32/app:1"}]}}
        if self.apply(Step("When", f'I create a pod "{name}" with:', docstring=yaml.safe_dump(body, sort_keys=False)),
                      "DEPLOY-OWNED-PODS"):
            made.bare[name] = dep

    def _at_rest(self, dep: str, rolled: bool = False) -> Rest | None:
        """``_at_rest``, once the world has been let stand still if it was not."""
        if not notes(self.case).settled:
            self.settle(3)
        return _at_rest(self.case, dep, rolled)

    def _then_after(self, dep: str, remember: str, change: str, clause: str, intent: dict | None = None,
                    also: tuple = ()) -> None:
        """Remember pods, make ``change``, let two passes run, then check the remembered pods are
        all still there (a world that stays at rest meanwhile: no kubelet write due), and ``also``
        ((clause, Then text) pairs)."""
        if not self.apply(Step("When", remember), clause) or not self.apply(Step("When", change), clause, intent):
            return
        seconds = 2 * _interval(self.case)
        self.apply(Step("When", f"{seconds_text(seconds)} seconds pass"), clause, {
            "time": seconds, "quiet": True,
            "then": [(clause, f'the Deployment "{dep}" pods include the remembered ones'), *also]})

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
        """For a clock move: whether it is quiet, and (for one long enough to settle) what the pods
        look like before it."""
        if "time" not in intent:
            return None
        settles = intent["time"] >= SETTLE * _interval(case)
        return case.quiet(intent["time"]), _pods_at(Snapshot(case.oracle), Snapshot(case.target)) if settles else None

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
        quiet = before is not None and before[0]
        if "then" in intent and (quiet or not intent.get("quiet")):
            case.stats.compared += len(intent["then"])
            checks += [Check(clause, Step("Then", text)) for clause, text in intent["then"]]
        # at rest: a quiet move of SETTLE intervals with every pod bound (which pods the nodes' room
        # goes to, where there is not enough, is the scheduler's order)
        made.settled = quiet and intent.get("time", 0) >= SETTLE * _interval(case) \
            and all(p.get("spec", {}).get("nodeName") for snap in (mine, theirs) for p in snap.pods() if not terminating(p))
        made.still = made.settled and before[1] == _pods_at(mine, theirs)
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
        checks = [Check("DEPLOY-OWNED-PODS", Step("Then", f'the Deployment "{name}" left pod "{bare}" untouched'))
                  for bare, owner in notes(case).bare.items() if owner == name and name not in notes(case).deleted
                  and _untouched(mine, bare) and not _untouched(theirs, bare)]
        if name in notes(case).deleted:
            left = [_pods(snap, {"metadata": {"uid": side.ctx.notes.get(_uid_key(name))}})
                    for snap, side in ((mine, case.oracle), (theirs, case.target))]
            if left[0] or not left[1]:
                return checks
            return [*checks, Check("DEPLOY-GC-ON-DELETE", Step("Then", f'the Deployment "{name}" has no pods left'))]
        if ours is None or their is None or not _rolled(mine, ours) or not _rolled(theirs, their, image=False):
            return checks
        # one stale pod a pass, or (another reading) every other pass, and a replacement may come a
        # pass after its stale pod went: a rollout of n pods may take 2n passes
        rollout = (2 * (ours["spec"].get("replicas") or 0) + SETTLE) * _interval(case)
        if name in notes(case).changed and (case.now() - notes(case).changed[name] < rollout or not notes(case).still):
            return checks       # (a side between a stale pod's deletion and its replacement looks rolled)
        pods, other = _pods(mine, ours), _pods(theirs, their)
        case.stats.compared += 4
        if len(pods) != len(other):
            checks.append(Check("DEPLOY-CREATE-MISSING" if len(pods) > len(other) else "DEPLOY-DELETE-SURPLUS",
                                Step("Then", f'the Deployment "{name}" has {len(pods)} pod{"" if len(pods) == 1 else "s"}')))
        elif pods and not all(map(made_from(their["spec"]["template"]), other)):
            checks.append(Check("DEPLOY-CREATE-MISSING", Step("Then", f'the Deployment "{name}" pods are made from its template')))

        want = condition(ours, "Available") or {}
        # (as many ready pods on both sides: which pods are ready can turn on where each landed, and
        # placements made while a rollout ran are paced by the implementation)
        ready = [sum(map(is_ready, side)) for side in (pods, other)]
        if want and ready[0] == ready[1] and (condition(their, "Available") or {}).get("status") != want.get("status"):
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


@dataclasses.dataclass
class Rest:
    replicas: int
    sides: list[tuple[list[dict], int]]    # per side: its live pods, how many are ready and current
    rolled: bool                           # no rollout under way on either side


def _at_rest(case, dep: str, rolled: bool = False) -> Rest | None:
    """The Deployment's pods on both sides at a moment the world stands still (``rolled``: and no
    rollout under way on either side), or None."""
    made = notes(case)
    if not made.settled or dep in made.deleted:
        return None
    rest = _sides(case, dep)
    return None if rest is None or (rolled and not rest.rolled) else rest


def _sides(case, dep: str) -> Rest | None:
    """The Deployment's pods on both sides (None: it is missing on one, or the replicas differ)."""
    replicas, sides, rolled = set(), [], True
    for snap in (Snapshot(case.oracle), Snapshot(case.target)):
        d = _deployment(snap, dep)
        if d is None:
            return None
        pods, template = _pods(snap, d), d["spec"]["template"]
        replicas.add(d["spec"].get("replicas", 1))
        sides.append((pods, sum(1 for p in pods if is_ready(p) and made_from(template)(p))))
        rolled = rolled and _rolled(snap, d)
    return Rest(replicas.pop(), sides, rolled) if len(replicas) == 1 else None


def _pods_at(*snaps: Snapshot) -> tuple:
    """Each side's live pods: which, where, in what phase, ready or not."""
    return tuple(frozenset((p["metadata"]["uid"], (p.get("spec") or {}).get("nodeName"), (p.get("status") or {}).get("phase"),
                            is_ready(p)) for p in snap.pods() if not terminating(p))
                 for snap in snaps)


def _untouched(snap: Snapshot, name: str) -> bool:
    """The user's pod is there, not terminating, with no owner reference."""
    pod = snap.pod(name)
    return pod is not None and not terminating(pod) and not pod["metadata"].get("ownerReferences")


def _scale_text(dep: str, replicas: int) -> str:
    return f'the Deployment "{dep}" is scaled to {replicas} replica{"" if replicas == 1 else "s"}'


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
