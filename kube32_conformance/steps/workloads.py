"""DaemonSet and Job steps: creating the owners, driving their pods through the fake kubelets, and
judging what the workload controller did — all through the HTTP API.

DaemonSet and Job pods have generated names, so these steps find them by owner (a controller
ownerReference of that kind and name) and, for DaemonSets, by node (``spec.nodeName``, or the
``kubernetes.io/hostname`` node selector while unbound). Every phrase starts with "the DaemonSet",
"DaemonSet", "the Job" or "Job" so it can never collide with the common vocabulary; the two node
steps at the end ("node ... joins", "node ... is deleted") are the exception, see their docstrings.
"""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from kube32_conformance.errors import ApiStatusError
from kube32_conformance.steps._util import DEFAULT_IMAGE, labels, remember_create, rows, step
from spec import constants

HASH = constants.CONTROLLER_REVISION_HASH_LABEL
# On a shared target (other nodes present) DaemonSets are fenced to the scenario's nodes: those
# nodes get this label (value: the scenario namespace) and the template's nodeSelector requires it.
FENCE_LABEL = "conformance.kube32.io/scenario"
UNSET = ("", "unset", "default", "-")
WRITE_RETRIES = 5
MAX_ROUNDS = 40          # workload intervals a Job is driven for before a driver step gives up


# -- reading pods -------------------------------------------------------------------------------
def owned_pods(k32, kind: str, name: str) -> list[dict]:
    """Pods in the scenario namespace whose controller ownerReference is ``kind``/``name``."""
    return [p for p in k32.api.list("Pod", k32.ns)
            if any(r.get("kind") == kind and r.get("name") == k32.name(name) and r.get("controller")
                   for r in p["metadata"].get("ownerReferences") or [])]


def terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def finished(pod: dict) -> bool:
    return phase(pod) in ("Succeeded", "Failed")


def ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def active(pod: dict) -> bool:
    """Upstream's "active": neither finished nor terminating."""
    return not finished(pod) and not terminating(pod)


def node_of(pod: dict) -> str | None:
    spec = pod.get("spec") or {}
    return spec.get("nodeName") or (spec.get("nodeSelector") or {}).get(constants.HOSTNAME_LABEL)


def pod_hash(pod: dict) -> str:
    return (pod["metadata"].get("labels") or {}).get(HASH, "")


def describe(pods: list[dict]) -> str:
    return "[" + ", ".join(f"{p['metadata']['name']}@{node_of(p)}:{phase(p)}"
                           f"{' terminating' if terminating(p) else ''}{' ready' if ready(p) else ''}"
                           for p in pods) + "]"


def names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def notes(k32, key: str) -> dict:
    return k32.notes.setdefault(key, {})


# -- writing --------------------------------------------------------------------------------------
def modify(k32, kind: str, name: str, mutate) -> dict:
    """GET, change, PUT; retried on 409 conflicts (the controller writes status concurrently)."""
    last: Exception | None = None
    for _ in range(WRITE_RETRIES):
        obj = k32.api.get(kind, k32.name(name), k32.ns)
        mutate(obj)
        try:
            return k32.api.update(obj)
        except ApiStatusError as exc:
            if exc.code != 409:
                raise
            last = exc
    raise AssertionError(f"could not update {kind} {name} after {WRITE_RETRIES} conflicts: {last}")


def template(name: str, restart_policy: str | None) -> dict:
    spec: dict = {"containers": [{"name": "main", "image": DEFAULT_IMAGE}]}
    if restart_policy is not None:
        spec["restartPolicy"] = restart_policy
    return {"metadata": {"labels": {"app": name}}, "spec": spec}


def daemonset_manifest(k32, name: str, *, node_selector: dict | None = None, strategy: str | None = None,
                       max_unavailable: str | None = None, restart_policy: str | None = None) -> dict:
    tmpl = template(name, restart_policy)
    if node_selector:
        tmpl["spec"]["nodeSelector"] = node_selector
    spec: dict = {"selector": {"matchLabels": {"app": name}}, "template": tmpl}
    if strategy is not None or max_unavailable is not None:
        spec["updateStrategy"] = {"type": strategy or "RollingUpdate"}
        if max_unavailable is not None:
            value: int | str = int(max_unavailable) if max_unavailable.isdigit() else max_unavailable
            spec["updateStrategy"]["rollingUpdate"] = {"maxUnavailable": value}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": k32.name(name), "namespace": k32.ns},
            "spec": spec}


def job_manifest(k32, name: str, fields: dict[str, str]) -> dict:
    """A Job with a one-container template. When the scenario has exactly one node, the template is
    pinned to it (hostname node selector) so the Job's pods never land on someone else's node on a
    shared target; the Job rules do not depend on where its pods run."""
    policy = fields.get("restartPolicy", "Never")
    spec: dict = {"template": template(name, None if policy in UNSET else policy)}
    if len(k32.kubelets) == 1:
        (node,) = k32.kubelets
        spec["template"]["spec"]["nodeSelector"] = {constants.HOSTNAME_LABEL: node}
    for key in ("completions", "parallelism", "backoffLimit"):
        value = fields.get(key, "")
        if value not in UNSET:
            spec[key] = int(value)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": k32.name(name), "namespace": k32.ns},
            "spec": spec}


def create_or_fail(k32, name: str, obj: dict) -> None:
    """Create and remember the answer; a rejection is left for a Then to judge."""
    remember_create(k32, name, obj)


def start_if_pending(k32, pod: dict) -> dict:
    if phase(pod) == "Pending" and not terminating(pod):
        return k32.kubelet_of(pod).start_pod(pod["metadata"]["name"], k32.ns)
    return pod


# == DaemonSet: creating and changing =============================================================
def fenced(k32) -> bool:
    """Does this scenario share the node set with others (so DaemonSets must be fenced)?"""
    return not k32.has("exclusive-nodes")


def fence(k32) -> dict[str, str]:
    """Label the scenario's nodes with the fence label and return the selector term (empty when
    the scenario owns every node)."""
    if not fenced(k32):
        return {}
    for node in k32.kubelets:
        k32.api.patch("Node", node, {"metadata": {"labels": {FENCE_LABEL: k32.ns}}})
    return {FENCE_LABEL: k32.ns}


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
    _ds_create(k32, name, max_unavailable=None if value in UNSET else value)


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
    notes(k32, "ds-old-hash")[name] = {pod_hash(p) for p in owned_pods(k32, "DaemonSet", name)}
    notes(k32, "ds-new-image")[name] = image

    def mutate(obj):
        for c in obj["spec"]["template"]["spec"]["containers"]:
            c["image"] = image
    modify(k32, "DaemonSet", name, mutate)


@when(step('the DaemonSet "{name}" is deleted'))
def ds_deleted(k32, name):
    notes(k32, "owned-before-delete")[("DaemonSet", name)] = owned_pods(k32, "DaemonSet", name)
    k32.api.delete("DaemonSet", k32.name(name), k32.ns)


def ds_pod_on(k32, name: str, node: str) -> dict:
    pods = [p for p in owned_pods(k32, "DaemonSet", name) if node_of(p) == node and not terminating(p)]
    assert len(pods) == 1, f'expected one DaemonSet "{name}" pod on node {node}, found {describe(pods)}'
    return pods[0]


@given(step('the DaemonSet "{name}" pod on node "{node}" becomes not ready'))
@when(step('the DaemonSet "{name}" pod on node "{node}" becomes not ready'))
def ds_pod_not_ready(k32, name, node):
    pod = ds_pod_on(k32, name, node)
    k32.kubelet(node).set_pod_ready(pod["metadata"]["name"], k32.ns, False)


@when(step('the DaemonSet "{name}" pod on node "{node}" fails'))
def ds_pod_fails(k32, name, node):
    pod = ds_pod_on(k32, name, node)
    notes(k32, "ds-pod")[(name, node)] = pod["metadata"]["uid"]
    k32.kubelet(node).finish_pod(pod["metadata"]["name"], k32.ns, succeeded=False)


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
    for kubelet in k32.kubelets.values():
        kubelet.auto_start = True
    old = notes(k32, "ds-old-hash").get(name, set())
    start = owned_pods(k32, "DaemonSet", name)
    original = {node_of(p): p["metadata"]["uid"] for p in start if not terminating(p)}
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
        if done or elapsed >= float(seconds):
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


# == shared: rejection, garbage collection ========================================================
@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" is rejected as Invalid on "(?P<field>[^"]+)" '
                 r'saying:'))
def rejected(k32, kind, name, field, docstring):
    answer = k32.responses.get(name)
    assert answer is not None, f'no {kind} "{name}" was written in this scenario'
    assert isinstance(answer, ApiStatusError), f'the {kind} was accepted: {answer.get("metadata", {}).get("name")}'
    status = answer.status
    assert (answer.code, status.get("reason")) == (422, "Invalid"), f"the answer was {answer}"
    causes = (status.get("details") or {}).get("causes") or []
    got = [(c.get("field"), c.get("message")) for c in causes]
    assert (field, docstring.strip()) in got, f"the causes are {got}"


@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" is accepted'))
def accepted(k32, kind, name):
    answer = k32.responses.get(name)
    assert answer is not None, f'no {kind} "{name}" was written in this scenario'
    assert not isinstance(answer, ApiStatusError), f"the {kind} was refused: {answer}"
    assert k32.api.try_get(kind, k32.name(name), k32.ns) is not None, f"the {kind} does not exist"


@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" pods are all gone or terminating'))
def pods_gone(k32, kind, name):
    before = notes(k32, "owned-before-delete").get((kind, name), [])
    assert before, f'the {kind} "{name}" had no pods when it was deleted, so this proves nothing'

    def check():
        left = [p for p in k32.api.list("Pod", k32.ns)
                if p["metadata"]["uid"] in {b["metadata"]["uid"] for b in before} and not terminating(p)]
        assert not left, f"still there: {describe(left)}"
    k32.eventually(check, f'{kind} "{name}" pods gone')


# == Job: creating and driving ===================================================================
@given(step('the Job "{name}" is created'))
@when(step('the Job "{name}" is created'))
def job_created(k32, name):
    create_or_fail(k32, name, job_manifest(k32, name, {}))


@given(step('the Job "{name}" is created with:'))
@when(step('the Job "{name}" is created with:'))
def job_created_with(k32, name, datatable):
    """One-row table; columns completions | parallelism | backoffLimit | restartPolicy, "unset" to omit."""
    (fields,) = rows(datatable)
    create_or_fail(k32, name, job_manifest(k32, name, fields))


@when(step('the Job "{name}" is created with restartPolicy "{policy}"'))
def job_created_policy(k32, name, policy):
    create_or_fail(k32, name, job_manifest(k32, name, {"restartPolicy": policy}))


@when(step('the Job "{name}" is deleted'))
def job_deleted(k32, name):
    notes(k32, "owned-before-delete")[("Job", name)] = owned_pods(k32, "Job", name)
    k32.api.delete("Job", k32.name(name), k32.ns)


def job_active(k32, name: str) -> list[dict]:
    pods = [p for p in owned_pods(k32, "Job", name) if active(p)]
    return sorted(pods, key=lambda p: (p["metadata"].get("creationTimestamp", ""), p["metadata"]["name"]))


def job_active_waiting(k32, name: str) -> list[dict]:
    """The Job's active pods; when there are none yet, up to three workload intervals pass."""
    for _ in range(3):
        pods = [p for p in job_active(k32, name) if (p.get("spec") or {}).get("nodeName")]
        if pods:
            return pods
        k32.timeline.advance(k32.profile.workload_interval)
    raise AssertionError(f'the Job "{name}" has no bound active pod: {describe(owned_pods(k32, "Job", name))}')


def finish(k32, pod: dict, succeeded: bool) -> None:
    pod = start_if_pending(k32, pod)
    k32.kubelet_of(pod).finish_pod(pod["metadata"]["name"], k32.ns, succeeded=succeeded)


@given(step('the Job "{name}" pods start'))
@when(step('the Job "{name}" pods start'))
def job_pods_start(k32, name):
    for pod in job_active_waiting(k32, name):
        start_if_pending(k32, pod)


@when(parsers.re(r'the Job "(?P<name>[^"]+)" pods (?P<outcome>succeed|fail)'))
def job_pods_finish(k32, name, outcome):
    for pod in job_active_waiting(k32, name):
        finish(k32, pod, outcome == "succeed")


@when(parsers.re(r'the Job "(?P<name>[^"]+)" has one pod (?P<outcome>succeed|fail)'))
def job_one_pod_finishes(k32, name, outcome):
    finish(k32, job_active_waiting(k32, name)[0], outcome == "succeed")


@when(parsers.re(r'the Job "(?P<name>[^"]+)" has (?P<n>\d+) pods? fail one after another'))
def job_pods_fail_in_turn(k32, name, n):
    """Each time: let one workload interval pass, then fail the oldest active pod."""
    for i in range(int(n)):
        k32.timeline.advance(k32.profile.workload_interval)
        pods = job_active_waiting(k32, name)
        assert pods, f"no active pod to fail after {i} failures"
        finish(k32, pods[0], False)


@when(parsers.re(r'the Job "(?P<name>[^"]+)" pod containers restart (?P<n>\d+) times?'))
def job_containers_restart(k32, name, n):
    for pod in job_active_waiting(k32, name):
        pod = start_if_pending(k32, pod)
        for _ in range(int(n)):
            k32.kubelet_of(pod).restart_container(pod["metadata"]["name"], k32.ns)


@when(step('the Job "{name}" pods keep succeeding until it is Complete'))
def job_run_to_complete(k32, name):
    """Round after round: one workload interval passes, then every active pod succeeds; records the
    most pods seen active at once. Gives up after ``MAX_ROUNDS`` rounds (the Thens then fail)."""
    record = {"max_active": 0, "rounds": 0}
    for _ in range(MAX_ROUNDS):
        k32.timeline.advance(k32.profile.workload_interval)
        record["rounds"] += 1
        pods = job_active(k32, name)
        record["max_active"] = max(record["max_active"], len(pods))
        cond = job_condition(k32, name, "Complete")
        if cond is not None and cond.get("status") == "True":
            break
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName"):
                finish(k32, pod, True)
    notes(k32, "job-run")[name] = record


@then(parsers.re(r'the Job "(?P<name>[^"]+)" never had more than (?P<n>\d+) active pods? at once'))
def job_never_more_active(k32, name, n):
    record = notes(k32, "job-run").get(name)
    assert record is not None, f'the Job "{name}" was not run to completion in this scenario'
    assert record["max_active"] <= int(n), f"up to {record['max_active']} pods were active at once"


@then(parsers.re(r'the Job "(?P<name>[^"]+)" had (?P<n>\d+) active pods? at once'))
def job_had_active(k32, name, n):
    record = notes(k32, "job-run").get(name)
    assert record is not None, f'the Job "{name}" was not run to completion in this scenario'
    assert record["max_active"] == int(n), f"the most pods active at once was {record['max_active']}"


# == Job: assertions =============================================================================
@then(parsers.re(r'the Job "(?P<name>[^"]+)" has (?P<n>\d+) active pods?'))
def job_has_active(k32, name, n):
    def check():
        pods = job_active(k32, name)
        assert len(pods) == int(n), f"{len(pods)} active: {describe(owned_pods(k32, 'Job', name))}"
    k32.eventually(check, f'Job "{name}" with {n} active pods')


@then(parsers.re(r'the Job "(?P<name>[^"]+)" has (?P<n>\d+) pods? in total'))
def job_has_total(k32, name, n):
    def check():
        pods = owned_pods(k32, "Job", name)
        assert len(pods) == int(n), f"{len(pods)} pods: {describe(pods)}"
    k32.eventually(check, f'Job "{name}" with {n} pods')


@then(step('the Job "{name}" status shows:'))
def job_status_shows(k32, name, datatable):
    """One-row table of status counters (active, ready, succeeded, failed); absent counts as 0."""
    (wanted,) = rows(datatable)

    def check():
        status = k32.api.get("Job", k32.name(name), k32.ns).get("status") or {}
        got = {k: str(status.get(k) or 0) for k in wanted}   # absent (or null) counts as 0
        assert got == wanted, f"status counters are {got}"
    k32.eventually(check, f'Job "{name}" status {wanted}')


def job_condition(k32, name: str, ctype: str) -> dict | None:
    status = k32.api.get("Job", k32.name(name), k32.ns).get("status") or {}
    return next((c for c in status.get("conditions") or [] if c.get("type") == ctype), None)


@then(step('the Job "{name}" has condition "{ctype}" "{status}"'))
def job_has_condition(k32, name, ctype, status):
    def check():
        cond = job_condition(k32, name, ctype)
        assert cond is not None and cond.get("status") == status, f"{ctype} condition is {cond}"
    k32.eventually(check, f'Job "{name}" condition {ctype}={status}')


@then(step('the Job "{name}" has condition "{ctype}" "{status}" with reason "{reason}" and message:'))
def job_condition_reason(k32, name, ctype, status, reason, docstring):
    def check():
        cond = job_condition(k32, name, ctype)
        assert cond is not None, f"no {ctype} condition"
        got = (cond.get("status"), cond.get("reason"), cond.get("message"))
        assert got == (status, reason, docstring.strip()), f"{ctype} condition is {got}"
    k32.eventually(check, f'Job "{name}" condition {ctype}={status} ({reason})')


@then(step('the Job "{name}" has no condition "{ctype}"'))
def job_no_condition(k32, name, ctype):
    def check():
        cond = job_condition(k32, name, ctype)
        assert cond is None, f"the Job has {cond}"
    k32.consistently(check, f'Job "{name}" without condition {ctype}')


@then(parsers.re(r'the Job "(?P<name>[^"]+)" has an? (?P<which>start|completion) time'))
def job_has_time(k32, name, which):
    field = {"start": "startTime", "completion": "completionTime"}[which]

    def check():
        status = k32.api.get("Job", k32.name(name), k32.ns).get("status") or {}
        assert status.get(field), f"status.{field} is {status.get(field)!r}"
    k32.eventually(check, f'Job "{name}" {field}')


@then(step('the Job "{name}" pods tolerate "{taint}" for the default toleration seconds'))
def job_pods_tolerate(k32, name, taint):
    key, _, effect = taint.partition(":")
    seconds = int(k32.profile.default_toleration_seconds)

    def check():
        pods = owned_pods(k32, "Job", name)
        assert pods, "the Job has no pods"
        for pod in pods:
            tolerations = pod["spec"].get("tolerations") or []
            match = [t for t in tolerations if t.get("key") == key and t.get("effect") == effect]
            assert [(t.get("operator"), t.get("tolerationSeconds")) for t in match] == [("Exists", seconds)], \
                f"pod {pod['metadata']['name']} tolerations are {tolerations}"
    k32.eventually(check, f'Job "{name}" pods tolerate {taint} for {seconds} s')


# == nodes joining and leaving (used by the DaemonSet features) ===================================
@when(step('node "{name}" joins with labels "{node_labels}"'))
def node_joins(k32, name, node_labels):
    """A Ready node registers mid-scenario (the common "these Ready nodes" is a Given only)."""
    fence_term = {FENCE_LABEL: k32.ns} if fenced(k32) else {}
    k32.add_kubelet(name).register(capacity={"memory": "200Ki"}, allocatable={"memory": "200Ki"},
                                   labels={**labels(node_labels), **fence_term})


@when(step('node "{name}" is deleted'))
def node_deleted(k32, name):
    """The Node object is removed (its kubelet goes silent first so it does not write it again)."""
    k32.kubelet(name).silence()
    k32.api.delete("Node", name)
