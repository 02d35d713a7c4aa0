"""Scheduler steps: only the phrases the common vocabulary does not have.

- the PodScheduled condition's message and the FailedScheduling event's identity, source and count;
(Node writes — taints, status reports — and pod label writes live in the common node and pod steps.)
Black-box: HTTP through ``k32.api`` and the fake kubelets only.
"""

from __future__ import annotations

from pytest_bdd import then

from kube32.conformance.steps._util import step
from kube32.conformance.steps.events import events_about
from kube32.conformance.steps.pods import get_pod


def _scheduled_condition(pod: dict) -> dict | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or []
                 if c.get("type") == "PodScheduled"), None)


@then(step('the PodScheduled condition of pod "{name}" says:'))
def scheduled_condition_says(k32, name, docstring):
    expected = docstring.strip()

    def check():
        cond = _scheduled_condition(get_pod(k32, name))
        assert cond is not None, "the pod has no PodScheduled condition"
        assert cond.get("message") == expected, f"its message is {cond.get('message')!r}"
    k32.eventually(check, f'PodScheduled message of pod "{name}"')


@then(step('the FailedScheduling event about pod "{name}" names the pod and comes from "{component}"'))
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
            source = (event.get("source") or {}).get("component")
            reporting = event.get("reportingComponent")
            assert component in (source, reporting), \
                f"source.component is {source!r} and reportingComponent {reporting!r}"
    k32.eventually(check, f'FailedScheduling event about pod "{name}"')


@then(step('pod "{name}" has one FailedScheduling event counted at least {times:d} times'))
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


@then(step('pod "{name}" is listed with READY "{ready}", STATUS "{status}" and RESTARTS "{restarts}"'))
def pod_listed(k32, name, ready, status, restarts):
    want = {"READY": ready, "STATUS": status, "RESTARTS": restarts}

    def check():
        rows = _table(k32, f"/api/v1/namespaces/{k32.ns}/pods/{k32.name(name)}")
        assert len(rows) == 1, f"the table has {len(rows)} rows"
        got = {key: rows[0].get(key) for key in want}
        assert got == want, f"the row shows {got}"
    k32.eventually(check, f'pod "{name}" listed as {want}')


@then(step('the events listed by involvedObject.name "{name}" include the row:'))
def events_listed(k32, name, datatable):
    """Only events about that object are listed, and one row has the table's TYPE, REASON, OBJECT
    and MESSAGE (header names in the first table row, upper case as kubectl prints them)."""
    header, *cells = datatable
    wanted = [{h.strip().upper(): c.strip() for h, c in zip(header, row, strict=True)} for row in cells]
    path = f"/api/v1/namespaces/{k32.ns}/events"
    params = {"fieldSelector": f"involvedObject.name={k32.name(name)}"}

    def check():
        items = k32.api.call("GET", path, params=params).get("items", [])
        others = [e["metadata"]["name"] for e in items if (e.get("involvedObject") or {}).get("name") != k32.name(name)]
        assert not others, f"the field selector also returned events of other objects: {others}"
        rows = _table(k32, path, params)
        for want in wanted:
            shown = [{key: row.get(key) for key in want} for row in rows]
            assert want in shown, f"no row {want}; rows show {shown}"
    k32.eventually(check, f'events listed by involvedObject.name "{name}"')
