"""What the DaemonSet and Job steps share: finding pods by owner (a controller ownerReference of
that kind and name) and node, building manifests, fencing DaemonSets to the scenario's nodes on
shared targets, and the steps both kinds use (rejected / accepted / pods gone). The kind-specific
steps live in ``daemonset.py`` and ``job.py``. The two node steps at the end ("node ... joins",
"node ... is deleted") add and remove nodes mid-scenario, fenced like the rest.
"""

from __future__ import annotations

from pytest_bdd import parsers, then, when

from kube32.conformance.context import FENCE_LABEL
from kube32.conformance.errors import ApiStatusError
from kube32.conformance.steps._util import DEFAULT_IMAGE, labels, remember_create, step
from kube32.spec import constants

HASH = constants.CONTROLLER_REVISION_HASH_LABEL
UNSET = ("", "unset", "default", "-")
WRITE_RETRIES = 5
MAX_ROUNDS = 40          # workload intervals a Job is driven for before a driver step gives up


# -- reading pods -------------------------------------------------------------------------------
def owned_pods(k32, kind: str, name: str) -> list[dict]:
    """Pods in the scenario namespace with an ownerReference to ``kind``/``name`` (the document's
    "owner reference"; that it is the controller reference is upstream's form, not required)."""
    return [p for p in k32.api.list("Pod", k32.ns)
            if any(r.get("kind") == kind and r.get("name") == k32.name(name)
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
        return k32.kubelet_of(pod).start_pod(pod["metadata"]["name"], k32.ns, known=pod)
    return pod


# == DaemonSet: creating and changing =============================================================
def fenced(k32) -> bool:
    """Does this scenario share the node set with others (so DaemonSets must be fenced)? Either
    it runs beside other scenarios (its nodes carry the fence label from the start: context.py) or
    other nodes are present."""
    return bool(k32.fence_labels) or not k32.has("exclusive-nodes")


def fence(k32) -> dict[str, str]:
    """Label the scenario's nodes with the fence label and return the selector term (empty when
    the scenario owns every node)."""
    if not fenced(k32):
        return {}
    if k32.fence_labels:
        return dict(k32.fence_labels)
    for node in k32.kubelets:
        k32.api.patch("Node", node, {"metadata": {"labels": {FENCE_LABEL: k32.ns}}})
    return {FENCE_LABEL: k32.ns}


# == shared: rejection, garbage collection ========================================================
@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" is rejected as Invalid on "(?P<field>[^"]+)" '
                 r'saying:'))
def rejected(k32, kind, name, field, docstring):
    """Document level ("rejects"): a refusal (a 4xx answer) and nothing stored; reference level:
    upstream's 422 Invalid with a cause naming the field, in upstream's words."""
    answer = k32.responses.get(name)
    assert answer is not None, f'no {kind} "{name}" was written in this scenario'
    assert isinstance(answer, ApiStatusError), f'the {kind} was accepted: {answer.get("metadata", {}).get("name")}'
    assert 400 <= answer.code < 500, f"the answer was {answer}, not a refusal"
    stored, accepted = k32.api.try_get(kind, k32.name(name), k32.ns), k32.objects.get(name)
    if accepted is None:      # a refused create stores nothing; a refused update leaves the template as it was
        assert stored is None, f"the refused {kind} was stored anyway: {stored}"
    else:
        template = (stored or {}).get("spec", {}).get("template")
        assert template == accepted["spec"]["template"], f"the refused change was stored: {template}"
    status = answer.status
    causes = (status.get("details") or {}).get("causes") or []
    got = [(c.get("field"), c.get("message")) for c in causes]
    with k32.reference():
        assert (answer.code, status.get("reason")) == (422, "Invalid"), f"the answer was {answer}"
        assert (field, docstring.strip()) in got, f"the causes are {got}, expected {(field, docstring.strip())}"


@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" is accepted'))
def accepted(k32, kind, name):
    answer = k32.responses.get(name)
    assert answer is not None, f'no {kind} "{name}" was written in this scenario'
    assert not isinstance(answer, ApiStatusError), f"the {kind} was refused: {answer}"
    assert k32.api.try_get(kind, k32.name(name), k32.ns) is not None, f"the {kind} does not exist"


def delete_owner(k32, kind: str, name: str) -> None:
    """Delete a DaemonSet or Job, remembering the pods of every owner of that kind in the scenario
    at that moment (whose pods go with it, and whose stay, are judged against them)."""
    snapshot: dict[tuple[str, str], list[dict]] = {}
    for pod in k32.api.list("Pod", k32.ns):
        if terminating(pod):          # already going: not what a later check may expect to stay
            continue
        for ref in pod["metadata"].get("ownerReferences") or []:
            if ref.get("kind") == kind:
                snapshot.setdefault((kind, ref.get("name")), []).append(pod)
    notes(k32, "owned-before-delete").update(snapshot)      # keyed by the owners' names on the target
    k32.api.delete(kind, k32.name(name), k32.ns)


@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" still has every pod it had'))
def pods_kept(k32, kind, name):
    """The other side of "deleted with their owner": another owner's pods, as they were when the
    deletion happened, are all still there and not terminating."""
    before = notes(k32, "owned-before-delete").get((kind, k32.name(name)), [])
    assert before, f'the {kind} "{name}" had no pods when another {kind} was deleted, so this proves nothing'

    def check():
        now = {p["metadata"]["uid"]: p for p in owned_pods(k32, kind, name)}
        gone = [p for p in before if p["metadata"]["uid"] not in now or terminating(now[p["metadata"]["uid"]])]
        assert not gone, f"these pods went: {describe(gone)}"
    k32.consistently(check, f'{kind} "{name}" keeps its pods')


@then(parsers.re(r'the (?P<kind>DaemonSet|Job) "(?P<name>[^"]+)" pods are all gone or terminating'))
def pods_gone(k32, kind, name):
    before = notes(k32, "owned-before-delete").get((kind, k32.name(name)), [])
    assert before, f'the {kind} "{name}" had no pods when it was deleted, so this proves nothing'

    def check():
        left = [p for p in k32.api.list("Pod", k32.ns)
                if p["metadata"]["uid"] in {b["metadata"]["uid"] for b in before} and not terminating(p)]
        assert not left, f"still there: {describe(left)}"
    k32.eventually(check, f'{kind} "{name}" pods gone')


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
