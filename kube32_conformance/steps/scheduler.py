"""Scheduler steps: only the phrases the common vocabulary does not have.

- the PodScheduled condition's message and the FailedScheduling event's identity, source and count;
- a kubelet status report that changes nothing (to end the "written after the last report" window);
- a taint write on a node (a Node write that is not a status report; the scheduler ignores taints).
Black-box: HTTP through ``k32.api`` and the fake kubelets only.
"""

from __future__ import annotations

from pytest_bdd import given, then, when

from kube32_conformance.steps._util import explain_missing, step


def get_pod(k32, name: str) -> dict:
    pod = k32.api.try_get("Pod", k32.name(name), k32.ns)
    assert pod is not None, explain_missing(k32, name, "pod")
    return pod


def events_about(k32, kind: str, name: str, reason: str) -> list[dict]:
    fields = f"involvedObject.name={name},involvedObject.kind={kind},reason={reason}"
    return k32.api.call("GET", f"/api/v1/namespaces/{k32.ns}/events",
                        params={"fieldSelector": fields}).get("items", [])


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


@when(step('the kubelet on node "{node}" reports node status'))
def kubelet_reports(k32, node):
    """A status write with the kubelet's current figures (it subtracts the pods it runs)."""
    k32.kubelet(node).report_status()


@given(step('node "{name}" gets taint "{taint}"'))
@when(step('node "{name}" gets taint "{taint}"'))
def gets_taint(k32, name, taint):
    """``key=value:Effect`` or ``key:Effect``, appended to spec.taints (a Node write)."""
    head, sep, effect = taint.rpartition(":")
    if not sep:
        raise ValueError(f"taints are written key[=value]:Effect; got {taint!r}")
    key, _, value = head.partition("=")
    node = k32.api.get("Node", name)
    taints = list((node.get("spec") or {}).get("taints") or [])
    entry = {"key": key, "effect": effect}
    if value:
        entry["value"] = value
    taints.append(entry)
    k32.api.patch("Node", name, {"spec": {"taints": taints}})


@given(step('the kubelet on node "{node}" reports its status without a Ready condition'))
def kubelet_reports_no_ready(k32, node):
    """A status write whose conditions list has no Ready entry (figures as usual)."""
    kubelet = k32.kubelet(node)

    def mutate(obj: dict) -> None:
        status = kubelet.node_status()
        status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
        obj["status"] = status
    kubelet._write("Node", node, None, mutate)


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


@when(step('I label pod "{name}" with "{label}"'))
def label_pod(k32, name, label):
    """A user's write to the pod (metadata only): it leaves the pod's status as it was."""
    key, sep, value = label.partition("=")
    if not sep:
        raise ValueError(f"labels are written key=value; got {label!r}")
    k32.api.patch("Pod", k32.name(name), {"metadata": {"labels": {key: value}}}, k32.ns)
