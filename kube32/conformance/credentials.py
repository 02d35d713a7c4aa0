"""How the runner reaches a target: URL, bearer token, TLS trust and client certificate, from the
command line or a kubeconfig (``--kubeconfig FILE [--context NAME]``, as kubectl users hold them),
and per-node credentials for the fake kubelets (``--node-credentials DIR`` holding
``node-<name>.kubeconfig`` files, as ``serve --tls-self-signed DIR`` writes them): on a server with
node authorisation each fake kubelet then speaks as its own node, like a real kubelet."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from kube32.conformance import kubeconfig


@dataclasses.dataclass(frozen=True)
class Access:
    url: str | None = None                      # None: take the --target given
    token: str | None = None
    verify: bool | str = True                   # CA bundle path, or True for the system's
    cert: tuple[str, str] | None = None         # client certificate and key

    def client_kwargs(self) -> dict:
        return {"token": self.token, "verify": self.verify, "cert": self.cert}


def resolve(token: str | None, kubeconfig_path: str | None, context: str | None) -> Access:
    """--token alone, or a kubeconfig's context (--token still wins over its token)."""
    if not kubeconfig_path:
        return Access(token=token)
    creds = kubeconfig.load(kubeconfig_path, context)
    cert = (creds.client_certificate, creds.client_key) if creds.client_certificate else None
    verify: bool | str = creds.certificate_authority or (not creds.insecure_skip_tls_verify)
    return Access(url=creds.server, token=token or creds.token, verify=verify, cert=cert)


def node_access(directory: str | None, node: str) -> Access | None:
    """The credentials of node ``node`` in ``directory`` (None: none there; the runner's own are used)."""
    if not directory:
        return None
    path = Path(directory) / f"node-{node}.kubeconfig"
    return resolve(None, str(path), None) if path.is_file() else None
