"""What the workload controller should do for one DaemonSet: a pure function of the DaemonSet, the
nodes and the DaemonSet's pods (no store, no clock).

Rules (kube32 document, "DaemonSet"):
- every node whose labels match the template's nodeSelector should run exactly one pod;
- the pod is pinned with the node selector ``kubernetes.io/hostname=<node name>`` and labelled
  ``controller-revision-hash=<hash of the template>``;
- pods on nodes that left (Node object gone) or stopped matching are deleted; a node's health
  (Ready Unknown, unreachable taints) plays no part, so pods stay on unreachable nodes;
- a node gets a new pod only when no pod of the DaemonSet is on it any more (terminating included);
- RollingUpdate replaces out-of-date pods node by node within ``maxUnavailable`` (default 1, a
  percentage of the desired count rounded UP as upstream's DaemonSet controller does); out-of-date
  pods that are not available are replaced first and regardless of the budget (upstream);
- OnDelete never replaces a pod by itself; a pod the user deleted comes back from the current template.
"""

from __future__ import annotations

import copy
import dataclasses
import math

from kube32.reference.machinery.conditions import is_ready
from kube32.reference.machinery.defaults import add_default_tolerations
from kube32.reference.machinery.hashing import fnv32a, safe_encode, template_hash  # noqa: F401 (faults patch these names here)
from kube32.spec import constants

ROLLING_UPDATE = "RollingUpdate"
ON_DELETE = "OnDelete"
UPDATE_STRATEGIES = (ON_DELETE, ROLLING_UPDATE)       # upstream's order in its error message


# -- small predicates over pods and nodes ----------------------------------------------------
def node_name(node: dict) -> str:
    return node["metadata"]["name"]


def pod_name(pod: dict) -> str:
    return pod["metadata"]["name"]


def is_terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def is_finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def is_available(pod: dict) -> bool:
    """Ready (minReadySeconds is 0, so ready and available are the same), not leaving."""
    return not is_terminating(pod) and not is_finished(pod) and is_ready(pod)


def pinned_node(pod: dict) -> str | None:
    """The node a DaemonSet pod belongs to: its hostname pin, else the node it is bound to."""
    spec = pod.get("spec") or {}
    return (spec.get("nodeSelector") or {}).get(constants.HOSTNAME_LABEL) or spec.get("nodeName") or None


def should_run(template: dict, node: dict) -> bool:
    """Does the template's nodeSelector match the node's labels? (An empty selector matches all.)"""
    selector = ((template.get("spec") or {}).get("nodeSelector")) or {}
    labels = node["metadata"].get("labels") or {}
    return all(labels.get(k) == v for k, v in selector.items())






def pod_hash(pod: dict) -> str | None:
    return (pod["metadata"].get("labels") or {}).get(constants.CONTROLLER_REVISION_HASH_LABEL)


# -- strategy ----------------------------------------------------------------------------------
def strategy_type(ds: dict) -> str:
    return ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type") or ROLLING_UPDATE


def max_unavailable_value(ds: dict) -> int | str:
    rolling = (((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate")) or {}
    value = rolling.get("maxUnavailable")
    return constants.DAEMONSET_DEFAULT_MAX_UNAVAILABLE if value is None else value


def resolve_max_unavailable(value: int | str, desired: int) -> int:
    """An int as is; ``"N%"`` of ``desired`` rounded UP (upstream DaemonSet, unlike Deployment)."""
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            return math.ceil(float(text[:-1]) * desired / 100)
        return int(text)
    return int(value)


# -- building a pod ----------------------------------------------------------------------------
def owner_reference(ds: dict) -> dict:
    meta = ds["metadata"]
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": meta["name"], "uid": meta["uid"],
            "controller": True, "blockOwnerDeletion": True}


def pin(spec: dict, node: str) -> None:
    """Add the hostname node selector that ties the pod to ``node``."""
    spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), constants.HOSTNAME_LABEL: node}


def build_pod(ds: dict, node: str, revision: str) -> dict:
    """A pod for ``node`` from the DaemonSet's current template (not yet stored)."""
    template = copy.deepcopy((ds.get("spec") or {}).get("template") or {})
    tmeta = template.get("metadata") or {}
    labels = {**(tmeta.get("labels") or {}), constants.CONTROLLER_REVISION_HASH_LABEL: revision}
    meta = {"generateName": f"{ds['metadata']['name']}-", "namespace": ds["metadata"].get("namespace"),
            "labels": labels, "ownerReferences": [owner_reference(ds)]}
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": template.get("spec") or {}}
    pin(pod["spec"], node)
    add_default_tolerations(pod, None)
    return pod


# -- the plan ----------------------------------------------------------------------------------
@dataclasses.dataclass
class DaemonSetPlan:
    revision: str
    create_on: list[str] = dataclasses.field(default_factory=list)        # node names
    delete: list[tuple[dict, str]] = dataclasses.field(default_factory=list)  # (pod, why)
    status: dict = dataclasses.field(default_factory=dict)

    def deleted_names(self) -> set[str]:
        return {pod_name(p) for p, _ in self.delete}


def pods_by_node(pods: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for pod in sorted(pods, key=lambda p: (p["metadata"].get("creationTimestamp", ""), pod_name(p))):
        out.setdefault(pinned_node(pod) or "", []).append(pod)
    return out


def node_needs_pod(here: list[dict]) -> bool:
    """A node gets a new pod only when none of the DaemonSet's pods is on it, terminating included."""
    return not here


def rollout_order(nodes: list[dict]) -> list[dict]:
    """Nodes in the order placement and rolling updates visit them: by name."""
    return sorted(nodes, key=node_name)


def pods_on_mismatched_node(name: str, live: list[dict]) -> list[tuple[dict, str]]:
    return [(p, f"node {name} no longer matches the nodeSelector") for p in live]


def pods_on_missing_nodes(known: set[str], by_node: dict[str, list[dict]]) -> list[tuple[dict, str]]:
    """Pods whose node is gone (Node object deleted)."""
    return [(p, f"node {name or '<none>'} is gone")
            for name, here in sorted(by_node.items()) if name not in known for p in here]


def manage(template: dict, nodes: list[dict], by_node: dict[str, list[dict]]) -> tuple[list[str], list[tuple[dict, str]]]:
    """Placement without regard to revisions: which nodes need a pod, which pods must go."""
    create: list[str] = []
    delete: list[tuple[dict, str]] = []
    for node in rollout_order(nodes):
        name = node_name(node)
        here = by_node.get(name, [])
        live = [p for p in here if not is_terminating(p)]
        if not should_run(template, node):
            delete += pods_on_mismatched_node(name, live)
            continue
        finished = [p for p in live if is_finished(p)]
        delete += [(p, f"pod finished ({(p.get('status') or {}).get('phase')}) on node {name}") for p in finished]
        running = [p for p in live if not is_finished(p)]
        delete += [(p, f"more than one pod on node {name}") for p in running[1:]]
        if node_needs_pod(here):
            create.append(name)
    delete += pods_on_missing_nodes({node_name(n) for n in nodes}, by_node)
    return create, delete


def replace_regardless_of_budget(pod: dict) -> bool:
    """Out-of-date pods that are not available go at once (upstream: it costs no availability)."""
    return not is_available(pod)


def rolling_deletions(ds: dict, revision: str, nodes: list[dict], by_node: dict[str, list[dict]],
                      desired: int) -> list[tuple[dict, str]]:
    """Out-of-date pods to delete this pass under RollingUpdate (upstream's maxSurge=0 path)."""
    template = (ds.get("spec") or {}).get("template") or {}
    budget = resolve_max_unavailable(max_unavailable_value(ds), desired)
    unavailable = 0
    replace_now: list[tuple[dict, str]] = []
    candidates: list[dict] = []
    for node in rollout_order(nodes):
        if not should_run(template, node):
            continue
        live = [p for p in by_node.get(node_name(node), []) if not is_terminating(p) and not is_finished(p)]
        if not live:
            unavailable += 1          # being created, or waiting for a terminating pod to leave
            continue
        pod = live[0]
        if pod_hash(pod) == revision:
            if not is_available(pod):
                unavailable += 1
            continue
        if replace_regardless_of_budget(pod):
            replace_now.append((pod, f"out-of-date and not ready on node {node_name(node)}"))
            unavailable += 1
        else:
            candidates.append(pod)
    room = max(0, min(budget - unavailable, len(candidates)))
    return replace_now + [(p, f"rolling update (maxUnavailable {budget})") for p in candidates[:room]]


def compute_status(ds: dict, revision: str, nodes: list[dict], by_node: dict[str, list[dict]]) -> dict:
    template = (ds.get("spec") or {}).get("template") or {}
    desired = current = misscheduled = ready = updated = available = 0
    for node in nodes:
        live = [p for p in by_node.get(node_name(node), []) if not is_terminating(p)]
        if should_run(template, node):
            desired += 1
            if live:
                current += 1
                pod = live[0]
                ready += is_ready(pod)
                available += is_available(pod)
                updated += pod_hash(pod) == revision
        elif live:
            misscheduled += 1
    status = {
        "currentNumberScheduled": current,
        "desiredNumberScheduled": desired,
        "numberMisscheduled": misscheduled,
        "numberReady": ready,
        "numberAvailable": available,
        "updatedNumberScheduled": updated,
        "observedGeneration": ds["metadata"].get("generation", 1),
    }
    if desired - available > 0:
        status["numberUnavailable"] = desired - available
    return status


def plan(ds: dict, nodes: list[dict], pods: list[dict]) -> DaemonSetPlan:
    """Everything one pass should do for ``ds`` given its ``pods`` and all ``nodes``."""
    template = (ds.get("spec") or {}).get("template") or {}
    revision = template_hash(template)
    by_node = pods_by_node(pods)
    create, delete = manage(template, nodes, by_node)
    result = DaemonSetPlan(revision=revision, create_on=create, delete=delete)
    if strategy_type(ds) == ROLLING_UPDATE:
        desired = sum(1 for n in nodes if should_run(template, n))
        gone = result.deleted_names()
        result.delete += [(p, why) for p, why in rolling_deletions(ds, revision, nodes, by_node, desired)
                          if pod_name(p) not in gone]
    result.status = compute_status(ds, revision, nodes, by_node)
    return result
