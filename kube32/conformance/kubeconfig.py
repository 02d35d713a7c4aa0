"""kubeconfig files (clientcmd v1), the way kubectl users already hold credentials.

``write`` makes one with a cluster, a user and a context named after the server, as
``kind``/``k3d`` do; ``load`` reads the server URL and credentials of a context back.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import yaml


@dataclasses.dataclass(frozen=True)
class Credentials:
    server: str
    token: str | None = None
    certificate_authority: str | None = None
    client_certificate: str | None = None
    client_key: str | None = None
    insecure_skip_tls_verify: bool = False


class KubeconfigError(ValueError):
    """A kubeconfig that cannot be read or lacks what is asked for."""


def context_name(server: str) -> str:
    """``kube32-127-0-0-1-6443`` for ``http://127.0.0.1:6443``."""
    host = server.split("://", 1)[-1].rstrip("/")
    return "kube32-" + "".join(ch if ch.isalnum() else "-" for ch in host)


def write(path: str | Path, server: str, *, user: str = "admin", token: str | None = None,
          certificate_authority: str | None = None, client_certificate: str | None = None,
          client_key: str | None = None, name: str | None = None) -> Path:
    """Write a kubeconfig whose current context reaches ``server`` as ``user``; returns its path."""
    name = name or context_name(server)
    cluster: dict = {"server": server}
    if certificate_authority:
        cluster["certificate-authority"] = str(certificate_authority)
    creds: dict = {}
    if token:
        creds["token"] = token
    if client_certificate:
        creds["client-certificate"] = str(client_certificate)
        creds["client-key"] = str(client_key)
    doc = {"apiVersion": "v1", "kind": "Config", "preferences": {},
           "clusters": [{"name": name, "cluster": cluster}],
           "users": [{"name": f"{name}-{user}", "user": creds}],
           "contexts": [{"name": name, "context": {"cluster": name, "user": f"{name}-{user}"}}],
           "current-context": name}
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True)
    # credentials inside: readable by the owner only, as kubectl writes ~/.kube/config; written
    # whole then renamed, so a reader never sees half a file
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    os.replace(tmp, path)
    return path


def load(path: str | Path, context: str | None = None) -> Credentials:
    """Server and credentials of ``context`` (default: the current context) in ``path``."""
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise KubeconfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise KubeconfigError(f"{path}: not YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(doc, dict):
        raise KubeconfigError(f"{path}: not a kubeconfig")
    name = context or doc.get("current-context")
    if not name:
        raise KubeconfigError(f"{path}: no current-context; name one with --context")

    def entry(section: str, key: str, wanted: str) -> dict:
        for item in doc.get(section) or []:
            if isinstance(item, dict) and item.get("name") == wanted:
                return item.get(key) or {}
        known = ", ".join(str(i.get("name")) for i in doc.get(section) or [] if isinstance(i, dict)) or "none"
        raise KubeconfigError(f"{path}: no {section[:-1]} named {wanted!r} (known: {known})")

    ctx = entry("contexts", "context", name)
    cluster = entry("clusters", "cluster", ctx.get("cluster", ""))
    user = entry("users", "user", ctx["user"]) if ctx.get("user") else {}
    if not cluster.get("server"):
        raise KubeconfigError(f"{path}: cluster {ctx.get('cluster')!r} has no server")

    def rel(value: str | None) -> str | None:     # paths in a kubeconfig are relative to the file
        return str((path.parent / value).resolve()) if value else None

    return Credentials(server=cluster["server"], token=user.get("token"),
                       certificate_authority=rel(cluster.get("certificate-authority")),
                       client_certificate=rel(user.get("client-certificate")),
                       client_key=rel(user.get("client-key")),
                       insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify")))
