"""What kube32 does not serve, said plainly instead of a bare 404.

Boards run no container runtime, so the kubelet-side pod verbs have nothing behind them; and
Deployments manage their pods directly (``pod-template-hash``), so there are no ReplicaSets for
``kubectl rollout history/undo`` to read. One table, one message each.
"""

from __future__ import annotations

from kube32.reference import errors

_CONSOLE = ("kube32 boards run no container runtime, so there are no container logs, exec, attach or "
            "port-forward; read a board's serial console with `kube32-conformance rig monitor RIG.yaml`")

# (group, resource, subresource) -> message; answered 400 BadRequest, as upstream answers a pod
# whose container cannot serve the verb
POD_VERBS = {("", "pods", sub): _CONSOLE for sub in ("log", "exec", "attach", "portforward")}

# (group, resource) kube32 does not keep -> message; answered 404 NotFound
RESOURCES = {
    ("apps", "replicasets"): "kube32 keeps no ReplicaSets: a Deployment manages its pods directly "
                             "(label pod-template-hash), so `kubectl rollout history` and `rollout undo` "
                             "are not available; roll back by applying the previous template",
    ("apps", "controllerrevisions"): "kube32 keeps no ControllerRevisions: DaemonSet pods carry "
                                     "controller-revision-hash, and there is no revision history to undo to",
}


def check(group: str, resource: str, sub: str | None) -> None:
    """Raise the explaining Status for a resource or subresource kube32 does not serve."""
    if sub is not None and (group, resource, sub) in POD_VERBS:
        raise errors.BadRequest(POD_VERBS[(group, resource, sub)])
    if (group, resource) in RESOURCES:
        raise errors.NotFound(RESOURCES[(group, resource)])
