"""Node steps: registering nodes through fake kubelets, their reports and leases, node assertions."""

from __future__ import annotations

from pytest_bdd import given, then, when

from kube32.conformance.steps import _judges
from kube32.conformance.steps._util import labels, quantities_table, rows, step


@given("these Ready nodes:")
def ready_nodes(k32, datatable):
    """Columns: name, labels, and resource names (allocatable AND capacity), or "capacity <r>" /
    "allocatable <r>" for one side only."""
    for row in rows(datatable):
        name = row.pop("name")
        node_labels = labels(row.pop("labels", ""))
        capacity, allocatable = {}, {}
        for column, value in row.items():
            if not value:
                continue
            if column.startswith("capacity "):
                capacity[column[len("capacity "):]] = value
            elif column.startswith("allocatable "):
                allocatable[column[len("allocatable "):]] = value
            else:
                capacity[column] = allocatable[column] = value
        k32.add_kubelet(name).register(capacity=capacity, allocatable=allocatable, labels=node_labels)


@given(step('a node "{name}" that never reported status'))
def node_without_status(k32, name):
    k32.add_kubelet(name).register(capacity={}, allocatable={}, labels={}, with_status=False)


@given(step('node "{name}" is cordoned'))
def cordon(k32, name):
    k32.api.patch("Node", name, {"spec": {"unschedulable": True}})


@given(step('node "{name}" reports Ready "{status}"'))
def reports_ready(k32, name, status):
    kubelet = k32.kubelet(name)
    kubelet.ready = status
    kubelet.report_status()


@when(step('node "{name}" reports allocatable:'))
def reports_allocatable(k32, name, datatable):
    kubelet = k32.kubelet(name)
    kubelet.free.update(quantities_table(datatable))
    kubelet.report_status()


@when(step('node "{name}" gets label "{label}"'))
def gets_label(k32, name, label):
    k32.api.patch("Node", name, {"metadata": {"labels": labels(label)}})


@when(step('node "{name}" stops renewing its lease'))
def stops_renewing(k32, name):
    kubelet = k32.kubelet(name)
    kubelet.silence()
    k32.timeline.unpin()     # e.g. a restart's start: this node's count starts now, after it
    if kubelet.renewed_at is not None:
        k32.timeline.origin = kubelet.renewed_at     # timing verdicts count from the last renewal


@when(step('node "{name}" renews its lease again'))
def renews_again(k32, name):
    k32.kubelet(name).resume()


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


# -- assertions ---------------------------------------------------------------------------
def _condition(node: dict, ctype: str) -> dict | None:
    return next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def _taints(node: dict) -> list[str]:
    return [f"{t.get('key')}:{t.get('effect')}" for t in (node.get("spec") or {}).get("taints") or []]


@then(step('node "{name}" has condition "{ctype}" "{status}" with reason "{reason}"'))
def node_condition(k32, name, ctype, status, reason):
    def check():
        cond = _condition(k32.api.get("Node", name), ctype)
        assert cond is not None, f"node {name} has no {ctype} condition"
        assert (cond.get("status"), cond.get("reason")) == (status, reason), \
            f"{ctype} is {cond.get('status')!r} with reason {cond.get('reason')!r}"
    with k32.judging(_judges.CONDITION_REASONS.get(reason)):
        k32.eventually(check, f'node "{name}" condition {ctype}={status} ({reason})')


def _is_ready(k32, name: str) -> None:
    cond = _condition(k32.api.get("Node", name), "Ready")
    assert cond is not None and cond.get("status") == "True", f"Ready condition is {cond}"


@then(step('node "{name}" is Ready'))
def node_ready(k32, name):
    k32.eventually(lambda: _is_ready(k32, name), f'node "{name}" Ready')


@then(step('node "{name}" stays Ready'))
def node_stays_ready(k32, name):
    k32.consistently(lambda: _is_ready(k32, name), f'node "{name}" stays Ready')


@then(step('node "{name}" has taint "{taint}"'))
def has_taint(k32, name, taint):
    def check():
        taints = _taints(k32.api.get("Node", name))
        assert taint in taints, f"taints are {taints}"
    with k32.judging(_judges.TAINTS.get(taint)):
        k32.eventually(check, f'node "{name}" taint {taint}')


@then(step('node "{name}" has no taint "{taint}"'))
def has_no_taint(k32, name, taint):
    def check():
        taints = _taints(k32.api.get("Node", name))
        assert taint not in taints, f"taints are {taints}"
    k32.eventually(check, f'node "{name}" without taint {taint}')
