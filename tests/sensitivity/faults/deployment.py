"""Faults of the Deployment controller (and the scale subresource it relies on), and fair variants:
other readings of the document where it is silent.

Each fault patches one rule in ``reference.controllers.deployment_plan`` / ``deployment_status`` /
``deployment`` (or the API's scale handler) and names the clauses whose scenarios must then fail.
"""

from __future__ import annotations

import copy
import secrets

from kube32.reference.api import writes as api_writes
from kube32.reference.controllers import deployment, deployment_status
from kube32.reference.controllers import deployment_plan as dp
from kube32.reference.store import store as store_module
from kube32.spec import constants, reasons
from tests.sensitivity.registry import fair, fault

_plan = dp.plan
_owned_pods = dp.owned_pods
_template_hash = dp.template_hash
_rollout_limits = dp.rollout_limits
_resolve_fenceposts = dp.resolve_fenceposts
_scaled_value = dp.scaled_value
_pod_from_template = dp.pod_from_template
_add_default_tolerations = dp.add_default_tolerations
_counts = deployment_status.counts
_compute_status = deployment_status.compute_status
_available_condition = deployment_status.available_condition
_scale_of = api_writes.scale_of
_strategy = dp.strategy


def _keep(actions: list, predicate) -> list:
    return [a for a in actions if predicate(a)]


# -- ownership and creation -------------------------------------------------------------------
@fault("deployment-adopts-by-selector", breaks=["DEPLOY-OWNED-PODS"])
def _(mp):
    def owned(d, pods):
        match = ((d.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        ns = d["metadata"].get("namespace")
        by_label = [p for p in pods if p["metadata"].get("namespace") == ns and match
                    and all((p["metadata"].get("labels") or {}).get(k) == v for k, v in match.items())]
        return _owned_pods(d, pods) + [p for p in by_label if not dp.is_owned_by(p, d)]
    mp.setattr(dp, "owned_pods", owned)


@fault("deployment-creates-one-pod-per-pass", breaks=["DEPLOY-CREATE-MISSING"])
def _(mp):
    def plan(d, pods, now, seconds):
        actions = _plan(d, pods, now, seconds)
        creates = [a for a in actions if isinstance(a, dp.CreatePod)]
        return _keep(actions, lambda a: not isinstance(a, dp.CreatePod)) + creates[:1]
    mp.setattr(dp, "plan", plan)


@fault("deployment-pods-not-from-the-template", breaks=["DEPLOY-CREATE-MISSING"])
def _(mp):
    """The pods run a stock image, whatever the template says."""
    def pod_from_template(d, h, seconds):
        pod = _pod_from_template(d, h, seconds)
        pod["spec"] = {**pod["spec"], "containers": [{"name": "main", "image": "kube32/stock:1"}]}
        return pod
    mp.setattr(dp, "pod_from_template", pod_from_template)


@fault("deployment-counts-only-running-pods", breaks=["DEPLOY-CREATE-MISSING"])
def _(mp):
    """Pods that have not started yet are not counted, so every pass creates them again."""
    real = dp.active_pods
    mp.setattr(dp, "active_pods", lambda owned: [p for p in real(owned)
                                                 if (p.get("status") or {}).get("phase") == "Running"])


@fault("deployment-unset-replicas-means-zero", breaks=["DEPLOY-CREATE-MISSING"], level="reference")
def _(mp):
    mp.setattr(constants, "DEPLOYMENT_DEFAULT_REPLICAS", 0)


@fault("deployment-forgets-recreating-pods", breaks=["DEPLOY-CREATE-MISSING"])
def _(mp):
    """Edge-triggered: pods are created only on the first pass that sees a Deployment generation."""
    seen: set[tuple[str, int]] = set()

    def plan(d, pods, now, seconds):
        key = (d["metadata"]["uid"], d["metadata"].get("generation", 1))
        actions = _plan(d, pods, now, seconds)
        if key in seen:
            return _keep(actions, lambda a: not isinstance(a, dp.CreatePod))
        seen.add(key)
        return actions
    mp.setattr(dp, "plan", plan)


@fault("deployment-hash-is-random", breaks=["DEPLOY-POD-TEMPLATE-HASH"])
def _(mp):
    mp.setattr(dp, "template_hash", lambda template: dp.safe_encode(str(secrets.randbelow(2**32))))


@fault("deployment-hash-ignores-template", breaks=["DEPLOY-POD-TEMPLATE-HASH"])
def _(mp):
    mp.setattr(dp, "template_hash", lambda template: _template_hash({}))


@fault("deployment-skips-default-tolerations", breaks=["DEPLOY-DEFAULT-TOLERATIONS"])
def _(mp):
    mp.setattr(dp, "add_default_tolerations", lambda pod, seconds: pod)


@fault("deployment-tolerations-without-seconds", breaks=["DEPLOY-DEFAULT-TOLERATIONS"])
def _(mp):
    mp.setattr(dp, "add_default_tolerations", lambda pod, seconds: _add_default_tolerations(pod, None))


@fault("deployment-pods-under-a-replicaset", breaks=["DEPLOY-NO-REPLICASETS"])
def _(mp):
    def pod_from_template(d, h, seconds):
        pod = _pod_from_template(d, h, seconds)
        ref = pod["metadata"]["ownerReferences"][0]
        ref.update(kind="ReplicaSet", name=f"{d['metadata']['name']}-{h}")
        return pod

    def is_owned_by(pod, d):
        ref = dp.controller_ref(pod)
        return ref is not None and ref.get("uid") == d["metadata"].get("uid")
    mp.setattr(dp, "pod_from_template", pod_from_template)
    mp.setattr(dp, "is_owned_by", is_owned_by)


# -- deleting ---------------------------------------------------------------------------------
@fault("deployment-never-scales-down", breaks=["DEPLOY-DELETE-SURPLUS"])
def _(mp):
    mp.setattr(dp, "plan", lambda d, pods, now, seconds: _keep(
        _plan(d, pods, now, seconds), lambda a: not (isinstance(a, dp.DeletePod) and a.reason == "surplus")))


@fault("deployment-deletes-one-surplus-pod-per-pass", breaks=["DEPLOY-DELETE-SURPLUS"])
def _(mp):
    def plan(d, pods, now, seconds):
        actions = _plan(d, pods, now, seconds)
        surplus = [a for a in actions if isinstance(a, dp.DeletePod) and a.reason == "surplus"]
        return _keep(actions, lambda a: a not in surplus[1:])
    mp.setattr(dp, "plan", plan)


@fault("deployment-counts-terminating-pods", breaks=["DEPLOY-DELETE-SURPLUS"], level="reference")
def _(mp):
    mp.setattr(dp, "active_pods", lambda owned: [p for p in owned if not dp.is_finished(p)])


@fault("deployment-deletes-newest-first", breaks=["DEPLOY-SURPLUS-ORDER"])
def _(mp):
    def order(pods, current):
        by_name = sorted(pods, key=lambda p: p["metadata"]["name"], reverse=True)
        return sorted(by_name, key=lambda p: -dp.timefmt.parse(p["metadata"]["creationTimestamp"]))
    mp.setattr(dp, "deletion_order", order)


@fault("deployment-deletes-not-ready-then-newest", breaks=["DEPLOY-SURPLUS-ORDER"])
def _(mp):
    """Staleness plays no part in the deletion order (the newest pods, those of the new template, go first)."""
    def order(pods, current):
        by_name = sorted(pods, key=lambda p: p["metadata"]["name"], reverse=True)
        return sorted(by_name, key=lambda p: (dp.is_ready(p), -dp.timefmt.parse(p["metadata"]["creationTimestamp"])))
    mp.setattr(dp, "deletion_order", order)


@fault("deployment-keeps-orphans", breaks=["DEPLOY-GC-ON-DELETE"])
def _(mp):
    mp.setattr(dp, "orphans", lambda pods, deployments: [])


@fault("deployment-orphans-by-label", breaks=["DEPLOY-GC-ON-DELETE"])
def _(mp):
    """Garbage collection by the deleted Deployment's label instead of its uid: deletes every pod
    of the namespace that has an app label (the other Deployment's too)."""
    def orphans(pods, deployments):
        live = {(d["metadata"].get("namespace"), d["metadata"].get("uid")) for d in deployments}
        gone = any((p["metadata"].get("namespace"), (dp.controller_ref(p) or {}).get("uid")) not in live
                   for p in pods if dp.controller_ref(p) and not dp.is_terminating(p))
        return [dp.DeletePod(p, "orphan") for p in pods if gone and dp.controller_ref(p)
                and not dp.is_terminating(p)]
    mp.setattr(dp, "orphans", orphans)


# -- rolling out ------------------------------------------------------------------------------
@fault("deployment-replaces-every-stale-pod-at-once", breaks=["DEPLOY-ONE-STALE-PER-PASS"])
def _(mp):
    mp.setattr(constants, "DEPLOYMENT_STALE_REPLACEMENTS_PER_PASS", 1000)


@fault("deployment-replaces-two-stale-pods-per-pass", breaks=["DEPLOY-ONE-STALE-PER-PASS"])
def _(mp):
    mp.setattr(constants, "DEPLOYMENT_STALE_REPLACEMENTS_PER_PASS", 2)


@fault("deployment-never-rolls-out", breaks=["DEPLOY-ONE-STALE-PER-PASS"])
def _(mp):
    mp.setattr(constants, "DEPLOYMENT_STALE_REPLACEMENTS_PER_PASS", 0)
    mp.setattr(dp, "rollout_limits", lambda d: (0, _rollout_limits(d)[1]))


@fault("deployment-rolls-on-every-spec-change", breaks=["DEPLOY-ONE-STALE-PER-PASS", "DEPLOY-POD-TEMPLATE-HASH"])
def _(mp):
    """The pods' hash covers the whole spec (the generation): a scale-up makes every pod stale."""
    def plan(d, pods, now, seconds):
        d = copy.deepcopy(d)
        meta = d["spec"]["template"].setdefault("metadata", {})
        meta["annotations"] = {**(meta.get("annotations") or {}), "generation": str(d["metadata"].get("generation"))}
        return _plan(d, pods, now, seconds)
    mp.setattr(dp, "plan", plan)


@fault("deployment-rollout-without-surge", breaks=["DEPLOY-ROLLOUT-MAX-UNAVAILABLE"], level="reference")
def _(mp):
    """No surge pod and no fallback budget: 3 replicas (budget 0) never roll. Only our reading of
    maxSurge (which the document never names) is broken; see the fair variant rollout-without-surge."""
    mp.setattr(dp, "rollout_limits", lambda d: (0, _rollout_limits(d)[1]))


@fault("deployment-rollout-holds-not-ready-stale-pods", breaks=["DEPLOY-ROLLOUT-MAX-UNAVAILABLE"], level="reference")
def _(mp):
    """Counts a not-ready stale pod against the budget like a ready one."""
    real_is_ready = dp.is_ready

    def plan(d, pods, now, seconds):
        current = dp.template_hash((d.get("spec") or {}).get("template") or {})
        dp.is_ready = lambda p: real_is_ready(p) or not dp.is_current(p, current)
        try:
            return _plan(d, pods, now, seconds)
        finally:
            dp.is_ready = real_is_ready
    mp.setattr(dp, "plan", plan)


# -- fenceposts and the Available condition ---------------------------------------------------
@fault("deployment-max-unavailable-rounds-up", breaks=["DEPLOY-MAX-UNAVAILABLE-DEFAULT"], level="reference")
def _(mp):
    mp.setattr(dp, "scaled_value", lambda value, total, round_up, default: _scaled_value(value, total, True, default))


@fault("deployment-fenceposts-without-fallback", breaks=["DEPLOY-MAX-UNAVAILABLE-DEFAULT"], level="reference")
def _(mp):
    def resolve(surge, unavailable, desired):
        return (_scaled_value(surge, desired, True, constants.DEPLOYMENT_DEFAULT_MAX_SURGE),
                _scaled_value(unavailable, desired, False, constants.DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE))
    mp.setattr(dp, "resolve_fenceposts", resolve)


@fault("deployment-max-unavailable-at-least-one", breaks=["DEPLOY-MAX-UNAVAILABLE-DEFAULT",
                                                          "DEPLOY-ROLLOUT-MAX-UNAVAILABLE"], level="reference")
def _(mp):
    def resolve(surge, unavailable, desired):
        s, u = _resolve_fenceposts(surge, unavailable, desired)
        return s, max(u, 1)
    mp.setattr(dp, "resolve_fenceposts", resolve)


@fault("deployment-ignores-explicit-max-unavailable", breaks=["DEPLOY-MAX-UNAVAILABLE-DEFAULT"])
def _(mp):
    def strategy(d):
        kind, rolling = _strategy(d)
        return kind, {k: v for k, v in rolling.items() if k != "maxUnavailable"}
    mp.setattr(dp, "strategy", strategy)


@fault("deployment-max-unavailable-default-zero", breaks=["DEPLOY-MAX-UNAVAILABLE-DEFAULT",
                                                          "DEPLOY-AVAILABLE-CONDITION"])
def _(mp):
    mp.setattr(constants, "DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE", "0%")


@fault("deployment-available-needs-every-pod", breaks=["DEPLOY-AVAILABLE-CONDITION"])
def _(mp):
    mp.setattr(dp, "max_unavailable", lambda d: 0)


@fault("deployment-available-message-wrong", breaks=["DEPLOY-AVAILABLE-CONDITION"], level="reference")
def _(mp):
    def available(d, status, now):
        c = _available_condition(d, status, now)
        return {**c, "message": "Deployment has minimum availability"}   # no full stop
    mp.setattr(deployment_status, "available_condition", available)


# -- status -----------------------------------------------------------------------------------
@fault("deployment-observed-generation-lags", breaks=["DEPLOY-GENERATION"], level="reference")
def _(mp):
    def compute(d, owned, now):
        status = _compute_status(d, owned, now)
        status["observedGeneration"] = max(int(d["metadata"].get("generation", 1)) - 1, 1)
        return status
    mp.setattr(deployment_status, "compute_status", compute)


@fault("deployment-ready-means-running-or-pending", breaks=["DEPLOY-STATUS-COUNTS"], level="reference")
def _(mp):
    def counts(d, owned, now):
        c = _counts(d, owned, now)
        c["readyReplicas"] = c["replicas"]
        return c
    mp.setattr(deployment_status, "counts", counts)


@fault("deployment-every-pod-updated", breaks=["DEPLOY-STATUS-COUNTS"], level="reference")
def _(mp):
    def counts(d, owned, now):
        c = _counts(d, owned, now)
        c["updatedReplicas"] = c["replicas"]
        return c
    mp.setattr(deployment_status, "counts", counts)


@fault("deployment-progress-deadline-ignored", breaks=["DEPLOY-PROGRESSING-CONDITION"], level="reference")
def _(mp):
    mp.setattr(deployment_status, "timed_out", lambda d, conditions, now: False)


@fault("deployment-progress-deadline-default-missing", breaks=["DEPLOY-PROGRESSING-CONDITION"], level="reference")
def _(mp):
    mp.setattr(constants, "DEPLOYMENT_DEFAULT_PROGRESS_DEADLINE_SECONDS", 10**9)


@fault("deployment-progressing-names-a-replicaset", breaks=["DEPLOY-PROGRESSING-CONDITION"], level="reference")
def _(mp):
    mp.setattr(reasons, "DEPLOY_PROGRESSING_MSG", 'ReplicaSet "{name}" is progressing.')
    mp.setattr(reasons, "DEPLOY_COMPLETE_MSG", 'ReplicaSet "{name}" has successfully progressed.')


@fault("deployment-never-complete", breaks=["DEPLOY-PROGRESSING-CONDITION"], level="reference")
def _(mp):
    mp.setattr(deployment_status, "is_complete", lambda d, status: False)


# -- the scale subresource --------------------------------------------------------------------
@fault("deployment-scale-write-ignored", breaks=["DEPLOY-SCALE-SUBRESOURCE"])
def _(mp):
    mp.setattr(api_writes, "scaled", lambda r, old, scale: copy.deepcopy(old))


@fault("deployment-generation-moves-on-metadata", breaks=["DEPLOY-GENERATION"])
def _(mp):
    """Any change to the object but its status moves metadata.generation (a new label too)."""
    mp.setattr(store_module, "generation_moves",
               lambda old, new: {**new, "status": None, "metadata": _meta_sans_versions(new)}
               != {**old, "status": None, "metadata": _meta_sans_versions(old)})


def _meta_sans_versions(obj: dict) -> dict:
    return {k: v for k, v in (obj.get("metadata") or {}).items()
            if k not in ("resourceVersion", "generation", "managedFields")}


@fault("deployment-scale-shows-current-as-desired", breaks=["DEPLOY-SCALE-SUBRESOURCE"])
def _(mp):
    """The Scale's spec.replicas shows how many pods there are, not how many are wanted."""
    def scale_of(obj):
        scale = _scale_of(obj)
        scale["spec"]["replicas"] = scale["status"]["replicas"]
        return scale
    mp.setattr(api_writes, "scale_of", scale_of)


@fault("deployment-scale-selector-as-object", breaks=["DEPLOY-SCALE-SUBRESOURCE"], level="reference")
def _(mp):
    def scale_of(obj):
        scale = _scale_of(obj)
        scale["status"]["selector"] = "app in (web)"
        return scale
    mp.setattr(api_writes, "scale_of", scale_of)


@fault("deployment-hash-of-pod-spec-only", breaks=["DEPLOY-POD-TEMPLATE-HASH", "DEPLOY-ONE-STALE-PER-PASS"])
def _(mp):
    """The hash covers spec.template.spec only: a label or annotation change rolls nothing."""
    mp.setattr(dp, "template_hash", lambda template: _template_hash({"spec": (template or {}).get("spec")}))



# -- fair variants: the document read another way where it is silent ---------------------------
DEPLOY_DOCUMENT_CLAUSES = ["DEPLOY-OWNED-PODS", "DEPLOY-CREATE-MISSING", "DEPLOY-POD-TEMPLATE-HASH",
                           "DEPLOY-DEFAULT-TOLERATIONS", "DEPLOY-DELETE-SURPLUS", "DEPLOY-SURPLUS-ORDER",
                           "DEPLOY-GC-ON-DELETE", "DEPLOY-ONE-STALE-PER-PASS", "DEPLOY-GENERATION",
                           "DEPLOY-AVAILABLE-CONDITION", "DEPLOY-MAX-UNAVAILABLE-DEFAULT",
                           "DEPLOY-PROGRESSING-CONDITION", "DEPLOY-SCALE-SUBRESOURCE", "DEPLOY-NO-REPLICASETS"]


@fair("deployment-rollout-without-budget", passes=DEPLOY_DOCUMENT_CLAUSES, differs=["DEPLOY-ROLLOUT-MAX-UNAVAILABLE"])
def _(mp):
    """'One stale pod per pass' read literally: every pass replaces one stale pod, ready or not;
    maxUnavailable decides only the Available condition (where the document puts it)."""
    mp.setattr(dp, "rollout_limits", lambda d: (_rollout_limits(d)[0], dp.desired_replicas(d)))


@fair("deployment-status-names-only-conditions", passes=DEPLOY_DOCUMENT_CLAUSES,
      differs=["DEPLOY-STATUS-COUNTS", "DEPLOY-GENERATION"])
def _(mp):
    """'Updates status and Available / Progressing conditions': the status holds the two
    conditions and nothing else (no pod counters, no observedGeneration)."""
    def compute(d, owned, now):
        return {"conditions": _compute_status(d, owned, now)["conditions"]}
    mp.setattr(deployment_status, "compute_status", compute)


@fair("deployment-progressing-false-once-complete", passes=DEPLOY_DOCUMENT_CLAUSES,
      differs=["DEPLOY-PROGRESSING-CONDITION"])
def _(mp):
    """Progressing is True while a rollout moves and False once nothing is left to roll out."""
    real = deployment_status.progressing_conditions

    def progressing(d, status, conditions, now):
        out = real(d, status, conditions, now)
        cond = deployment_status.get_condition(out, "Progressing")
        if cond is not None and cond.get("reason") == reasons.DEPLOY_COMPLETE and cond.get("status") == "True":
            out = [c for c in out if c.get("type") != "Progressing"] + [{**cond, "status": "False"}]
        return out
    mp.setattr(deployment_status, "progressing_conditions", progressing)


@fair("deployment-scale-without-status", passes=DEPLOY_DOCUMENT_CLAUSES, differs=["DEPLOY-SCALE-SUBRESOURCE"])
def _(mp):
    """The Scale carries what kubectl scale reads and writes (spec.replicas) and no status."""
    def scale_of(obj):
        return {k: v for k, v in _scale_of(obj).items() if k != "status"}
    mp.setattr(api_writes, "scale_of", scale_of)


@fair("deployment-hash-in-hex", passes=DEPLOY_DOCUMENT_CLAUSES, differs=["DEPLOY-POD-TEMPLATE-HASH"])
def _(mp):
    """pod-template-hash in hexadecimal digits (the document names the label, not its alphabet)."""
    mp.setattr(dp, "template_hash", lambda template: format(int(dp.fnv32a(repr(template).encode())), "x"))


@fair("deployment-pods-named-by-ordinal", passes=DEPLOY_DOCUMENT_CLAUSES, differs=["DEPLOY-POD-TEMPLATE-HASH"])
def _(mp):
    """Pods are named <deployment>-<n>, the lowest number free in the namespace, so a pod that is
    gone leaves its name to its replacement (generated names are the implementation's choice)."""
    def plan(d, pods, now, seconds):
        taken = {p["metadata"]["name"] for p in pods}
        out = []
        for action in _plan(d, pods, now, seconds):
            if isinstance(action, dp.CreatePod):
                n = next(i for i in range(len(taken) + 1) if f"{d['metadata']['name']}-{i}" not in taken)
                name = f"{d['metadata']['name']}-{n}"
                taken.add(name)
                meta = {k: v for k, v in action.manifest["metadata"].items() if k != "generateName"}
                action = dp.CreatePod({**action.manifest, "metadata": {**meta, "name": name}}, action.reason)
            out.append(action)
        return out
    mp.setattr(dp, "plan", plan)


@fair("deployment-deletes-pods-at-once", passes=DEPLOY_DOCUMENT_CLAUSES,
      differs=["DEPLOY-ONE-STALE-PER-PASS", "DEPLOY-DELETE-SURPLUS"])
def _(mp):
    """The controller removes its pods outright (grace period 0), bound or not: the document does
    not say it deletes gracefully, so no pod of it is ever seen terminating."""
    def delete_pod(cp, pod, now):
        meta = pod["metadata"]
        if cp.store.head.try_get("pods", meta["namespace"], meta["name"]) is not None:
            cp.store.delete("pods", meta["namespace"], meta["name"])
    mp.setattr(deployment, "delete_pod", delete_pod)


@fair("deployment-status-lags-a-pass", passes=DEPLOY_DOCUMENT_CLAUSES,
      differs=["DEPLOY-AVAILABLE-CONDITION", "DEPLOY-PROGRESSING-CONDITION"])
def _(mp):
    """Each pass writes the status the previous pass computed (a status may lag its pass)."""
    computed: dict[str, dict] = {}

    def compute(d, owned, now):
        uid = d["metadata"]["uid"]
        earlier = computed.get(uid, d.get("status") or {})
        computed[uid] = _compute_status(d, owned, now)
        return earlier
    mp.setattr(deployment_status, "compute_status", compute)


@fair("deployment-replaces-next-pass", passes=DEPLOY_DOCUMENT_CLAUSES, differs=["DEPLOY-ONE-STALE-PER-PASS"])
def _(mp):
    """'Replaces one stale pod per pass' as delete in this pass, create in the next: a stale pod's
    replacement comes with the following pass's "creates missing pods"."""
    def plan(*args):
        actions = _plan(*args)
        later = sum(1 for a in actions if isinstance(a, dp.DeletePod) and a.reason == "stale")
        out = []
        for a in actions:       # as many creates fewer as stale pods went: the next pass finds them missing
            if isinstance(a, dp.CreatePod) and later:
                later -= 1
                continue
            out.append(a)
        return out
    mp.setattr(dp, "plan", plan)
