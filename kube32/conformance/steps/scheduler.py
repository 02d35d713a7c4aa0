"""Scheduler steps: only the phrases the common vocabulary does not have.

- the PodScheduled condition's message and the FailedScheduling event's identity, source and count;
(Node writes — taints, status reports — and pod label writes live in the common node and pod steps.)
Black-box: HTTP through ``k32.api`` and the fake kubelets only.
"""

from __future__ import annotations

from pytest_bdd import then

from kube32.conformance.steps._util import needs, step
from kube32.conformance.steps.events import events_about
from kube32.conformance.steps.pods import get_pod


def _scheduled_condition(pod: dict) -> dict | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or []
                 if c.get("type") == "PodScheduled"), None)


@then(step('the PodScheduled condition of pod "{name}" says:'))
@needs("exclusive-nodes")   # the scheduler weighs every node: another scenario's would count
def scheduled_condition_says(k32, name, docstring):
    """The document names the condition's status and reason, not its message: the condition exists
    at document level; its message (upstream's copy of the FailedScheduling one) at reference level."""
    expected = docstring.strip()

    def check():
        cond = _scheduled_condition(get_pod(k32, name))
        assert cond is not None, "the pod has no PodScheduled condition"
        return cond.get("message")
    got = k32.eventually(check, f'PodScheduled condition of pod "{name}"')
    with k32.reference():
        assert got == expected, f"the PodScheduled message is {got!r}, expected {expected!r}"


@then(step('the FailedScheduling event about pod "{name}" names the pod and comes from "{component}"'))
@needs("exclusive-nodes")
def failed_scheduling_identity(k32, name, component):
    def check():
        pod = get_pod(k32, name)
        events = events_about(k32, "Pod", k32.name(name), "FailedScheduling")
        assert events, "there is no FailedScheduling event about the pod"
        meta = pod["metadata"]
        want = {"kind": "Pod", "name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"]}
        for event in events:
            involved = event.get("involvedObject") or {}
            got = {key: involved.get(key) for key in want}
            assert got == want, f"involvedObject is {got}, expected {want}"
            assert event.get("type") == "Warning", f"type is {event.get('type')!r}"
        return events
    events = k32.eventually(check, f'FailedScheduling event about pod "{name}"')
    with k32.reference():   # the component's name is upstream's; the document does not give it
        for event in events:
            source = (event.get("source") or {}).get("component")
            reporting = event.get("reportingComponent")
            assert component in (source, reporting), \
                f"source.component is {source!r} and reportingComponent {reporting!r}"


@then(step('pod "{name}" has one FailedScheduling event counted at least {times:d} times'))
@needs("exclusive-nodes")
def failed_scheduling_counted(k32, name, times):
    def check():
        events = events_about(k32, "Pod", k32.name(name), "FailedScheduling")
        counts = [e.get("count", 1) for e in events]
        assert len(events) == 1, f"there are {len(events)} FailedScheduling events (counts {counts})"
        assert counts[0] >= times, f"its count is {counts[0]}"
    k32.eventually(check, f'one FailedScheduling event about pod "{name}"')


@then(step('the PodScheduled condition of pod "{name}" is True'))
def scheduled_condition_true(k32, name):
    def check():
        cond = _scheduled_condition(get_pod(k32, name))
        assert cond is not None, "the pod has no PodScheduled condition"
        assert cond.get("status") == "True", f"PodScheduled is {cond.get('status')!r} ({cond.get('reason')!r})"
    k32.eventually(check, f'PodScheduled True on pod "{name}"')


# -- the document's kubectl example: the server-side tables kubectl prints ------------------
TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io"


def _table(k32, path: str, params: dict | None = None) -> list[dict[str, str]]:
    """GET ``path`` as a meta.k8s.io Table; rows as {column name (upper case): cell text}."""
    resp = k32.api.request("GET", path, params=params or {}, headers={"Accept": TABLE_ACCEPT})
    assert resp.status_code == 200, f"GET {path} as a Table answered {resp.status_code}: {resp.text[:300]}"
    body = resp.json()
    assert body.get("kind") == "Table", f"GET {path} with Accept {TABLE_ACCEPT} answered kind {body.get('kind')!r}"
    names = [c.get("name", "").upper() for c in body.get("columnDefinitions") or []]
    return [{n: str(cell) for n, cell in zip(names, row.get("cells") or [], strict=False)}
            for row in body.get("rows") or []]


def _pod_row(pod: dict) -> dict[str, str]:
    """READY, STATUS and RESTARTS as kubectl derives them from a plain pod (printPod, simplified to
    what a kube32 pod can show)."""
    status = pod.get("status") or {}
    statuses = status.get("containerStatuses") or []
    shown = status.get("reason") or status.get("phase") or ""
    for cs in statuses:
        state = cs.get("state") or {}
        shown = (state.get("waiting") or state.get("terminated") or {}).get("reason") or shown
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        shown = "Terminating"
    ready = sum(1 for cs in statuses if cs.get("ready"))
    return {"READY": f"{ready}/{len((pod.get('spec') or {}).get('containers') or [])}", "STATUS": shown,
            "RESTARTS": str(sum(int(cs.get("restartCount") or 0) for cs in statuses))}


def _event_row(event: dict) -> dict[str, str]:
    involved = event.get("involvedObject") or {}
    return {"TYPE": event.get("type") or "", "REASON": event.get("reason") or "",
            "OBJECT": f"{(involved.get('kind') or '').lower()}/{involved.get('name')}",
            "MESSAGE": event.get("message") or ""}


@then(step('pod "{name}" is listed with READY "{ready}", STATUS "{status}" and RESTARTS "{restarts}"'))
def pod_listed(k32, name, ready, status, restarts):
    """Document level: the row kubectl derives from the pod; reference level: the server-side
    meta.k8s.io Table (the document never names that wire format)."""
    want = {"READY": ready, "STATUS": status, "RESTARTS": restarts}

    def check():
        got = _pod_row(get_pod(k32, name))
        assert got == want, f"the pod's fields give the row {got}"
    k32.eventually(check, f'pod "{name}" listed as {want}')

    def table():
        rows = _table(k32, f"/api/v1/namespaces/{k32.ns}/pods/{k32.name(name)}")
        assert len(rows) == 1, f"the table has {len(rows)} rows"
        got = {key: rows[0].get(key) for key in want}
        assert got == want, f"the Table row shows {got}"
    with k32.reference():
        k32.eventually(table, f'pod "{name}" in a server-side Table as {want}')


@then(step('the events listed by involvedObject.name "{name}" include the row:'))
def events_listed(k32, name, datatable):
    """Only events about that object are listed, and one row has the table's TYPE, REASON, OBJECT
    and MESSAGE (header names in the first table row, upper case as kubectl prints them): at document
    level as derived from the listed events, at reference level in a server-side meta.k8s.io Table."""
    header, *cells = datatable
    wanted = [{h.strip().upper(): c.strip() for h, c in zip(header, row, strict=True)} for row in cells]
    path = f"/api/v1/namespaces/{k32.ns}/events"
    params = {"fieldSelector": f"involvedObject.name={k32.name(name)}"}

    def includes(rows: list[dict[str, str]]) -> None:
        for want in wanted:
            shown = [{key: row.get(key) for key in want} for row in rows]
            assert want in shown, f"no row {want}; rows show {shown}"

    def check():
        items = k32.api.call("GET", path, params=params).get("items", [])
        others = [e["metadata"]["name"] for e in items if (e.get("involvedObject") or {}).get("name") != k32.name(name)]
        assert not others, f"the field selector also returned events of other objects: {others}"
        includes([_event_row(e) for e in items])
    k32.eventually(check, f'events listed by involvedObject.name "{name}"')
    with k32.reference():
        k32.eventually(lambda: includes(_table(k32, path, params)),
                       f'events by involvedObject.name "{name}" in a server-side Table')


@then(step('pod "{name}" was never found unschedulable'))
def never_unschedulable(k32, name):
    """Document level: no PodScheduled False (the scheduler never judged the pod); reference level:
    no PodScheduled condition at all (upstream's kubelet marks the pods it runs PodScheduled True)."""
    def check():
        cond = _scheduled_condition(get_pod(k32, name))
        assert cond is None or cond.get("status") != "False", f"PodScheduled is {cond}"
        return cond
    cond = k32.consistently(check, f'pod "{name}" never found unschedulable')
    with k32.reference():
        assert cond is None, f"the pod has a PodScheduled condition: {cond}"
