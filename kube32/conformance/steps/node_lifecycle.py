"""Node lifecycle steps: only the phrases the common vocabulary does not have.

- nodes whose Lease declares a given duration (or none);
- deadlines judged within the bounds the document gives, on any clock phase: "almost <duration>"
  stands just short of the deadline T (nothing may have happened yet), and the check interval
  that follows it, like "just over N seconds old", stands at T + one check interval (it must have
  happened) -- see ``kube32.conformance.timing``;
- time measured from the NoExecute taint's timeAdded (whole seconds, taken as written);
- assertions on timeAdded, on pod tolerations, on an evicted pod's status.

Black-box: HTTP through ``k32.api``, the fake kubelets and the timeline only.
"""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from kube32.conformance import timing
from kube32.conformance.errors import CapabilityMissing
from kube32.conformance.steps import _judges
from kube32.conformance.steps._util import needs, rows, step
from kube32.conformance.steps.common import NAMED_DURATIONS
from kube32.conformance.steps.events import KIND_WORDS, events_about, kept_beside
from kube32.conformance.steps.pods import get_pod
from kube32.spec import constants, timefmt

UNREACHABLE_NOEXECUTE = (constants.TAINT_UNREACHABLE, "NoExecute")
NOTES = "node_lifecycle.time_added"       # k32.notes key: node -> timeAdded first seen


# -- nodes and leases ---------------------------------------------------------------------
def _register(k32, name: str, lease_duration: float | None = None):
    kubelet = k32.add_kubelet(name, lease_duration=lease_duration)
    kubelet.register(capacity={"memory": "200Ki"}, allocatable={"memory": "200Ki"}, labels={})
    return kubelet


@given(step('a Ready node "{name}" whose lease declares {seconds:d} seconds'))
def node_with_lease_duration(k32, name, seconds):
    _register(k32, name, lease_duration=seconds)


@given(step('a Ready node "{name}" whose lease declares no duration'))
def node_without_lease_duration(k32, name):
    kubelet = _register(k32, name)

    def renew_without_duration():
        """The kubelet's renewal, minus spec.leaseDurationSeconds."""
        lease = kubelet.api.get("Lease", name, constants.NODE_LEASE_NAMESPACE)
        spec = dict(lease.get("spec") or {})
        spec.pop("leaseDurationSeconds", None)
        spec["renewTime"] = timefmt.rfc3339_micro(kubelet.clock.now())
        lease["spec"] = spec
        result = kubelet.api.update(lease)
        kubelet.renewed_at = kubelet.clock.now()
        kubelet.next_renew = kubelet.renewed_at + kubelet.profile.lease_renew_interval
        return result

    kubelet.renew = renew_without_duration
    renew_without_duration()
    lease = k32.api.get("Lease", name, constants.NODE_LEASE_NAMESPACE)
    assert "leaseDurationSeconds" not in (lease.get("spec") or {}), f"the Lease still declares one: {lease}"


@when(step('node "{name}" renews its lease for the last time'))
def renews_last_time(k32, name):
    """One renewal now, then silence (the board goes away right after it). Time steps after it
    count from the renewTime written."""
    kubelet = k32.kubelet(name)
    kubelet.resume()
    kubelet.silence()
    k32.timeline.pin(kubelet.renewed_at, origin=True, renewal=True)


# -- time in check intervals -----------------------------------------------------------------
def _interval(k32) -> float:
    return float(k32.profile.lifecycle_check_interval)


@when("half a check interval passes")
def half_interval_passes(k32):
    k32.timeline.advance(_interval(k32) / 2)


@when(parsers.re(r"(?P<count>\d+(?:\.\d+)?) check intervals? pass(?:es)?"))
def check_intervals_pass(k32, count):
    k32.timeline.advance(float(count) * _interval(k32))


def _almost(k32, seconds: float, what: str, chained: bool = False) -> None:
    """Just short of ``seconds`` from where the scenario stands: the deadline is not reached."""
    k32.timeline.just_before(k32.timeline.from_base(seconds), _interval(k32), what,
                             renewal=k32.timeline.from_renewal, chained=chained)


@when(parsers.re(r"almost (?P<seconds>\d+(?:\.\d+)?) seconds pass"))
def almost_seconds_pass(k32, seconds):
    _almost(k32, float(seconds), f"almost {seconds} s")


@when("the not-ready timeout passes")
def not_ready_timeout_passes(k32):
    """The threshold for a Lease that declares no duration (--not-ready-timeout)."""
    k32.timeline.advance(float(k32.profile.not_ready_timeout))


@when("almost the not-ready timeout passes")
def almost_not_ready_timeout_passes(k32):
    _almost(k32, float(k32.profile.not_ready_timeout), "almost the not-ready timeout")


@when(parsers.re(r"almost the (?P<name>[A-Za-z ]+?) passes"))
def almost_named_duration_passes(k32, name):
    """Just short of the named duration."""
    try:
        field = NAMED_DURATIONS[name]
    except KeyError:
        raise ValueError(f"unknown duration {name!r}; known: {', '.join(NAMED_DURATIONS)}") from None
    # at the NoExecute moment the taint comes, and an eviction it causes may come a check after it
    _almost(k32, float(getattr(k32.profile, field)), f"almost the {name}", chained=field == "noexecute_delay")


# -- the check interval, whatever the controller's phase ------------------------------------------
STAGGERED = "node_lifecycle.staggered"     # k32.notes key: [(node, renewTime written)]


@when(step('nodes "{names}" renew their leases for the last time, two thirds of a check interval apart'))
def staggered_last_renewals(k32, names):
    """Thresholds 2/3 of a check interval apart: a controller that checks only every other interval
    lets at least one of any three go past T + one check interval, whatever its phase (three points
    2/3 apart never fit in one closed arc of length 1 on a circle of 2)."""
    renewed = k32.notes.setdefault(STAGGERED, [])
    for i, name in enumerate(n.strip() for n in names.split(",")):
        if i:
            k32.timeline.advance(_interval(k32) * 2 / 3)
        kubelet = k32.kubelet(name)
        kubelet.resume()
        kubelet.silence()
        renewed.append((name, kubelet.renewed_at))
    k32.timeline.origin = renewed[0][1]


@then("each of them turns Ready Unknown within one check interval of its own threshold, not before")
def each_lapses_within_a_check(k32):
    """Visits, in time order, the moment just short of each node's threshold (still Ready) and the
    moment one check interval after it (Unknown)."""
    interval = _interval(k32)
    moments = []
    for name, renewed in k32.notes.get(STAGGERED, []):
        deadline = renewed + float(k32.kubelet(name).lease_duration)
        moments += [(deadline - timing.MANUAL_MARGIN, "before", name), (deadline + interval, "by", name)]
    assert moments, "no step made the nodes renew for the last time"
    for _, kind, name in sorted(moments):
        renewed = next(r for n, r in k32.notes[STAGGERED] if n == name)
        deadline = renewed + float(k32.kubelet(name).lease_duration)
        if kind == "before":
            k32.timeline.just_before(deadline, interval, f'node "{name}" lease almost run out', renewal=True)
            k32.consistently(lambda name=name: _ready_status(k32, name, "True"), f'node "{name}" still Ready')
        else:
            k32.timeline.by(deadline, interval, f'node "{name}" lease run out', renewal=True)
            k32.eventually(lambda name=name: _ready_status(k32, name, "Unknown"), f'node "{name}" Ready Unknown')


def _ready_status(k32, name: str, status: str) -> None:
    conditions = (k32.api.get("Node", name).get("status") or {}).get("conditions") or []
    got = next((c.get("status") for c in conditions if c.get("type") == "Ready"), None)
    assert got == status, f"node {name} Ready is {got!r}"


# -- tolerations -------------------------------------------------------------------------------
def matches(toleration: dict, taint: dict) -> bool:
    """Whether a toleration matches a taint (upstream ToleratesTaint, the reading eviction uses):
    effect empty or equal; key empty or equal; operator Exists, or Equal with the same value."""
    if (toleration.get("effect") or "") not in ("", taint.get("effect")):
        return False
    if (toleration.get("key") or "") not in ("", taint.get("key")):
        return False
    return (toleration.get("operator") or "Equal") == "Exists" or \
        (toleration.get("value") or "") == (taint.get("value") or "")


@when(step('pod "{name}" has no toleration matching "{taint}"'))
def pod_without_matching_toleration(k32, name, taint):
    """A precondition, not a judgement: whether admission already counts the pod's own tolerations
    as tolerating a default taint (upstream: key and effect) or not (key and value as well) is a
    reading of "already tolerates" the document leaves open; a target of the other reading gives
    the pod a default toleration, and then this scenario cannot show a pod without one."""
    key, _, effect = taint.partition(":")
    wanted = {"key": key, "effect": effect, "value": ""}
    tolerations = (get_pod(k32, name).get("spec") or {}).get("tolerations") or []
    matching = [t for t in tolerations if matches(t, wanted)]
    if matching:
        raise CapabilityMissing(f'the target admitted pod "{name}" with a toleration matching {taint} '
                                f"({matching}): it reads \"already tolerates\" another way, so this scenario "
                                "cannot show a pod without one")


# -- the NoExecute taint's age -----------------------------------------------------------------
def _noexecute_taint(k32, node: str) -> dict:
    taints = (k32.api.get("Node", node).get("spec") or {}).get("taints") or []
    for taint in taints:
        if (taint.get("key"), taint.get("effect")) == UNREACHABLE_NOEXECUTE:
            return taint
    raise AssertionError(f"node {node} has no {':'.join(UNREACHABLE_NOEXECUTE)} taint (taints: {taints})")


def _time_added(k32, node: str) -> float:
    """The NoExecute taint's timeAdded as this scenario first saw it (so a target that rewrites it,
    e.g. on a restart, cannot move the scenario's deadlines along with it)."""
    noted = k32.notes.setdefault(NOTES, {})
    if node not in noted:
        # a real-clock target may write it up to a check interval (and its latency) after the step that
        # let its moment pass: the scenario's other steps judge when it came; this one waits for it,
        # and for the latency measured (its moment counts from a renewal that took that long to arrive)
        wait = None if k32.manual else k32.settle_window() + _interval(k32) + k32.timeline.latency.allowance()
        taint = k32.eventually(lambda: _noexecute_taint(k32, node), f"the NoExecute taint on node {node}", wait)
        text = taint.get("timeAdded")
        assert text, f"the NoExecute taint on node {node} has no timeAdded: {taint}"
        noted[node] = text
    return timefmt.parse(noted[node])


def _advance_to(k32, at: float, what: str) -> None:
    now = k32.timeline.now()
    if at < now - 1e-6 and k32.manual:
        raise AssertionError(f"{what} was {now - at:.3f} s ago already; the scenario cannot go back")
    k32.timeline.advance_to(at)


def _before(k32, at: float, what: str) -> None:
    k32.timeline.just_before(at, _interval(k32), what)


def _by(k32, at: float, what: str) -> None:
    k32.timeline.by(at, _interval(k32), what)


@when(step('the NoExecute taint on node "{node}" is {seconds:g} seconds old'))
def taint_old(k32, node, seconds):
    """timeAdded + seconds."""
    _advance_to(k32, _time_added(k32, node) + float(seconds), f"{seconds} s after the NoExecute taint")


@when(step('the NoExecute taint on node "{node}" is almost {seconds:g} seconds old'))
def taint_almost_old(k32, node, seconds):
    """Just short of timeAdded + seconds."""
    _before(k32, _time_added(k32, node) + float(seconds), f"NoExecute taint almost {seconds:g} s old")


@when(step('the NoExecute taint on node "{node}" is just over {seconds:g} seconds old'))
def taint_just_over(k32, node, seconds):
    """timeAdded + seconds + one check interval: the latest moment the document allows."""
    _by(k32, _time_added(k32, node) + float(seconds), f"NoExecute taint just over {seconds:g} s old")


@when(step('the NoExecute taint on node "{node}" appears'))
def taint_appears(k32, node):
    """Stand at the first look (every tenth of a check interval) that sees the NoExecute taint, at
    most one check interval past its moment (the Lease's duration + the NoExecute delay after the
    last renewal): a short toleration then still has its time ahead (timeAdded is written in whole
    seconds, so it may lie up to a second before the taint came). The moment itself is judged by
    NODE-NOEXECUTE-AFTER-DELAY's own scenarios; here a taint that never comes fails."""
    interval = _interval(k32)
    kubelet = k32.kubelet(node)
    latest = kubelet.renewed_at + float(kubelet.lease_duration) + float(k32.profile.noexecute_delay) + interval
    if not k32.manual:
        k32.timeline.advance_to(max(k32.timeline.now(), latest - interval))
        _time_added(k32, node)
        return
    while True:
        try:
            _noexecute_taint(k32, node)
            break
        except AssertionError:
            if k32.timeline.now() >= latest - 1e-9:
                raise
        k32.timeline.advance_to(min(latest, k32.timeline.now() + interval / 10))
    _time_added(k32, node)


@then(step('the NoExecute taint on node "{node}" was added within the last check interval'))
def taint_added_recently(k32, node):
    """timeAdded (metav1.Time: whole seconds, so up to 1 s earlier) lies in the last interval."""
    def check():
        added = _time_added(k32, node)
        now = k32.timeline.now()
        earliest = now - _interval(k32) - 1.0
        assert earliest <= added <= now, (
            f"timeAdded {timefmt.rfc3339(added)} is not within [{timefmt.rfc3339_micro(earliest)}, "
            f"{timefmt.rfc3339_micro(now)}]")
    k32.eventually(check, f'timeAdded of the NoExecute taint on node "{node}"')


@then(step('the NoExecute taint on node "{node}" was added {seconds:g} seconds after its last renewal'))
def taint_added_after_renewal(k32, node, seconds):
    """timeAdded lies within one check interval after the kubelet's last renewTime + ``seconds``
    (whole seconds: up to 1 s earlier; on a real clock the controller may count from the check that
    saw the renewal, one interval more, and the measured latency)."""
    renewed = k32.kubelet(node).renewed_at
    slack = 0.0 if k32.manual else _interval(k32) + k32.timeline.latency.allowance()

    def check():
        text = _noexecute_taint(k32, node).get("timeAdded")
        assert text, f"the NoExecute taint on node {node} has no timeAdded"
        added = timefmt.parse(text)
        earliest, latest = renewed + seconds - 1.0, renewed + seconds + _interval(k32) + slack
        assert earliest <= added <= latest, (
            f"timeAdded {timefmt.rfc3339(added)} is not within [{timefmt.rfc3339_micro(earliest)}, "
            f"{timefmt.rfc3339_micro(latest)}]")
    k32.eventually(check, f'timeAdded of the NoExecute taint on node "{node}"')


@then(step('the NoExecute taint on node "{node}" still has the timeAdded it had before'))
def taint_kept_time_added(k32, node):
    before = k32.notes.get(NOTES, {}).get(node)
    assert before, f"no earlier step read the NoExecute taint on node {node}"

    def check():
        now_text = _noexecute_taint(k32, node).get("timeAdded")
        assert now_text == before, f"timeAdded is {now_text!r}, it was {before!r}"
    k32.eventually(check, f'unchanged timeAdded on node "{node}"')


# -- pods ---------------------------------------------------------------------------------------
def _toleration_row(t: dict) -> dict[str, str]:
    seconds = t.get("tolerationSeconds")
    return {"key": t.get("key") or "", "operator": t.get("operator") or "", "effect": t.get("effect") or "",
            "tolerationSeconds": "" if seconds is None else str(seconds)}


@then(step('pod "{name}" has exactly these tolerations:'))
def pod_tolerations(k32, name, datatable):
    """Table | key | operator | effect | tolerationSeconds |; "default" in the tolerationSeconds
    column means the target's default toleration (--eviction-timeout). The same tolerations at
    document level; in this order (upstream appends not-ready, then unreachable) at reference level."""
    default = str(int(k32.profile.default_toleration_seconds))
    expected = [{**row, "tolerationSeconds": default if row.get("tolerationSeconds") == "default"
                 else row.get("tolerationSeconds", "")} for row in rows(datatable)]

    def check():
        got = [_toleration_row(t) for t in (get_pod(k32, name).get("spec") or {}).get("tolerations") or []]
        assert sorted(got, key=str) == sorted(expected, key=str), f"tolerations are {got}"
        return got
    got = k32.eventually(check, f'tolerations of pod "{name}"')
    with k32.reference():
        assert got == expected, f"tolerations are {got}, in another order than {expected}"


@then(step('pod "{name}" has status reason "{reason}"'))
def pod_status_reason(k32, name, reason):
    def check():
        got = (get_pod(k32, name).get("status") or {}).get("reason")
        assert got == reason, f"status.reason is {got!r}"
    k32.eventually(check, f'pod "{name}" status reason {reason}')


@then(step('pod "{name}" is terminating'))
def pod_terminating(k32, name):
    def check():
        meta = get_pod(k32, name)["metadata"]
        assert meta.get("deletionTimestamp"), "it has no deletionTimestamp"
    k32.consistently(check, f'pod "{name}" terminating')


@then(step('pod "{name}" still runs on node "{node}"'))
def pod_still_runs(k32, name, node):
    """Bound to the node with phase Running, and it keeps that over the hold window."""
    def check():
        pod = get_pod(k32, name)
        got = ((pod.get("spec") or {}).get("nodeName"), (pod.get("status") or {}).get("phase"))
        assert got == (node, "Running"), f"nodeName and phase are {got}"
    k32.consistently(check, f'pod "{name}" still running on "{node}"')


@then(step('pod "{name}" still has phase "{phase}" on node "{node}"'))
def pod_still_phase(k32, name, phase, node):
    def check():
        pod = get_pod(k32, name)
        got = ((pod.get("spec") or {}).get("nodeName"), (pod.get("status") or {}).get("phase"))
        assert got == (node, phase), f"nodeName and phase are {got}"
    k32.consistently(check, f'pod "{name}" {phase} on "{node}"')


@then(step('pod "{name}" has condition "{ctype}" set to "{status}"'))
def pod_condition_status(k32, name, ctype, status):
    def check():
        conditions = (get_pod(k32, name).get("status") or {}).get("conditions") or []
        cond = next((c for c in conditions if c.get("type") == ctype), None)
        assert cond is not None, f"the pod has no {ctype} condition (conditions: {conditions})"
        assert cond.get("status") == status, f"{ctype} is {cond.get('status')!r}"
    k32.eventually(check, f'pod "{name}" condition {ctype}={status}')


@then(step('pod "{name}" is marked evicted whenever it is seen unbound'))
def marked_evicted_with_unbinding(k32, name):
    """Our reading (reference level): the pass that unbinds the pod also writes its Pending phase,
    reason Evicted and DisruptionTarget condition, so a pod seen without its node is already marked.
    The document lets a status lag its pass: the scenario judges them at document level a check later."""
    def check():
        pod = get_pod(k32, name)
        if (pod.get("spec") or {}).get("nodeName"):
            return
        status = pod.get("status") or {}
        conditions = [c.get("type") for c in status.get("conditions") or []]
        got = (status.get("phase"), status.get("reason"), "DisruptionTarget" in conditions)
        assert got == ("Pending", "Evicted", True), \
            f"unbound, its phase, reason and DisruptionTarget are {got} (conditions: {conditions})"
    with k32.reference(_judges.CONDITION_REASONS["DisruptionTarget"]):
        k32.consistently(check, f'pod "{name}" marked evicted in the pass that unbound it')


@then(step('pod "{name}" has an event "{reason}"'))
def pod_has_event(k32, name, reason):
    def check():
        events = events_about(k32, "Pod", k32.name(name), reason)
        assert events, f"there is no {reason} event about pod {name}"
        return events
    events = None
    with k32.judging(_judges.EVENTS.get(reason)):
        events = k32.eventually(check, f'{reason} event about pod "{name}"')
    if events:
        kept_beside(k32, events, reason)


@then(step('pod "{name}" has no IP address'))
def pod_without_ip(k32, name):
    def check():
        status = get_pod(k32, name).get("status") or {}
        got = {k: status[k] for k in ("podIP", "podIPs", "hostIP") if status.get(k)}
        assert not got, f"it still has {got}"
    k32.eventually(check, f'pod "{name}" without addresses')


# -- node conditions and events ---------------------------------------------------------------
@then(step('node "{name}" has a Ready condition "{status}" saying "{message}" since the last check interval'))
def node_ready_since(k32, name, status, message):
    """status and message exactly; lastTransitionTime (whole seconds) within the last check interval."""
    def check():
        conditions = (k32.api.get("Node", name).get("status") or {}).get("conditions") or []
        cond = next((c for c in conditions if c.get("type") == "Ready"), None)
        assert cond is not None, f"node {name} has no Ready condition"
        assert (cond.get("status"), cond.get("message")) == (status, message), \
            f"Ready is {cond.get('status')!r} saying {cond.get('message')!r}"
        changed = cond.get("lastTransitionTime")
        assert changed, "the Ready condition has no lastTransitionTime"
        now = k32.timeline.now()
        earliest = now - _interval(k32) - 1.0
        assert earliest <= timefmt.parse(changed) <= now, (
            f"lastTransitionTime {changed} is not within [{timefmt.rfc3339_micro(earliest)}, "
            f"{timefmt.rfc3339_micro(now)}]")
    k32.eventually(check, f'Ready condition of node "{name}"')


@then(step('the "{reason}" event about node "{name}" comes from "{component}"'))
def node_event_source(k32, reason, name, component):
    def check():
        events = events_about(k32, "Node", name, reason)
        assert events, f"there is no {reason} event about node {name}"
        for event in events:
            source = (event.get("source") or {}).get("component")
            assert component in (source, event.get("reportingComponent")), \
                f"source.component is {source!r}, reportingComponent {event.get('reportingComponent')!r}"
    k32.eventually(check, f'{reason} event source for node "{name}"')


@then(parsers.re(r'the "(?P<reason>\w+)" event about (?P<word>pod|node) "(?P<name>[^"]+)" came within '
                 r'the check interval'))
def event_came_in_time(k32, reason, word, name):
    """Our reading (reference level): the event is recorded by the pass that made the change, so it
    is there one check interval after the change was due. The document gives events no deadline of
    their own: the scenario judges that the event exists at document level later on."""
    kind = KIND_WORDS[word]

    def check():
        assert events_about(k32, kind, k32.name(name) if kind == "Pod" else name, reason), \
            f"there is no {reason} event about {word} {name} yet"
    with k32.reference(_judges.EVENTS.get(reason)):
        k32.eventually(check, f'{reason} event about {word} "{name}" within the check interval')


@then(step('node "{name}" has exactly one "{reason}" event counted once'))
def node_event_once(k32, name, reason):
    def check():
        events = events_about(k32, "Node", name, reason)
        counts = [e.get("count", 1) for e in events]
        assert counts == [1], f"{reason} events about node {name} have counts {counts}"
    k32.consistently(check, f'one {reason} event about node "{name}"')


# -- a DaemonSet whose template limits its unreachable toleration --------------------------------
@given(step('a DaemonSet "{name}" whose pods tolerate "{taint}" for {seconds:d} seconds'))
def daemonset_with_limited_toleration(k32, name, taint, seconds):
    """A DaemonSet (the workload steps' manifest) whose pod template carries one toleration of
    ``key:effect`` with tolerationSeconds, so only the DaemonSet exemption can keep its pods."""
    from kube32.conformance.steps._util import remember_create
    from kube32.conformance.steps.workloads import daemonset_manifest

    key, _, effect = taint.partition(":")
    manifest = daemonset_manifest(k32, name)
    manifest["spec"]["template"]["spec"]["tolerations"] = [
        {"key": key, "operator": "Exists", "effect": effect, "tolerationSeconds": seconds}]
    answer = remember_create(k32, name, manifest)
    assert isinstance(answer, dict), f"the DaemonSet was not created: {answer}"


# -- the simulator's timeout flags ----------------------------------------------------------------
@given(parsers.re(r"the control plane runs with --not-ready-timeout (?P<not_ready>\d+(?:\.\d+)?) "
                  r"and --eviction-timeout (?P<eviction>\d+(?:\.\d+)?)"))
@needs("restart")
def runs_with_timeouts(k32, not_ready, eviction):
    """Restart the control plane on its data with these simulator flags (targets that can:
    ``restart_with_flags``; others report the scenario disabled)."""
    k32.require("restart")
    restart = getattr(k32.target, "restart_with_flags", None)
    if restart is None:
        raise CapabilityMissing(f"target {k32.target.name} cannot restart with other simulator timeouts")
    restart({"--not-ready-timeout": float(not_ready), "--eviction-timeout": float(eviction)})


# -- real-time friendly phrasing: profile durations only, polling checks ---------------------------
@when(step('the NoExecute taint on node "{node}" is almost as old as the default toleration'))
def taint_almost_default(k32, node):
    """Just short of timeAdded + the default toleration."""
    _before(k32, _time_added(k32, node) + float(k32.profile.default_toleration_seconds),
            "NoExecute taint almost as old as the default toleration")


@when(step('the NoExecute taint on node "{node}" is older than the default toleration'))
def taint_older_than_default(k32, node):
    """timeAdded + the default toleration + one check interval."""
    _by(k32, _time_added(k32, node) + float(k32.profile.default_toleration_seconds),
        "NoExecute taint older than the default toleration")


@then(step('pod "{name}" is evicted from node "{node}"'))
def pod_evicted_from(k32, name, node):
    """Eventually: no longer on the node (it may be bound again elsewhere already); that it is marked
    DisruptionTarget in the same pass is our reading (a status may lag its pass): reference level."""
    def check():
        got = (get_pod(k32, name).get("spec") or {}).get("nodeName")
        assert got != node, f"it is still bound to {node}"
    k32.eventually(check, f'pod "{name}" evicted from "{node}"')

    def marked():
        conditions = (get_pod(k32, name).get("status") or {}).get("conditions") or []
        assert any(c.get("type") == "DisruptionTarget" and c.get("status") == "True" for c in conditions), \
            f"it has no DisruptionTarget condition (conditions: {conditions})"
    with k32.reference(_judges.CONDITION_REASONS["DisruptionTarget"]):
        k32.eventually(marked, f'pod "{name}" evicted from "{node}" marked DisruptionTarget')
