"""Kubelet steps: what a real kubelet (a rig board) does by itself — its Lease, the free figures it
reports, the pods it runs or refuses. Every phrase starts with "the kubelet of node".

Black-box: HTTP through ``k32.api`` only; the numbers come from the target's timing profile.
"""

from __future__ import annotations

import re
import time

from pytest_bdd import given, then

from kube32.conformance.steps._util import rows, step
from kube32.spec import constants, quantities, timefmt

RENEWALS_OBSERVED = 5        # gaps between renewals the cadence check measures
CADENCE_TOLERANCE = 0.05     # the mean gap must be within 5 % of the renew interval
MAX_GAP_FACTOR = 1.5         # and no single gap may exceed 1.5 intervals (a missed renewal)
_CHANGE = re.compile(r"^(?:(?P<amount>\S+) )?(?P<how>less|more|same)$")


def _lease(k32, node: str) -> dict:
    """The node's Lease in kube-node-lease: the one named after it, else the one it holds. The
    document says only that the kubelet renews "a Lease" there; upstream names it after the node and
    makes the node its holder (our reading, judged by ``lease_holder_and_duration``)."""
    lease = k32.api.try_get("Lease", node, constants.NODE_LEASE_NAMESPACE)
    if lease is None:
        held = [item for item in k32.api.list("Lease", constants.NODE_LEASE_NAMESPACE)
                if (item.get("spec") or {}).get("holderIdentity") == node]
        lease = held[0] if held else None
    assert lease is not None, f"there is no Lease in {constants.NODE_LEASE_NAMESPACE} named after or held by {node}"
    return lease


@then(step('the kubelet of node "{node}" holds its Lease declaring the lease duration'))
def lease_holder_and_duration(k32, node):
    """Document level: the node's Lease in kube-node-lease declares the lease duration and has been
    renewed; reference level: it is named after the node and the node holds it (as upstream)."""
    want = int(k32.profile.lease_duration)

    def check():
        lease = _lease(k32, node)
        spec = lease.get("spec") or {}
        assert spec.get("leaseDurationSeconds") == want, \
            f"leaseDurationSeconds is {spec.get('leaseDurationSeconds')!r}, the lease duration is {want}"
        assert spec.get("renewTime"), "the Lease has no renewTime"
        return lease
    lease = k32.eventually(check, f'the Lease of node "{node}"')
    with k32.reference():    # the time's format is upstream's MicroTime; the document names none
        renew = lease["spec"]["renewTime"]
        try:
            timefmt.parse(renew)
        except ValueError:
            raise AssertionError(f"renewTime {renew!r} is not an RFC 3339 time") from None
        got = (lease["metadata"].get("name"), (lease.get("spec") or {}).get("holderIdentity"))
        assert got == (node, node), f"the Lease's name and holderIdentity are {got}, not the node's name"


def observe_renewals(k32, node: str, gaps: int) -> list[float]:
    """Distinct renewTimes of the node's Lease, polled until ``gaps + 1`` were seen (or time ran out)."""
    interval = k32.profile.lease_renew_interval
    deadline = time.monotonic() + interval * (gaps + 2)
    seen: list[float] = []
    while len(seen) < gaps + 1 and time.monotonic() < deadline:
        renew = (_lease(k32, node).get("spec") or {}).get("renewTime")
        if renew:
            t = timefmt.parse(renew)
            if not seen or t != seen[-1]:
                seen.append(t)
        k32.timeline.advance(interval / 20)
    return seen


@then(step('the kubelet of node "{node}" renews its Lease every lease renew interval'))
def lease_cadence(k32, node):
    interval = k32.profile.lease_renew_interval
    seen = observe_renewals(k32, node, RENEWALS_OBSERVED)
    gaps = [b - a for a, b in zip(seen[1:], seen[2:], strict=False)]   # the first sighting may be mid-gap
    shown = ", ".join(f"{g:.3f}" for g in gaps)
    assert len(gaps) >= RENEWALS_OBSERVED - 1, (
        f"node {node} renewed its Lease {len(seen)} times in {interval * (RENEWALS_OBSERVED + 2):g} s; "
        f"every {interval:g} s means at least {RENEWALS_OBSERVED + 1} (gaps seen: {shown or 'none'})")
    mean = sum(gaps) / len(gaps)
    assert abs(mean - interval) <= CADENCE_TOLERANCE * interval, (
        f"node {node} renews its Lease every {mean:.3f} s on average, expected every {interval:g} s "
        f"(within {CADENCE_TOLERANCE:.0%}); gaps: {shown}")
    assert max(gaps) <= MAX_GAP_FACTOR * interval, \
        f"node {node} left {max(gaps):.3f} s between two renewals (interval {interval:g} s); gaps: {shown}"


# -- reported figures ---------------------------------------------------------------------------
def _allocatable(k32, node: str) -> dict[str, str]:
    return dict((k32.api.get("Node", node).get("status") or {}).get("allocatable") or {})


@given(step('the kubelet of node "{node}" has reported its free figures'))
def remember_figures(k32, node):
    figures = _allocatable(k32, node)
    assert figures, f"node {node} reports no allocatable figures"
    k32.notes.setdefault("kubelet-figures", {})[node] = figures


@then(step('the kubelet of node "{node}" reports, compared with before:'))
def figures_changed(k32, node, datatable):
    before = k32.notes.get("kubelet-figures", {}).get(node)
    assert before is not None, f'say first: the kubelet of node "{node}" has reported its free figures'
    wanted = []
    for row in rows(datatable):
        m = _CHANGE.match(row["change"])
        if not m:
            raise ValueError(f"change must be 'less', 'more', 'same' or '<quantity> less|more': {row['change']!r}")
        wanted.append((row["resource"], m.group("how"), m.group("amount")))

    def check():
        now = _allocatable(k32, node)
        for resource, how, amount in wanted:
            assert resource in before and resource in now, \
                f"{resource} is not reported (before: {before.get(resource)}, now: {now.get(resource)})"
            was, isnow = quantities.parse(before[resource]), quantities.parse(now[resource])
            if amount is not None:
                delta = quantities.parse(amount) * (1 if how == "less" else -1)
                assert was - isnow == delta, f"{resource} went from {before[resource]} to {now[resource]}, " \
                                             f"expected {amount} {how}"
            elif how == "less":
                assert isnow < was, f"{resource} went from {before[resource]} to {now[resource]}, expected less"
            elif how == "more":
                assert isnow > was, f"{resource} went from {before[resource]} to {now[resource]}, expected more"
            else:
                assert isnow == was, f"{resource} went from {before[resource]} to {now[resource]}, expected same"
    k32.eventually(check, f'the figures node "{node}" reports', timeout=_pod_window(k32))


# -- pods the kubelet runs or refuses --------------------------------------------------------------
def _pod_window(k32) -> float:
    """Real seconds a kubelet gets to act on a pod and report: a settle window plus two reports."""
    return k32.settle_window() + 2 * k32.profile.lease_renew_interval


def _pod(k32, name: str) -> dict:
    pod = k32.api.try_get("Pod", k32.name(name), k32.ns)
    assert pod is not None, f"pod {name} does not exist"
    return pod


@then(step('the kubelet of node "{node}" runs pod "{name}"'))
def kubelet_runs(k32, node, name):
    def check():
        pod = _pod(k32, name)
        status = pod.get("status") or {}
        assert (pod.get("spec") or {}).get("nodeName") == node, f"pod is bound to {pod['spec'].get('nodeName')!r}"
        assert status.get("phase") == "Running", \
            f"phase {status.get('phase')!r} ({status.get('reason', '')}: {status.get('message', '')})"
    k32.eventually(check, f'node "{node}" runs pod "{name}"', timeout=_pod_window(k32))


@then(step('the kubelet of node "{node}" refuses pod "{name}" naming "{claim}"'))
def kubelet_refuses(k32, node, name, claim):
    """Document level: the bound pod never runs (the firewall refuses it at admission); reference
    level: the refusal shows as upstream's kubelet admission rejections do (phase Failed, a reason,
    a message naming the claim)."""
    def not_running():
        pod = _pod(k32, name)
        status = pod.get("status") or {}
        assert (pod.get("spec") or {}).get("nodeName") == node, f"pod is bound to {pod['spec'].get('nodeName')!r}"
        running = [c["name"] for c in status.get("containerStatuses") or [] if "running" in (c.get("state") or {})]
        assert not running and status.get("phase") != "Running", \
            f"the pod runs (phase {status.get('phase')!r}, running containers {running})"
    k32.consistently(not_running, f'node "{node}" does not run pod "{name}"', window=_pod_window(k32))

    def shown():
        status = _pod(k32, name).get("status") or {}
        assert status.get("phase") == "Failed", f"phase is {status.get('phase')!r}, expected Failed"
        assert status.get("reason"), "the Failed pod carries no status.reason"
        assert claim in (status.get("message") or ""), \
            f"status.message {status.get('message')!r} does not name {claim}"
    with k32.reference():
        k32.eventually(shown, f'node "{node}" shows its refusal of pod "{name}"', timeout=_pod_window(k32))
