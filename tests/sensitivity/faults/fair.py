"""Fair variants: the reference made into another reasonable implementation.

Each follows the document but reads it another way where the document is silent (an exact string,
an upstream wire format, maxSurge pacing, which tolerations already "tolerate" a taint). The clauses
it names must still PASS at document level; the ``differs`` clauses show at reference level that
the variant is live. A suite that fails one of these fails a correct implementation.
"""

from __future__ import annotations

from kube32.reference.api import tables
from kube32.reference.controllers import deployment_plan as dp
from kube32.reference.controllers import lifecycle_rules
from kube32.reference.machinery import defaults
from kube32.reference.scheduler.plugins import node_readiness
from kube32.spec import reasons
from tests.sensitivity.registry import fair

_resolve_fenceposts = dp.resolve_fenceposts


@fair("admission-tolerates-by-key-and-value",
      passes=["NODE-DEFAULT-TOLERATIONS", "NODE-DEFAULT-TOLERATIONS-ONLY-MISSING", "NODE-EVICT-NONPOSITIVE-SECONDS",
              "NODE-TOLERATE-FOREVER", "NODE-LEAVES-FINISHED-PODS"],
      differs=["NODE-DEFAULT-TOLERATIONS-ONLY-MISSING"],
      cannot_tell=["NODE-EVICT-NO-TOLERATION"])
def _(mp):
    """Admission counts a pod as already tolerating a default taint by the same test eviction uses
    (key, effect AND value), so an ``Equal value: other`` toleration gets the default added. Then
    no admitted pod lacks a matching toleration, and the scenarios that need one say so."""
    def tolerates(tolerations, key, effect="NoExecute"):
        taint = {"key": key, "effect": effect}
        return any(lifecycle_rules.toleration_matches(t, taint) for t in tolerations or [])
    mp.setattr(defaults, "already_tolerates", tolerates)


@fair("no-status-reported-as-not-ready",
      passes=["SCHED-FILTER-STATUS-PRESENT", "SCHED-FILTER-ORDER", "SCHED-FILTER-READY"],
      differs=["SCHED-FILTER-STATUS-PRESENT", "SCHED-FILTER-ORDER"])
def _(mp):
    """A node without status or Ready condition is reported "node(s) were not ready"."""
    mp.setattr(node_readiness, "REASON_UNKNOWN_CONDITION", reasons.REASON_NOT_READY)


@fair("no-server-side-tables", passes=["EXAMPLE-PENDING-POD-ROW", "EXAMPLE-EVENT-ROW"],
      differs=["EXAMPLE-PENDING-POD-ROW", "EXAMPLE-EVENT-ROW"])
def _(mp):
    """The API server answers plain JSON whatever the Accept header asks for (no meta.k8s.io Table)."""
    mp.setattr(tables, "wants_table", lambda: False)


@fair("own-evicted-message", passes=["NODE-EVICT-EVENT", "NODE-EVICT-RETURNS-TO-PENDING"],
      differs=["NODE-EVICT-EVENT"])
def _(mp):
    """The Evicted event (and the pod's status.message) in the implementation's own words."""
    mp.setattr(reasons, "EVICTED_MESSAGE", "Taint manager evicted the pod from {node} ({taint})")


@fair("own-restart-policy-cause-text", passes=["JOB-RESTART-POLICY", "DS-RESTART-POLICY-ALWAYS"],
      differs=["JOB-RESTART-POLICY", "DS-RESTART-POLICY-ALWAYS"])
def _(mp):
    """The refusal names spec.template.spec.restartPolicy with another message."""
    mp.setattr(reasons, "UNSUPPORTED_VALUE_MSG", "restartPolicy {value} is not allowed here (use {supported})")


@fair("rollout-without-surge",
      passes=["DEPLOY-ONE-STALE-PER-PASS", "DEPLOY-SURPLUS-ORDER", "DEPLOY-AVAILABLE-CONDITION",
              "DEPLOY-MAX-UNAVAILABLE-DEFAULT", "DEPLOY-POD-TEMPLATE-HASH"],
      differs=["DEPLOY-ROLLOUT-MAX-UNAVAILABLE"])
def _(mp):
    """maxSurge is never used (the document does not name it): a rollout only deletes within the
    maxUnavailable budget, which falls back to 1 when it comes out 0 (as upstream's with no surge)."""
    mp.setattr(dp, "resolve_fenceposts", lambda surge, unavailable, desired: _resolve_fenceposts(0, unavailable, desired))
