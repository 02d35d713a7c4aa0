"""TLS for the reference server: the serving context from upstream's flags, and ``--tls-self-signed``.

``server_context`` builds the ``ssl.SSLContext`` the server terminates TLS with (Python's ssl, no
hand-rolled TLS): ``--tls-cert-file``/``--tls-private-key-file``, and with ``--client-ca-file``
client certificates signed by that CA are verified (optional, as upstream: a request without one
may still authenticate by token).

``self_signed(dir, hosts, nodes)`` writes, with the ``cryptography`` package, what a new user needs
to be one command from kubectl over https: ``ca.crt``/``ca.key``, ``server.crt``/``server.key``
(SANs: the hosts asked for, localhost, 127.0.0.1, ::1), ``admin.crt``/``admin.key``
(CN=kube32-admin, O=system:masters) and for every node ``node-<name>.crt``/``.key``
(CN=system:node:<name>, O=system:nodes), plus ``admin.kubeconfig`` and ``node-<name>.kubeconfig``.
Existing files are kept, so restarting with the same DIR keeps every kubeconfig valid.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
from pathlib import Path

ADMIN_CN, ADMIN_GROUP = "kube32-admin", "system:masters"
VALID_DAYS = 365


class TlsError(ValueError):
    """A certificate, key or CA file that cannot be used (one line naming the file)."""


def server_context(cert_file: str, key_file: str, client_ca_file: str | None = None) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert_file, key_file)
    except (OSError, ssl.SSLError) as exc:
        raise TlsError(f"{cert_file} / {key_file}: cannot load the serving certificate and key: {exc}") from None
    if client_ca_file:
        try:
            ctx.load_verify_locations(cafile=client_ca_file)
        except (OSError, ssl.SSLError) as exc:
            raise TlsError(f"{client_ca_file}: cannot load the client CA: {exc}") from None
        ctx.verify_mode = ssl.CERT_OPTIONAL
    return ctx


def _x509():
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    return x509, hashes, serialization, ec, ExtendedKeyUsageOID, NameOID


def _write_key(path: Path, key) -> None:
    _, _, serialization, _, _, _ = _x509()
    data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _load(dir_: Path, stem: str):
    x509, _, serialization, _, _, _ = _x509()
    cert = x509.load_pem_x509_certificate((dir_ / f"{stem}.crt").read_bytes())
    key = serialization.load_pem_private_key((dir_ / f"{stem}.key").read_bytes(), None)
    return cert, key


def _issue(dir_: Path, stem: str, subject: list, ca, *, server_hosts: list[str] | None = None,
           is_ca: bool = False) -> None:
    if (dir_ / f"{stem}.crt").exists() and (dir_ / f"{stem}.key").exists():
        return
    x509, hashes, serialization, ec, eku, _ = _x509()
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(subject)
    issuer_cert, issuer_key = (None, key) if ca is None else ca
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(name)
               .issuer_name(name if issuer_cert is None else issuer_cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=VALID_DAYS * (10 if is_ca else 1)))
               .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True))
    if is_ca:
        builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False),
                                        critical=True)
    elif server_hosts is not None:
        sans = []
        for host in server_hosts:
            try:
                sans.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                sans.append(x509.DNSName(host))
        builder = (builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([eku.SERVER_AUTH]), critical=False))
    else:
        builder = builder.add_extension(x509.ExtendedKeyUsage([eku.CLIENT_AUTH]), critical=False)
    cert = builder.sign(issuer_key, hashes.SHA256())
    _write_key(dir_ / f"{stem}.key", key)
    (dir_ / f"{stem}.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def self_signed(directory: str | Path, hosts: list[str], nodes: list[str]) -> dict[str, Path]:
    """Write (or keep) the CA, the serving and client certificates; returns their paths by role."""
    x509, _, _, _, _, NameOID = _x509()
    dir_ = Path(directory)
    dir_.mkdir(parents=True, exist_ok=True)
    attr = x509.NameAttribute
    _issue(dir_, "ca", [attr(NameOID.COMMON_NAME, "kube32-ca")], None, is_ca=True)
    ca = _load(dir_, "ca")
    wanted_hosts = list(dict.fromkeys([*hosts, "localhost", "127.0.0.1", "::1"]))
    _issue(dir_, "server", [attr(NameOID.COMMON_NAME, "kube32-apiserver")], ca, server_hosts=wanted_hosts)
    _issue(dir_, "admin", [attr(NameOID.ORGANIZATION_NAME, ADMIN_GROUP), attr(NameOID.COMMON_NAME, ADMIN_CN)], ca)
    for node in nodes:
        _issue(dir_, f"node-{node}", [attr(NameOID.ORGANIZATION_NAME, "system:nodes"),
                                      attr(NameOID.COMMON_NAME, f"system:node:{node}")], ca)
    return {"ca": dir_ / "ca.crt", "cert": dir_ / "server.crt", "key": dir_ / "server.key", "dir": dir_}
