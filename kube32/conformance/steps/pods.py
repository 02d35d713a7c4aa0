"""Pod steps: creating pods, what their kubelet reports about them, and pod assertions."""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from kube32.conformance.errors import ApiStatusError
from kube32.conformance.steps._util import (
    explain_missing,
    manifest,
    pod_manifest,
    quantities_table,
    remember_create,
    step,
)


def get_pod(k32, name: str) -> dict:
    pod = k32.api.try_get("Pod", k32.name(name), k32.ns)
    assert pod is not None, explain_missing(k32, name, "pod")
    return pod


# -- creating pods ------------------------------------------------------------------------
@when(step('I create a pod "{name}" requesting:'))
def create_requesting(k32, name, datatable):
    remember_create(k32, name, pod_manifest(k32.name(name), k32.ns, requests=quantities_table(datatable)))


@when(step('I create a pod "{name}" limited to:'))
def create_limited(k32, name, datatable):
    remember_create(k32, name, pod_manifest(k32.name(name), k32.ns, limits=quantities_table(datatable)))


@when(step('I create a pod "{name}" with:'))
def create_with(k32, name, docstring):
    remember_create(k32, name, manifest(docstring, "Pod", k32.name(name), k32.ns))


@when(step('I create a pod "{name}" on node "{node}" requesting:'))
def create_on_node(k32, name, node, datatable):
    remember_create(k32, name, pod_manifest(k32.name(name), k32.ns, requests=quantities_table(datatable),
                                            node=node))


def _running(k32, name: str, node: str, requests: dict | None) -> None:
    answer = remember_create(k32, name, pod_manifest(k32.name(name), k32.ns, requests=requests, node=node))
    if isinstance(answer, ApiStatusError):
        raise answer
    k32.kubelet(node).start_pod(k32.name(name), k32.ns, known=answer)


@given(step('pod "{name}" is running on node "{node}"'))
def running_on(k32, name, node):
    _running(k32, name, node, None)


@given(step('pod "{name}" is running on node "{node}" requesting:'))
def running_on_requesting(k32, name, node, datatable):
    _running(k32, name, node, quantities_table(datatable))


# -- what the kubelet reports ---------------------------------------------------------------
@when(step('the kubelet on node "{node}" starts pod "{name}"'))
def kubelet_starts(k32, node, name):
    k32.kubelet(node).start_pod(k32.name(name), k32.ns)


@when(step('pod "{name}" becomes not ready'))
def becomes_not_ready(k32, name):
    pod = get_pod(k32, name)
    k32.kubelet_of(pod).set_pod_ready(k32.name(name), k32.ns, False, known=pod)


@when(step('pod "{name}" becomes ready'))
def becomes_ready(k32, name):
    pod = get_pod(k32, name)
    k32.kubelet_of(pod).set_pod_ready(k32.name(name), k32.ns, True, known=pod)


@when(step('pod "{name}" succeeds'))
def succeeds(k32, name):
    pod = get_pod(k32, name)
    k32.kubelet_of(pod).finish_pod(k32.name(name), k32.ns, succeeded=True, known=pod)


@when(step('pod "{name}" fails'))
def fails(k32, name):
    pod = get_pod(k32, name)
    k32.kubelet_of(pod).finish_pod(k32.name(name), k32.ns, succeeded=False, known=pod)


@when(step('the container of pod "{name}" restarts'))
def container_restarts(k32, name):
    pod = get_pod(k32, name)
    k32.kubelet_of(pod).restart_container(k32.name(name), k32.ns, known=pod)


@when(step('I delete pod "{name}"'))
def delete_pod(k32, name):
    k32.responses[name] = k32.api.delete("Pod", k32.name(name), k32.ns)


@when(step('I label pod "{name}" with "{label}"'))
def label_pod(k32, name, label):
    """A user's write to the pod (metadata only): it leaves the pod's status as it was."""
    key, sep, value = label.partition("=")
    if not sep:
        raise ValueError(f"labels are written key=value; got {label!r}")
    k32.api.patch("Pod", k32.name(name), {"metadata": {"labels": {key: value}}}, k32.ns)


# -- assertions ---------------------------------------------------------------------------
@then(step('pod "{name}" is bound to node "{node}"'))
def bound_to(k32, name, node):
    def check():
        got = (get_pod(k32, name).get("spec") or {}).get("nodeName")
        assert got == node, f"spec.nodeName is {got!r}"
    k32.eventually(check, f'pod "{name}" bound to "{node}"')


@then(step('pod "{name}" is not bound'))
def not_bound(k32, name):
    def check():
        got = (get_pod(k32, name).get("spec") or {}).get("nodeName")
        assert not got, f"spec.nodeName is {got!r}"
    k32.consistently(check, f'pod "{name}" not bound')


@then(parsers.re(r'pod "(?P<name>[^"]*)" is (?P<phase>Pending|Running|Succeeded|Failed|Unknown)'))
def pod_phase(k32, name, phase):
    def check():
        got = (get_pod(k32, name).get("status") or {}).get("phase", "Pending")
        assert got == phase, f"phase is {got!r}"
    k32.eventually(check, f'pod "{name}" {phase}')


@then(step('pod "{name}" is gone'))
def pod_gone(k32, name):
    def check():
        pod = k32.api.try_get("Pod", k32.name(name), k32.ns)
        assert pod is None, f"it still exists (deletionTimestamp {pod['metadata'].get('deletionTimestamp')})"
    k32.eventually(check, f'pod "{name}" gone')


@then(step('the create response for pod "{name}" names node "{node}"'))
def create_response_names(k32, name, node):
    answer = k32.responses.get(name)
    assert answer is not None, f"no pod {name!r} was created in this scenario"
    if isinstance(answer, ApiStatusError):
        raise AssertionError(f"creating pod {name!r} failed: {answer}")
    got = (answer.get("spec") or {}).get("nodeName")
    assert got == node, f"the create response has spec.nodeName {got!r}, expected {node!r}"


def _pod_condition(pod: dict, ctype: str) -> dict | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


@then(step('pod "{name}" has condition "{ctype}" "{status}" with reason "{reason}"'))
def pod_condition(k32, name, ctype, status, reason):
    def check():
        cond = _pod_condition(get_pod(k32, name), ctype)
        assert cond is not None, f"pod has no {ctype} condition"
        assert (cond.get("status"), cond.get("reason")) == (status, reason), \
            f"{ctype} is {cond.get('status')!r} with reason {cond.get('reason')!r}"
    k32.eventually(check, f'pod "{name}" condition {ctype}={status} ({reason})')


@then(step('pod "{name}" has no condition "{ctype}"'))
def pod_no_condition(k32, name, ctype):
    def check():
        cond = _pod_condition(get_pod(k32, name), ctype)
        assert cond is None, f"pod has {ctype}: {cond}"
    k32.consistently(check, f'pod "{name}" without condition {ctype}')
