"""Deployment steps: creating and changing Deployments, driving their pods through the kubelets,
and what a user sees of them over the API (pods, status, conditions, the scale subresource).

A Deployment's pods are the pods of the scenario namespace whose controller ownerReference carries
the Deployment's uid (remembered at creation, so it still works after the Deployment is deleted).
"Its pods" never include terminating pods (deletionTimestamp set) unless a step says so.
"""

from __future__ import annotations

import copy
import json
import re

import yaml
from pytest_bdd import given, parsers, then, when

from kube32.conformance.errors import ApiStatusError
from kube32.conformance.steps._util import DEFAULT_IMAGE, assert_made_from, labels, rows, status_written, step
from kube32.spec import constants, timefmt

HASH_ALPHABET = constants.SAFE_ENCODE_ALPHABET
HASH_PATTERN = re.compile(rf"^[{HASH_ALPHABET}]{{1,10}}$")
NAME = r'"(?P<name>[^"]*)"'
COUNT_FIELDS = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas",
                "observedGeneration")


# -- helpers ----------------------------------------------------------------------------------
def _uid_key(name: str) -> str:
    return f"deployment-uid:{name}"


def deployment_manifest(k32, name: str, overrides: dict | None = None) -> dict:
    """A Deployment named ``name`` with one container; ``overrides`` (a partial manifest) wins,
    and a missing selector / template is filled in from the app=<name> default."""
    template = {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": DEFAULT_IMAGE}]}}
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": k32.ns},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}, "template": template}}
    for key, value in (overrides or {}).items():
        if key == "spec" and isinstance(value, dict):
            obj["spec"].update(copy.deepcopy(value))
        elif key == "metadata" and isinstance(value, dict):
            obj["metadata"].update(copy.deepcopy(value))
        else:
            obj[key] = copy.deepcopy(value)
    obj["metadata"]["name"], obj["metadata"]["namespace"] = name, k32.ns
    obj["spec"] = {k: v for k, v in obj["spec"].items() if v is not None}   # "replicas: null" = leave it out
    return obj


def create_deployment(k32, name: str, obj: dict) -> dict:
    created = k32.api.create(k32.fence(obj))
    k32.objects[name] = created
    k32.notes[_uid_key(name)] = created["metadata"]["uid"]
    return created


def get_deployment(k32, name: str) -> dict:
    obj = k32.api.try_get("Deployment", k32.name(name), k32.ns)
    assert obj is not None, f'Deployment "{name}" does not exist'
    return obj


def deployment_uid(k32, name: str) -> str:
    uid = k32.notes.get(_uid_key(name))
    if uid is None:
        uid = get_deployment(k32, name)["metadata"]["uid"]
        k32.notes[_uid_key(name)] = uid
    return uid


def terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def pods_of(k32, name: str, *, include_terminating: bool = False) -> list[dict]:
    uid = deployment_uid(k32, name)
    # the document speaks of pods "carrying its owner reference"; controller: true is upstream's
    pods = [p for p in k32.api.list("Pod", k32.ns)
            if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]
    return sorted((p for p in pods if include_terminating or not terminating(p)),
                  key=lambda p: p["metadata"]["name"])


def image_of(pod: dict) -> str:
    return ((pod.get("spec") or {}).get("containers") or [{}])[0].get("image", "")


def is_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def pod_hash(pod: dict) -> str | None:
    return (pod["metadata"].get("labels") or {}).get(constants.POD_TEMPLATE_HASH_LABEL)


def describe(pods: list[dict]) -> str:
    return ", ".join(f"{p['metadata']['name']}({image_of(p)}, ready={is_ready(p)}, "
                     f"node={(p.get('spec') or {}).get('nodeName')})" for p in pods) or "none"


def pending_bound(pods: list[dict]) -> list[dict]:
    return [p for p in pods if (p.get("spec") or {}).get("nodeName")
            and (p.get("status") or {}).get("phase", "Pending") == "Pending"]


def condition(obj: dict, ctype: str) -> dict | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


# -- creating and changing Deployments ----------------------------------------------------------
@given(parsers.re(rf"the Deployment {NAME} is created with (?P<replicas>\d+) replicas?"))
@when(parsers.re(rf"the Deployment {NAME} is created with (?P<replicas>\d+) replicas?"))
def create_with_replicas(k32, name, replicas):
    create_deployment(k32, name, deployment_manifest(k32, name, {"spec": {"replicas": int(replicas)}}))


@given(step('the Deployment "{name}" is created with:'))
@when(step('the Deployment "{name}" is created with:'))
def create_with(k32, name, docstring):
    """A docstring with a partial Deployment manifest (YAML); selector and template default to
    app=<name> with one container when the docstring leaves them out."""
    overrides = yaml.safe_load(docstring) or {}
    if not isinstance(overrides, dict):
        raise ValueError("the docstring must be a YAML Deployment manifest (a mapping)")
    create_deployment(k32, name, deployment_manifest(k32, name, overrides))


@when(parsers.re(rf"the Deployment {NAME} is scaled to (?P<replicas>\d+) replicas?"))
def scale_spec(k32, name, replicas):
    k32.api.patch("Deployment", k32.name(name), {"spec": {"replicas": int(replicas)}}, k32.ns)


@when(parsers.re(rf"the Deployment {NAME} is scaled to (?P<replicas>\d+) replicas? with an? "
                 r"(?P<verb>PUT|PATCH) of its scale subresource"))
def scale_subresource(k32, name, replicas, verb):
    n = int(replicas)
    try:
        if verb == "PUT":
            scale = k32.api.get("Deployment", k32.name(name), k32.ns, sub="scale")
            scale["spec"] = {**(scale.get("spec") or {}), "replicas": n}
            scale.setdefault("kind", "Scale")
            scale.setdefault("apiVersion", "autoscaling/v1")
            path = f"/apis/apps/v1/namespaces/{k32.ns}/deployments/{k32.name(name)}/scale"
            answer = k32.api.call("PUT", path, json=scale)
        else:
            answer = k32.api.patch("Deployment", k32.name(name), {"spec": {"replicas": n}}, k32.ns, sub="scale")
    except ApiStatusError as exc:
        answer = exc
    k32.responses[f"scale:{name}"] = answer


@when(step('the Deployment "{name}" image changes to "{image}"'))
def change_image(k32, name, image):
    d = get_deployment(k32, name)
    containers = copy.deepcopy(d["spec"]["template"]["spec"]["containers"])
    containers[0]["image"] = image
    k32.api.patch("Deployment", k32.name(name), {"spec": {"template": {"spec": {"containers": containers}}}},
                  k32.ns)


@when(parsers.re(rf"the Deployment {NAME} pod template gets (?P<what>label|annotation) \"(?P<pair>[^\"]+)\""))
def change_template_metadata(k32, name, what, pair):
    """A change to spec.template.metadata only (the pod spec stays)."""
    field = "labels" if what == "label" else "annotations"
    k32.api.patch("Deployment", k32.name(name), {"spec": {"template": {"metadata": {field: labels(pair)}}}}, k32.ns)


@when(step('the Deployment "{name}" gets label "{label}"'))
def add_label(k32, name, label):
    k32.api.patch("Deployment", k32.name(name), {"metadata": {"labels": labels(label)}}, k32.ns)


@when(step('the Deployment "{name}" is deleted'))
def delete_deployment(k32, name):
    deployment_uid(k32, name)
    k32.api.delete("Deployment", k32.name(name), k32.ns)


@when(step('the Deployment "{name}" loses one pod deleted with grace period 0'))
def lose_pod(k32, name):
    pods = k32.eventually(lambda: _some(pods_of(k32, name)), f'Deployment "{name}" has a pod')
    victim = pods[0]["metadata"]
    k32.api.delete("Pod", victim["name"], k32.ns, grace=0)
    k32.notes[f"deleted-pod:{name}"] = victim["uid"]


def _some(pods: list[dict]) -> list[dict]:
    assert pods, "it has no pods"
    return pods


# -- the kubelets and the Deployment's pods -------------------------------------------------------
@given("Deployment pods are started as soon as they are bound")
def auto_start(k32):
    """Every kubelet of the scenario starts (Running, Ready) the Pending pods bound to it at its next
    pod sync; kubelets registered later in the scenario are not covered."""
    assert k32.kubelets, "register the nodes first"
    for kubelet in k32.kubelets.values():
        kubelet.auto_start = True


@given("Deployment pods are kept terminating by their kubelets")
def hold_terminating(k32):
    """The kubelets do not confirm graceful deletions: deleted bound pods stay terminating."""
    assert k32.kubelets, "register the nodes first"
    for kubelet in k32.kubelets.values():
        kubelet.hold_terminating = True


def _start(k32, name: str, n: int | None) -> None:
    def enough() -> list[dict]:
        ready_to_start = pending_bound(pods_of(k32, name))
        assert len(ready_to_start) >= (n or 1), \
            f"{len(ready_to_start)} bound Pending pods, need {n or 1}: {describe(pods_of(k32, name))}"
        return ready_to_start
    chosen = k32.eventually(enough, f'Deployment "{name}" pods to start')
    for pod in chosen[: n if n is not None else len(chosen)]:
        k32.kubelet_of(pod).start_pod(pod["metadata"]["name"], k32.ns, known=pod)


@when(step('the Deployment "{name}" pods are started'))
def start_all(k32, name):
    _start(k32, name, None)


@when(parsers.re(rf"the Deployment {NAME} gets (?P<n>\d+) of its pods started"))
def start_some(k32, name, n):
    _start(k32, name, int(n))


@when(parsers.re(rf"the Deployment {NAME} gets (?P<n>\d+) of its pods marked not ready"))
def mark_not_ready(k32, name, n):
    count = int(n)

    def enough() -> list[dict]:
        ready = [p for p in pods_of(k32, name) if is_ready(p)]
        assert len(ready) >= count, f"{len(ready)} ready pods, need {count}: {describe(pods_of(k32, name))}"
        return ready
    for pod in k32.eventually(enough, f'Deployment "{name}" ready pods')[:count]:
        k32.kubelet_of(pod).set_pod_ready(pod["metadata"]["name"], k32.ns, False, known=pod)


# -- pods ---------------------------------------------------------------------------------------
@then(parsers.re(rf"the Deployment {NAME} has (?P<n>\d+) pods?"))
def has_pods(k32, name, n):
    def check():
        pods = pods_of(k32, name)
        assert len(pods) == int(n), f"it has {len(pods)}: {describe(pods)}"
    k32.eventually(check, f'Deployment "{name}" with {n} pods')


@then(step('the Deployment "{name}" pods are:'))
def pods_are(k32, name, datatable):
    """Table | image | ready | count |: the Deployment's (non-terminating) pods, grouped exactly."""
    expected = {}
    for row in rows(datatable):
        key = (row["image"], row["ready"])
        expected[key] = expected.get(key, 0) + int(row["count"])

    def check():
        got: dict = {}
        for p in pods_of(k32, name):
            key = (image_of(p), "True" if is_ready(p) else "False")
            got[key] = got.get(key, 0) + 1
        assert got == expected, f"pods by (image, ready): {sorted(got.items())}, expected {sorted(expected.items())}"
    k32.eventually(check, f'Deployment "{name}" pods')


@then(parsers.re(rf"the Deployment {NAME} has at least (?P<n>\d+) ready pods?"))
def has_ready_pods(k32, name, n):
    """However the rollout is paced (with or without surge pods), this many pods stay ready."""
    def check():
        pods = pods_of(k32, name)
        ready = [p for p in pods if is_ready(p)]
        assert len(ready) >= int(n), f"{len(ready)} are ready: {describe(pods)}"
    k32.consistently(check, f'Deployment "{name}" with at least {n} ready pods')


@then(parsers.re(rf"the Deployment {NAME} has at least (?P<n>\d+) pods? of image \"(?P<image>[^\"]+)\""))
def has_pods_of_image(k32, name, n, image):
    def check():
        pods = pods_of(k32, name)
        got = [p for p in pods if image_of(p) == image]
        assert len(got) >= int(n), f"{len(got)} have image {image}: {describe(pods)}"
    k32.eventually(check, f'Deployment "{name}" with {n} pods of {image}')


@then(parsers.re(rf"the Deployment {NAME} has at least (?P<n>\d+) pods? with the pod-template-hash \"(?P<key>[^\"]+)\""))
def at_least_remembered_hash(k32, name, n, key):
    old = k32.notes[f"hash:{key}"]

    def check():
        pods = pods_of(k32, name)
        kept = [p for p in pods if pod_hash(p) == old]
        assert len(kept) >= int(n), f"{len(kept)} carry the pod-template-hash {old!r}: {describe(pods)}"
    k32.eventually(check, f'Deployment "{name}" with {n} pods of pod-template-hash {old}')


@when(step('the Deployment "{name}" rolls on until it runs a pod of image "{image}"'))
def rolls_until(k32, name, image):
    """Deployment intervals pass, one at a time (at most ten), the kubelets starting what is bound,
    until a pod of the image runs: however the target paces a rollout, it stands mid-rollout here."""
    for _ in range(10):
        k32.timeline.advance(k32.profile.deployment_interval)
        for pod in pending_bound(pods_of(k32, name)):
            k32.kubelet_of(pod).start_pod(pod["metadata"]["name"], k32.ns, known=pod)
        if any(image_of(p) == image for p in pods_of(k32, name)):
            return
    raise AssertionError(f'the Deployment "{name}" runs no pod of {image} after ten intervals: '
                         f"{describe(pods_of(k32, name))}")


@then(parsers.re(rf"the Deployment {NAME} has (?P<n>\d+) terminating pods?"))
def has_terminating(k32, name, n):
    """Reference level: that the controller deletes its pods gracefully (a bound pod stays
    terminating until its kubelet lets it go) is upstream's way; the document does not say how
    the Deployment controller deletes."""
    def check():
        pods = [p for p in pods_of(k32, name, include_terminating=True) if terminating(p)]
        assert len(pods) == int(n), f"{len(pods)} terminating: {describe(pods)}"
    with k32.reference():
        k32.eventually(check, f'Deployment "{name}" with {n} terminating pods')


@then(parsers.re(rf"the Deployment {NAME} terminating pods were deleted in (?P<n>\d+) different seconds"))
def deleted_apart(k32, name, n):
    """When each terminating pod was deleted: deletionTimestamp minus deletionGracePeriodSeconds
    (whole seconds). One deletion per pass puts each in a second of its own."""
    def check():
        pods = [p for p in pods_of(k32, name, include_terminating=True) if terminating(p)]
        assert len(pods) == int(n), f"{len(pods)} terminating pods: {describe(pods)}"
        seconds = sorted(timefmt.parse(p["metadata"]["deletionTimestamp"])
                         - int(p["metadata"].get("deletionGracePeriodSeconds") or 0) for p in pods)
        assert len(set(seconds)) == int(n), \
            f"deleted at {[timefmt.rfc3339(t) for t in seconds]}: some in the same second"
    k32.eventually(check, f'Deployment "{name}" deletions one per second')


@then(step('the Deployment "{name}" has no pods left'))
def no_pods_left(k32, name):
    def check():
        pods = pods_of(k32, name)
        assert not pods, f"pods not deleted: {describe(pods)}"
    k32.eventually(check, f'Deployment "{name}" pods deleted')


@then(step('the Deployment "{name}" pods do not include the deleted one'))
def not_the_deleted_one(k32, name):
    """By uid: a pod's name is the implementation's choice, and a replacement may reuse it."""
    victim = k32.notes.get(f"deleted-pod:{name}")
    assert victim, "no pod of this Deployment was deleted in this scenario"
    pods = pods_of(k32, name, include_terminating=True)
    assert victim not in {p["metadata"]["uid"] for p in pods}, f"the deleted pod (uid {victim}) is still there: {describe(pods)}"


@then(step('the Deployment "{name}" pods are made from its template'))
def made_from_template(k32, name):
    tmpl = get_deployment(k32, name)["spec"]["template"]
    k32.eventually(lambda: assert_made_from(_some(pods_of(k32, name)), tmpl),
                   f'Deployment "{name}" pods made from its template')


@then(step('the Deployment "{name}" pods are controlled by it'))
def controlled_by_it(k32, name):
    """Document level: every pod carries an owner reference to this Deployment (and none to a
    ReplicaSet); reference level: it is the pod's one controller reference (upstream's form)."""
    d = get_deployment(k32, name)
    want = ("apps/v1", "Deployment", d["metadata"]["name"], d["metadata"]["uid"])

    def check():
        pods = _some(pods_of(k32, name))
        for p in pods:
            refs = [(r.get("apiVersion"), r.get("kind"), r.get("name"), r.get("uid"))
                    for r in p["metadata"].get("ownerReferences") or []]
            assert want in refs, f"{p['metadata']['name']} has owner references {refs}, expected {want}"
            assert not [r for r in refs if r[1] == "ReplicaSet"], f"{p['metadata']['name']} is owned by {refs}"
        return pods
    pods = k32.eventually(check, f'Deployment "{name}" owns its pods')
    with k32.reference():
        for p in pods:
            refs = [r for r in p["metadata"].get("ownerReferences") or [] if r.get("controller")]
            got = [(r.get("apiVersion"), r.get("kind"), r.get("name"), r.get("uid")) for r in refs]
            assert got == [want], f"{p['metadata']['name']} has controller references {got}, expected [{want}]"


@then(step('the Deployment "{name}" leaves no ReplicaSets behind'))
def no_replicasets(k32, name):
    get_deployment(k32, name)
    path = f"/apis/apps/v1/namespaces/{k32.ns}/replicasets"
    resp = k32.api.request("GET", path)
    if resp.status_code == 404:
        return
    assert resp.status_code == 200, f"GET {path} answered {resp.status_code}: {resp.text[:200]}"
    items = resp.json().get("items") or []
    assert items == [], f"ReplicaSets exist: {[i.get('metadata', {}).get('name') for i in items]}"


@then(step('the Deployment "{name}" left pod "{pod}" untouched'))
def left_untouched(k32, name, pod):
    get_deployment(k32, name)

    def check():
        p = k32.api.try_get("Pod", k32.name(pod), k32.ns)
        assert p is not None, f"pod {pod} was deleted"
        assert not terminating(p), f"pod {pod} is terminating"
        assert not p["metadata"].get("ownerReferences"), \
            f"pod {pod} was adopted: {p['metadata'].get('ownerReferences')}"
    k32.consistently(check, f'pod "{pod}" untouched by Deployment "{name}"')


# -- pod-template-hash ----------------------------------------------------------------------------
def _one_hash(k32, name: str) -> str:
    pods = _some(pods_of(k32, name))
    hashes = {pod_hash(p) for p in pods}
    assert len(hashes) == 1, f"pods carry pod-template-hash values {sorted(map(str, hashes))}: {describe(pods)}"
    return hashes.pop() or ""


@then(step('the Deployment "{name}" pods carry one pod-template-hash of upstream\'s alphabet'))
def one_hash(k32, name):
    def check():
        h = _one_hash(k32, name)
        assert HASH_PATTERN.match(h), f"pod-template-hash {h!r} is not 1-10 characters of {HASH_ALPHABET}"
    k32.eventually(check, f'Deployment "{name}" pod-template-hash')


@when(step('the Deployment "{name}" pod-template-hash is remembered as "{key}"'))
def remember_hash(k32, name, key):
    k32.notes[f"hash:{key}"] = k32.eventually(lambda: _one_hash(k32, name), f'Deployment "{name}" hash')


@then(step('the Deployment "{name}" pods carry the pod-template-hash remembered as "{key}"'))
def same_hash(k32, name, key):
    want = k32.notes[f"hash:{key}"]

    def check():
        got = _one_hash(k32, name)
        assert got == want, f"pod-template-hash is {got!r}, remembered {want!r}"
    k32.eventually(check, f'Deployment "{name}" pod-template-hash {key}')


@then(step('the Deployment "{name}" pods of image "{image}" carry a pod-template-hash other than "{key}"'))
def other_hash(k32, name, image, key):
    old = k32.notes[f"hash:{key}"]

    def check():
        pods = [p for p in pods_of(k32, name) if image_of(p) == image]
        assert pods, f"no pod has image {image}: {describe(pods_of(k32, name))}"
        for p in pods:
            h = pod_hash(p)
            assert h and h != old, f"{p['metadata']['name']} carries pod-template-hash {h!r} (remembered {old!r})"
        return pods
    pods = k32.eventually(check, f'Deployment "{name}" new pod-template-hash')
    with k32.reference():
        bad = [pod_hash(p) for p in pods if not HASH_PATTERN.match(pod_hash(p) or "")]
        assert not bad, f"pod-template-hash values {bad} are not 1-10 characters of {HASH_ALPHABET}"


@then(parsers.re(rf"the Deployment {NAME} has (?P<n>\d+) pods? with a pod-template-hash other than \"(?P<key>[^\"]+)\""))
def count_other_hash(k32, name, n, key):
    """Exactly n of its (non-terminating) pods carry a hash other than the remembered one."""
    old = k32.notes[f"hash:{key}"]

    def check():
        pods = pods_of(k32, name)
        new = [p for p in pods if pod_hash(p) and pod_hash(p) != old]
        assert len(new) == int(n), f"{len(new)} carry another pod-template-hash than {old!r}: {describe(pods)}"
    k32.eventually(check, f'Deployment "{name}" with {n} pods of a new pod-template-hash')


@then(step('the Deployment "{name}" pods are named after it and their pod-template-hash'))
def named_after(k32, name):
    def check():
        for p in _some(pods_of(k32, name)):
            pattern = rf"^{re.escape(k32.name(name))}-{re.escape(pod_hash(p) or '?')}-[{HASH_ALPHABET}]{{5}}$"
            assert re.match(pattern, p["metadata"]["name"]), \
                f"{p['metadata']['name']} is not <deployment>-<pod-template-hash>-<5 characters>"
    k32.eventually(check, f'Deployment "{name}" pod names')


# -- tolerations ----------------------------------------------------------------------------------
def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True)


@then(step('the Deployment "{name}" pods have these tolerations:'))
def tolerations(k32, name, datatable):
    """Table | key | operator | effect | tolerationSeconds |; "default" means the target's default
    toleration seconds; the pods' list must be exactly these (in this order at reference level)."""
    expected = []
    for row in rows(datatable):
        t = {k: row[k] for k in ("key", "operator", "effect") if row.get(k)}
        seconds = row.get("tolerationSeconds", "")
        if seconds == "default":
            t["tolerationSeconds"] = int(k32.profile.default_toleration_seconds)
        elif seconds:
            t["tolerationSeconds"] = int(seconds)
        expected.append(t)

    def check():
        pods = _some(pods_of(k32, name))
        for p in pods:
            got = (p.get("spec") or {}).get("tolerations") or []
            assert sorted(got, key=_canonical) == sorted(expected, key=_canonical), \
                f"{p['metadata']['name']} tolerates {got}"
        return pods
    pods = k32.eventually(check, f'Deployment "{name}" pod tolerations')
    with k32.reference():
        for p in pods:
            got = (p.get("spec") or {}).get("tolerations") or []
            assert got == expected, f"{p['metadata']['name']} tolerates {got}, in another order than {expected}"


# -- the Deployment object ----------------------------------------------------------------------
@then(step('the Deployment "{name}" status shows:'))
def status_shows(k32, name, datatable):
    """Table | field | value |; a count the status leaves out is 0 (upstream omits zeros). The
    document names none of these fields (it says only that the controller updates status): upstream's
    counters and observedGeneration are judged at reference level."""
    expected = {row["field"]: int(row["value"]) for row in rows(datatable)}
    unknown = set(expected) - set(COUNT_FIELDS)
    if unknown:
        raise ValueError(f"unknown status fields {sorted(unknown)}; known: {', '.join(COUNT_FIELDS)}")

    def check():
        status = get_deployment(k32, name).get("status") or {}
        got = {k: int(status.get(k) or 0) for k in expected}
        assert got == expected, f"status shows {got}"
    clause = "DEPLOY-GENERATION" if "observedGeneration" in expected else "DEPLOY-STATUS-COUNTS"
    with k32.reference(clause):
        k32.eventually(check, f'Deployment "{name}" status')


@then(step('the Deployment "{name}" status counts its pods'))
def status_counts_pods(k32, name):
    """The counts as the pods present give them, whatever the rollout's pace: replicas the owned
    pods that are not terminating, updatedReplicas those of the current template, readyReplicas and
    availableReplicas (minReadySeconds 0) the Ready ones, unavailableReplicas the rest."""
    def check():
        deployment = get_deployment(k32, name)
        image = image_of({"spec": deployment["spec"]["template"].get("spec") or {}})
        pods = [p for p in pods_of(k32, name) if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        ready = sum(1 for p in pods if is_ready(p))
        expected = {"replicas": len(pods), "updatedReplicas": sum(1 for p in pods if image_of(p) == image),
                    "readyReplicas": ready, "availableReplicas": ready, "unavailableReplicas": len(pods) - ready}
        status = deployment.get("status") or {}
        got = {k: int(status.get(k) or 0) for k in expected}
        assert got == expected, f"status shows {got}; its pods give {expected}: {describe(pods)}"
    with k32.reference("DEPLOY-STATUS-COUNTS"):     # upstream's counters: the document names none
        k32.eventually(check, f'Deployment "{name}" status counting its pods')


@then(parsers.re(rf"the Deployment {NAME} has generation (?P<n>\d+)"))
def generation(k32, name, n):
    def check():
        got = get_deployment(k32, name)["metadata"].get("generation")
        assert got == int(n), f"metadata.generation is {got}"
    k32.consistently(check, f'Deployment "{name}" generation {n}')


@then(parsers.re(rf"the Deployment {NAME} has spec.replicas (?P<n>\d+)"))
def spec_replicas(k32, name, n):
    got = get_deployment(k32, name)["spec"].get("replicas")
    assert got == int(n), f"spec.replicas is {got}"


def _condition_check(k32, name, ctype, status, reason, message=None):
    """The document names the Available and Progressing conditions, not their reasons or messages:
    type and status at document level (written by the pass, or the next one), upstream's reason and
    message at reference level."""
    def check():
        c = condition(get_deployment(k32, name), ctype)
        assert c is not None, f"no {ctype} condition"
        assert c.get("status") == status, f"{ctype} is {c.get('status')!r} with reason {c.get('reason')!r}"
        return c
    status_written(k32, check, f'Deployment "{name}" condition {ctype}={status}', k32.profile.deployment_interval)

    def exact():
        c = check()
        got = (c.get("reason"), c.get("message") if message is not None else None)
        assert got == (reason, message), f"{ctype} {status} has reason and message {got}, expected {(reason, message)}"
    with k32.reference():
        k32.eventually(exact, f'Deployment "{name}" condition {ctype}={status} ({reason})')


@then(step('the Deployment "{name}" has condition "{ctype}" "{status}" with reason "{reason}"'))
def has_condition(k32, name, ctype, status, reason):
    _condition_check(k32, name, ctype, status, reason)


@then(step('the Deployment "{name}" has condition "{ctype}" "{status}" with reason "{reason}" and message:'))
def has_condition_message(k32, name, ctype, status, reason, docstring):
    _condition_check(k32, name, ctype, status, reason, docstring.strip())


# -- the scale subresource ------------------------------------------------------------------------
def _desired(scale: dict, spec_n: int) -> None:
    """What the document asks of the Scale (kubectl scale reads and writes it): a Scale whose
    spec.replicas is the desired count."""
    assert scale.get("kind") == "Scale", f"answered a {scale.get('kind')!r}, expected a Scale"
    got = (scale.get("spec") or {}).get("replicas")
    assert got == spec_n, f"spec.replicas is {got}"


def _upstream_scale(scale: dict, name: str, status_n: int | None, selector: str | None) -> None:
    """Our reading: upstream's autoscaling/v1 Scale, named after the Deployment, with the current
    replicas and the selector as a string in its status (the document names none of these)."""
    assert scale.get("apiVersion") == "autoscaling/v1", f"answered apiVersion {scale.get('apiVersion')!r}"
    assert scale.get("metadata", {}).get("name") == name, f"the Scale names {scale.get('metadata', {}).get('name')}"
    if status_n is not None:
        got = (scale.get("status") or {}).get("replicas", 0)
        assert got == status_n, f"status.replicas is {got}"
    if selector is not None:
        got = (scale.get("status") or {}).get("selector")
        assert got == selector, f"status.selector is {got!r}"


@then(parsers.re(rf"the Deployment {NAME} scale shows (?P<spec>\d+) desired and (?P<status>\d+) current "
                 r'replicas? with selector "(?P<selector>[^"]*)"'))
def scale_shows(k32, name, spec, status, selector):
    def read() -> dict:
        return k32.api.get("Deployment", k32.name(name), k32.ns, sub="scale")
    k32.eventually(lambda: _desired(read(), int(spec)), f'Deployment "{name}" scale')

    def whole():
        scale = read()
        _desired(scale, int(spec))
        _upstream_scale(scale, k32.name(name), int(status), selector)
    with k32.reference("DEPLOY-SCALE-SUBRESOURCE"):
        k32.eventually(whole, f'Deployment "{name}" scale status')


@then(parsers.re(rf"the Deployment {NAME} scale write answered a Scale of (?P<n>\d+) replicas?"))
def scale_answer(k32, name, n):
    answer = k32.responses.get(f"scale:{name}")
    assert answer is not None, f'Deployment "{name}" was not scaled through its scale subresource'
    if isinstance(answer, ApiStatusError):
        raise AssertionError(f"the scale write failed: {answer}")
    _desired(answer, int(n))
    with k32.reference("DEPLOY-SCALE-SUBRESOURCE"):
        _upstream_scale(answer, k32.name(name), None, None)


# -- remembering pods -----------------------------------------------------------------------------
@when(step('the Deployment "{name}" pods are remembered'))
def remember_pods(k32, name):
    """By uid: names are the implementation's choice (a recreated pod may carry an old name)."""
    pods = k32.eventually(lambda: _some(pods_of(k32, name)), f'Deployment "{name}" has pods')
    k32.notes[f"pods:{name}"] = {p["metadata"]["uid"]: p["metadata"]["name"] for p in pods}


@when(step('the Deployment "{name}" ready pods made from its template are remembered'))
def remember_ready_current_pods(k32, name):
    """By uid, the pods a scale-down removes last (not-ready pods and stale ones go first)."""
    tmpl = get_deployment(k32, name)["spec"]["template"]
    k32.notes[f"pods:{name}"] = {p["metadata"]["uid"]: p["metadata"]["name"] for p in pods_of(k32, name)
                                 if is_ready(p) and _made_from(p, tmpl)}


def _made_from(pod: dict, template: dict) -> bool:
    try:
        assert_made_from([pod], template)
    except AssertionError:
        return False
    return True


def _remembered(k32, name: str) -> dict:
    want = k32.notes.get(f"pods:{name}")
    assert want is not None, f'the pods of Deployment "{name}" were not remembered in this scenario'
    return want


@then(step('the Deployment "{name}" still has the remembered pods'))
def same_pods(k32, name):
    """Exactly the remembered pods: none deleted, none added."""
    want = _remembered(k32, name)

    def check():
        pods = pods_of(k32, name)
        assert {p["metadata"]["uid"] for p in pods} == set(want), \
            f"its pods are {describe(pods)}, remembered {sorted(want.values())}"
    k32.consistently(check, f'Deployment "{name}" keeps its pods')


@then(step('the Deployment "{name}" pods include the remembered ones'))
def includes_remembered(k32, name):
    """Every remembered pod is still one of its pods (not deleted, not terminating)."""
    want = _remembered(k32, name)

    def check():
        pods = pods_of(k32, name)
        gone = set(want) - {p["metadata"]["uid"] for p in pods}
        assert not gone, f"{sorted(want[u] for u in gone)} went; its pods are {describe(pods)}"
    k32.consistently(check, f'Deployment "{name}" keeps the remembered pods')


@then(step('the Deployment "{name}" pods are all among the remembered ones'))
def among_remembered(k32, name):
    """No pod appeared since they were remembered (what is left was there before)."""
    want = _remembered(k32, name)

    def check():
        pods = _some(pods_of(k32, name))
        new = [p for p in pods if p["metadata"]["uid"] not in want]
        assert not new, f"pods that were not there before: {describe(new)}"
    k32.consistently(check, f'Deployment "{name}" has no new pods')
