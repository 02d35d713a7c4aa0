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
