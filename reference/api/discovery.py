"""Discovery: /version, /api, /apis and one APIResourceList per group version (legacy discovery,
which every kubectl from 1.27 to 1.33 understands), generated from the resource registry."""

from __future__ import annotations

from flask import Blueprint, jsonify

from kube32.reference import errors
from kube32.reference.resources import RESOURCES, group_versions

bp = Blueprint("discovery", __name__)

# The dispatcher kubectl on these machines picks kubectl.1.<minor> from this answer.
KUBERNETES_VERSION = {"major": "1", "minor": "33", "gitVersion": "v1.33.0-kube32.0", "gitCommit": "kube32",
                      "gitTreeState": "clean", "buildDate": "2026-11-01T00:00:00Z", "goVersion": "go1.24",
                      "compiler": "gc", "platform": "linux/amd64"}


@bp.route("/version")
@bp.route("/version/")      # the kubernetes client asks with the slash (VersionApi.get_code)
def version():
    return jsonify(KUBERNETES_VERSION)


@bp.route("/api")
def api_versions():
    return jsonify({"kind": "APIVersions", "versions": ["v1"],
                    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})


def _group(name: str, versions: list[str]) -> dict:
    gvs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": gvs, "preferredVersion": gvs[0]}


@bp.route("/apis")
def api_groups():
    groups: dict[str, list[str]] = {}
    for g, v in group_versions():
        if g:
            groups.setdefault(g, []).append(v)
    return jsonify({"kind": "APIGroupList", "apiVersion": "v1",
                    "groups": [_group(g, vs) for g, vs in groups.items()]})


@bp.route("/apis/<group>")
def api_group(group: str):
    versions = [v for g, v in group_versions() if g == group]
    if not versions:
        raise errors.NotFound("the server could not find the requested resource")
    return jsonify({"kind": "APIGroup", "apiVersion": "v1", **_group(group, versions)})


def resource_list(group: str, version: str) -> dict:
    out = []
    for r in RESOURCES:
        if (r.group, r.version) != (group, version):
            continue
        entry = {"name": r.plural, "singularName": r.singular, "namespaced": r.namespaced, "kind": r.kind,
                 "verbs": list(r.verbs)}
        if r.short_names:
            entry["shortNames"] = list(r.short_names)
        if r.categories:
            entry["categories"] = list(r.categories)
        out.append(entry)
        for sub in r.subresources:
            if sub == "scale":
                out.append({"name": f"{r.plural}/scale", "singularName": "", "namespaced": r.namespaced,
                            "group": "autoscaling", "version": "v1", "kind": "Scale",
                            "verbs": ["get", "patch", "update"]})
            else:
                out.append({"name": f"{r.plural}/{sub}", "singularName": "", "namespaced": r.namespaced,
                            "kind": r.kind, "verbs": ["get", "patch", "update"]})
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}


@bp.route("/api/<version>")
def core_resources(version: str):
    if ("", version) not in group_versions():
        raise errors.NotFound("the server could not find the requested resource")
    return jsonify(resource_list("", version))


@bp.route("/apis/<group>/<version>")
def group_resources(group: str, version: str):
    if (group, version) not in group_versions():
        raise errors.NotFound("the server could not find the requested resource")
    return jsonify(resource_list(group, version))
