"""What a request's URL names under the Kubernetes URL scheme: ``/api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]``
and ``/apis/GROUP/VERSION/...`` resolved to a registered resource, a namespace, a name and a
subresource (``Target``); anything else is upstream's 404 (or the answer ``api.unsupported`` gives)."""

from __future__ import annotations

import dataclasses

from kube32.reference import errors
from kube32.reference.api import unsupported
from kube32.reference.resources import Resource, lookup


@dataclasses.dataclass
class Target:
    resource: Resource
    namespace: str | None
    name: str | None
    sub: str | None


def not_found() -> errors.ApiError:
    return errors.NotFound("the server could not find the requested resource")


def resolve(group: str, version: str, rest: str) -> Target:
    parts = rest.split("/")
    if "" in parts:
        parts = [p for p in parts if p]
    ns = r = None
    if len(parts) >= 3 and parts[0] == "namespaces":
        r = lookup(group, version, parts[2])
        if r is not None and r.namespaced:
            ns, parts = parts[1], parts[2:]
        elif r is None:
            unsupported.check(group, parts[2], parts[4] if len(parts) > 4 else None)
        else:
            r = None                # a cluster-scoped resource: "namespaces" is the resource here
    if not parts or len(parts) > 3:
        raise not_found()
    r = r or lookup(group, version, parts[0])
    sub = parts[2] if len(parts) > 2 else None
    if r is None:
        unsupported.check(group, parts[0], sub)
        raise not_found()
    name = parts[1] if len(parts) > 1 else None
    if sub is not None and sub not in r.subresources:
        unsupported.check(group, parts[0], sub)
        raise not_found()
    if r.namespaced and name is not None and ns is None:
        raise not_found()
    return Target(r, ns, name, sub)
