"""DaemonSet steps: creating DaemonSets, driving their pods by node through the fake kubelets, and
judging placement and rolling updates. Every phrase starts with "the DaemonSet"; the pods are found by
owner and node (see ``workloads.owned_pods``)."""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from kube32.conformance.errors import ApiStatusError
from kube32.conformance.steps._util import labels, step
from kube32.conformance.steps.workloads import (
    FENCE_LABEL,
    HASH,
    UNSET,
    active,
    create_or_fail,
    daemonset_manifest,
    delete_owner,
    describe,
    fence,
    fenced,
    modify,
    names,
    node_of,
    notes,
    owned_pods,
    pod_hash,
    ready,
    start_if_pending,
    terminating,
)


def _ds_create(k32, name, node_selector: dict | None = None, **kw):
    selector = {**fence(k32), **(node_selector or {})}
    create_or_fail(k32, name, daemonset_manifest(k32, name, node_selector=selector or None, **kw))


@given(step('the DaemonSet "{name}" is created'))
@when(step('the DaemonSet "{name}" is created'))
def ds_created(k32, name):
    _ds_create(k32, name)


@given(step('the DaemonSet "{name}" is created with node selector "{selector}"'))
@when(step('the DaemonSet "{name}" is created with node selector "{selector}"'))
def ds_created_selector(k32, name, selector):
    _ds_create(k32, name, node_selector=labels(selector))


@given(step('the DaemonSet "{name}" is created with update strategy "{strategy}"'))
def ds_created_strategy(k32, name, strategy):
    _ds_create(k32, name, strategy=strategy)


@given(step('the DaemonSet "{name}" is created with maxUnavailable "{value}"'))
def ds_created_max_unavailable(k32, name, value):
    """Strategy RollingUpdate (said explicitly: the document does not name the default strategy),
    with rollingUpdate.maxUnavailable ``value``, or without it when ``value`` is "default"."""
    _ds_create(k32, name, strategy="RollingUpdate", max_unavailable=None if value in UNSET else value)


@when(step('the DaemonSet "{name}" is created with restartPolicy "{policy}"'))
def ds_created_policy(k32, name, policy):
    _ds_create(k32, name, restart_policy=None if policy in UNSET else policy)


@when(step('the DaemonSet "{name}" is updated to restartPolicy "{policy}"'))
def ds_update_policy(k32, name, policy):
    def mutate(obj):
        obj["spec"]["template"]["spec"]["restartPolicy"] = policy
    try:
        k32.responses[name] = modify(k32, "DaemonSet", name, mutate)
    except ApiStatusError as exc:
        k32.responses[name] = exc


@given(step('the DaemonSet "{name}" pods are running and ready'))
def ds_pods_running(k32, name):
    """One workload interval, then every kubelet starts the DaemonSet's pods bound to it."""
    k32.timeline.advance(k32.profile.workload_interval)

    def bound():
        pods = [p for p in owned_pods(k32, "DaemonSet", name) if not terminating(p)]
        assert pods, "the DaemonSet has no pods"
        unbound = [p["metadata"]["name"] for p in pods if not (p.get("spec") or {}).get("nodeName")]
        assert not unbound, f"pods not bound yet: {unbound}"
        return pods
    pods = k32.eventually(bound, f'DaemonSet "{name}" pods bound')
    for pod in pods:
        start_if_pending(k32, pod)
        notes(k32, "ds-pod")[(name, node_of(pod))] = pod["metadata"]["uid"]


@when(step('the DaemonSet "{name}" template changes to image "{image}"'))
def ds_template_changes(k32, name, image):
    """Notes each node's pod before the change: on a real clock the target may replace the first
    one before the runner looks again (a following step must not lose that node)."""
    before = owned_pods(k32, "DaemonSet", name)
    notes(k32, "ds-old-hash")[name] = {pod_hash(p) for p in before}
    notes(k32, "ds-original")[name] = {node_of(p): p["metadata"]["uid"] for p in before if not terminating(p)}
    notes(k32, "ds-new-image")[name] = image

    def mutate(obj):
        for c in obj["spec"]["template"]["spec"]["containers"]:
            c["image"] = image
    modify(k32, "DaemonSet", name, mutate)


@when(step('the DaemonSet "{name}" is deleted'))
def ds_deleted(k32, name):
    delete_owner(k32, "DaemonSet", name)


def ds_pod_on(k32, name: str, node: str) -> dict:
    pods = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node and not terminating(p)]
    assert len(pods) == 1, f'expected one DaemonSet "{name}" pod on node {node}, found {describe(pods)}'
    return pods[0]


@given(step('the DaemonSet "{name}" pod on node "{node}" becomes not ready'))
@when(step('the DaemonSet "{name}" pod on node "{node}" becomes not ready'))
def ds_pod_not_ready(k32, name, node):
    pod = ds_pod_on(k32, name, node)
    k32.kubelet(node).set_pod_ready(pod["metadata"]["name"], k32.ns, False, known=pod)


@when(step('the DaemonSet "{name}" pod on node "{node}" fails'))
def ds_pod_fails(k32, name, node):
    pod = ds_pod_on(k32, name, node)
    notes(k32, "ds-pod")[(name, node)] = pod["metadata"]["uid"]
    k32.kubelet(node).finish_pod(pod["metadata"]["name"], k32.ns, succeeded=False, known=pod)


@when(step('the DaemonSet "{name}" pod on node "{node}" is deleted'))
def ds_pod_deleted(k32, name, node):
    pod = ds_pod_on(k32, name, node)
    k32.api.delete("Pod", pod["metadata"]["name"], k32.ns)


@given(step('the DaemonSet "{name}" pod on node "{node}" will be slow to terminate'))
def ds_pod_slow_to_terminate(k32, name, node):
    """The node's kubelet keeps terminating pods until told otherwise."""
    k32.kubelet(node).hold_terminating = True


@when(step('the DaemonSet "{name}" pod on node "{node}" finishes terminating'))
def ds_pod_finishes_terminating(k32, name, node):
    kubelet = k32.kubelet(node)
    kubelet.hold_terminating = False
    gone = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node and terminating(p)]
    assert gone, f'no terminating DaemonSet "{name}" pod on node {node}'
    for pod in gone:
        kubelet._confirm_delete(pod)


# == DaemonSet: following a rollout ===============================================================
@when(step('the DaemonSet "{name}" rollout is followed for at most {seconds} seconds'))
def ds_follow_rollout(k32, name, seconds):
    """Let time pass in small steps, the kubelets starting new pods on their own, and record per
    sample: nodes without a ready pod, when each node's original pod was taken away, and whether a
    live pod ever stood next to a terminating one on a node. Stops once every node runs a ready pod
    of the new template."""
    _follow(k32, name, float(seconds), until_done=True)


@when(parsers.re(r'the DaemonSet "(?P<name>[^"]+)" rollout is followed for (?P<seconds>\d+(?:\.\d+)?) seconds'))
def ds_follow_rollout_for(k32, name, seconds):
    """The same for exactly that long, whenever the rollout ends (the time then stands where any
    target's would: ``explore`` runs one scenario on two at once)."""
    _follow(k32, name, float(seconds), until_done=False)


def _follow(k32, name: str, seconds: float, until_done: bool) -> None:
    for kubelet in k32.kubelets.values():
        kubelet.auto_start = True
    old = notes(k32, "ds-old-hash").get(name, set())
    original = notes(k32, "ds-original").get(name) or {
        node_of(p): p["metadata"]["uid"] for p in owned_pods(k32, "DaemonSet", name) if not terminating(p)}
    nodes = sorted(original)
    record = {"replaced": {}, "unavailable": [], "coexist": [], "done": False, "nodes": nodes}
    step_len = min(0.5, k32.profile.workload_interval / 2)
    elapsed, sample = 0.0, 0
    while True:
        pods = owned_pods(k32, "DaemonSet", name)
        by_node: dict[str, list[dict]] = {}
        for p in pods:
            by_node.setdefault(node_of(p), []).append(p)
        unavailable = 0
        done = True
        for node in nodes:
            here = by_node.get(node, [])
            live = [p for p in here if not terminating(p)]
            if node not in record["replaced"] and not any(p["metadata"]["uid"] == original[node] and
                                                          not terminating(p) for p in here):
                record["replaced"][node] = sample
            if live and any(terminating(p) for p in here):
                record["coexist"].append(f"{node} at +{elapsed:g}s: {describe(here)}")
            if not any(ready(p) for p in live):
                unavailable += 1
            if not (len(here) == 1 and live and ready(live[0]) and pod_hash(live[0]) not in old):
                done = False
        record["unavailable"].append(unavailable)
        if (done and until_done) or elapsed >= seconds:
            record["done"] = done
            break
        k32.timeline.advance(step_len)
        elapsed += step_len
        sample += 1
    notes(k32, "ds-rollout")[name] = record


def rollout(k32, name: str) -> dict:
    record = notes(k32, "ds-rollout").get(name)
    if record is None:
        raise AssertionError(f'no rollout of DaemonSet "{name}" was followed in this scenario')
    return record


@then(step('the DaemonSet "{name}" rollout completed'))
def ds_rollout_completed(k32, name):
    record = rollout(k32, name)
    assert record["done"], (f'the rollout did not finish: nodes replaced {record["replaced"]}, '
                            f'last pods {describe(owned_pods(k32, "DaemonSet", name))}')


@then(step('the DaemonSet "{name}" rollout replaced nodes in order "{order}"'))
def ds_rollout_order(k32, name, order):
    """``order``: node names separated by commas; ``a+b`` means a and b were taken together."""
    record = rollout(k32, name)
    by_sample: dict[int, list[str]] = {}
    for node, sample in record["replaced"].items():
        by_sample.setdefault(sample, []).append(node)
    seen = ", ".join("+".join(sorted(by_sample[s])) for s in sorted(by_sample))
    expected = ", ".join("+".join(sorted(g.split("+"))) for g in names(order))
    assert seen == expected, f"nodes were replaced in the order {seen!r}"


@then(step('the DaemonSet "{name}" rollout replaced node "{node}" first, then nodes in order "{order}"'))
def ds_rollout_first(k32, name, node, order):
    """Document level ("replaces not-ready pods first"): no other node's pod was replaced before
    ``node``'s. Reference level: the others followed in ``order`` (our reading: by name)."""
    record = rollout(k32, name)
    replaced = record["replaced"]
    assert node in replaced, f"the pod on {node} was never replaced: {replaced}"
    earlier = sorted(n for n, sample in replaced.items() if sample < replaced[node])
    assert not earlier, f"{earlier} were replaced before {node} (samples {replaced})"
    with k32.reference():
        ds_rollout_order(k32, name, f"{node}, {order}")


@then(parsers.re(r'the DaemonSet "(?P<name>[^"]+)" rollout never had more than (?P<n>\d+) nodes? '
                 r'without a ready pod'))
def ds_rollout_at_most(k32, name, n):
    record = rollout(k32, name)
    worst = max(record["unavailable"], default=0)
    assert worst <= int(n), f"up to {worst} nodes were without a ready pod at once ({record['unavailable']})"


@then(parsers.re(r'the DaemonSet "(?P<name>[^"]+)" rollout had (?P<n>\d+) nodes? without a ready pod at once'))
def ds_rollout_reached(k32, name, n):
    record = rollout(k32, name)
    worst = max(record["unavailable"], default=0)
    assert worst == int(n), f"the most nodes without a ready pod at once was {worst} ({record['unavailable']})"


@then(step('the DaemonSet "{name}" rollout never started a pod next to a terminating one'))
def ds_rollout_no_coexistence(k32, name):
    record = rollout(k32, name)
    assert not record["coexist"], "a new pod stood next to a terminating one: " + "; ".join(record["coexist"][:3])


# == DaemonSet: assertions =======================================================================
@then(step('the DaemonSet "{name}" has pods on exactly nodes "{nodes}"'))
def ds_pods_on_exactly(k32, name, nodes):
    wanted = sorted(names(nodes))

    def check():
        live = [p for p in owned_pods(k32, "DaemonSet", name) if not terminating(p)]
        got = sorted(p.get("spec", {}).get("nodeName") or f"<unbound:{node_of(p)}>" for p in live)
        assert got == wanted, f"live pods are bound to {got}: {describe(live)}"
        return live
    for pod in k32.eventually(check, f'DaemonSet "{name}" pods on {wanted}'):
        notes(k32, "ds-pod")[(name, node_of(pod))] = pod["metadata"]["uid"]


@then(step('the DaemonSet "{name}" has a pod on node "{node}"'))
def ds_has_pod_on(k32, name, node):
    def check():
        pod = ds_pod_on(k32, name, node)
        assert (pod.get("spec") or {}).get("nodeName") == node, f"pod {pod['metadata']['name']} is not bound"
        return pod
    pod = k32.eventually(check, f'DaemonSet "{name}" pod on node "{node}"')
    notes(k32, "ds-pod")[(name, node)] = pod["metadata"]["uid"]


@then(step('the DaemonSet "{name}" has an unbound pod for node "{node}"'))
def ds_unbound_pod_for(k32, name, node):
    def check():
        pod = ds_pod_on(k32, name, node)
        assert not (pod.get("spec") or {}).get("nodeName"), f"pod {pod['metadata']['name']} is bound"
    k32.consistently(check, f'DaemonSet "{name}" unbound pod for node "{node}"')


@then(step('the DaemonSet "{name}" has no pod on node "{node}"'))
def ds_has_no_pod_on(k32, name, node):
    def check():
        live = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node and not terminating(p)]
        assert not live, f"live pods on {node}: {describe(live)}"
    k32.eventually(check, f'no DaemonSet "{name}" pod on node "{node}"')


@then(step('the DaemonSet "{name}" keeps the same pod on node "{node}"'))
def ds_keeps_pod(k32, name, node):
    uid = notes(k32, "ds-pod").get((name, node))
    assert uid, f'no DaemonSet "{name}" pod on node {node} was seen earlier in this scenario'

    def check():
        here = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node]
        assert [p["metadata"]["uid"] for p in here] == [uid], f"pods on {node} are now {describe(here)}"
        assert not terminating(here[0]), f"the pod is terminating: {describe(here)}"
        assert here[0]["spec"].get("nodeName") == node, f"the pod is no longer bound to {node}"
    k32.consistently(check, f'DaemonSet "{name}" keeps its pod on node "{node}"')


@then(step('the DaemonSet "{name}" pod on node "{node}" is replaced'))
def ds_pod_replaced(k32, name, node):
    uid = notes(k32, "ds-pod").get((name, node))
    assert uid, f'no DaemonSet "{name}" pod on node {node} was seen earlier in this scenario'

    def check():
        pod = ds_pod_on(k32, name, node)
        assert pod["metadata"]["uid"] != uid, "the pod on the node is still the old one"
        assert active(pod), f"the new pod is {describe([pod])}"
    k32.eventually(check, f'DaemonSet "{name}" pod on node "{node}" replaced')


@then(step('the DaemonSet "{name}" pod on node "{node}" has node selector "{selector}"'))
def ds_pod_node_selector(k32, name, node, selector):
    wanted = {**labels(selector), **({FENCE_LABEL: k32.ns} if fenced(k32) else {})}

    def check():
        got = ds_pod_on(k32, name, node)["spec"].get("nodeSelector") or {}
        assert got == wanted, f"spec.nodeSelector is {got}"
    k32.eventually(check, f'DaemonSet "{name}" pod on "{node}" node selector')


@then(step('the DaemonSet "{name}" pods carry one controller-revision-hash'))
def ds_one_hash(k32, name):
    def check():
        live = [p for p in owned_pods(k32, "DaemonSet", name) if not terminating(p)]
        assert live, "the DaemonSet has no pods"
        hashes = {pod_hash(p) for p in live}
        assert len(hashes) == 1 and "" not in hashes, f"{HASH} values: {sorted(hashes)}"
        return hashes.pop()
    notes(k32, "ds-hash")[name] = k32.eventually(check, f'DaemonSet "{name}" pods share one {HASH}')


@then(step('the DaemonSet "{name}" pod on node "{node}" runs the new template'))
def ds_pod_new_template(k32, name, node):
    image = notes(k32, "ds-new-image").get(name)
    old = notes(k32, "ds-old-hash").get(name)
    assert image and old is not None, f'the template of DaemonSet "{name}" was not changed in this scenario'

    def check():
        pod = ds_pod_on(k32, name, node)
        images = [c.get("image") for c in pod["spec"]["containers"]]
        assert images == [image] * len(images), f"images are {images}"
        assert pod_hash(pod) and pod_hash(pod) not in old, f"{HASH} is {pod_hash(pod)!r}, old values {sorted(old)}"
    k32.eventually(check, f'DaemonSet "{name}" pod on "{node}" runs the new template')


@then(step('the DaemonSet "{name}" pod on node "{node}" is terminating'))
def ds_pod_terminating(k32, name, node):
    def check():
        here = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node]
        assert any(terminating(p) for p in here), f"pods on {node}: {describe(here)}"
    k32.eventually(check, f'DaemonSet "{name}" pod on "{node}" terminating')


@then(step('the DaemonSet "{name}" has only its terminating pod on node "{node}"'))
def ds_only_terminating(k32, name, node):
    def check():
        here = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node]
        assert len(here) == 1 and terminating(here[0]), f"pods on {node}: {describe(here)}"
    k32.consistently(check, f'DaemonSet "{name}" only a terminating pod on "{node}"')


@then(step('the DaemonSet "{name}" pod on node "{node}" tolerates "{taint}" without a time limit'))
def ds_pod_tolerates(k32, name, node, taint):
    key, _, effect = taint.partition(":")

    def check():
        tolerations = ds_pod_on(k32, name, node)["spec"].get("tolerations") or []
        match = [t for t in tolerations if t.get("key") == key and t.get("effect") == effect]
        assert match, f"tolerations are {tolerations}"
        assert all(t.get("operator") == "Exists" and "tolerationSeconds" not in t for t in match), \
            f"the {taint} toleration is {match}"
    k32.eventually(check, f'DaemonSet "{name}" pod tolerates {taint}')
