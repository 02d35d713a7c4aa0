"""``serve``'s security flags: authenticators, TLS, ``--tls-self-signed`` and the safe default.

``prepare(args, config)`` fills the config's security fields, refuses to put an unauthenticated
server on a non-loopback address unless ``--insecure-allow-anonymous`` says so, writes the
self-signed material and a kubeconfig per identity, and returns the TLS context (None: plain HTTP).
Problems are one line and exit status 2.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import ssl
import sys

from kube32.conformance import kubeconfig

EXIT_USAGE = 2


def _fail(message: str) -> SystemExit:
    print(f"kube32-conformance serve: {message}", file=sys.stderr)
    return SystemExit(EXIT_USAGE)


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--token-auth-file", metavar="FILE",
                   help='static tokens, kube-apiserver format: token,user,uid,"group1,group2"')
    p.add_argument("--client-ca-file", metavar="FILE", help="accept client certificates signed by this CA "
                   "(CN = user, O = groups); needs TLS")
    p.add_argument("--tls-cert-file", metavar="FILE", help="serve https with this certificate")
    p.add_argument("--tls-private-key-file", metavar="FILE", help="the private key of --tls-cert-file")
    p.add_argument("--tls-self-signed", metavar="DIR", help="make (or reuse) a CA, a serving certificate and "
                   "client certificates in DIR, serve https and write DIR/admin.kubeconfig and one "
                   "DIR/node-NAME.kubeconfig per --node-identity and simulated board")
    p.add_argument("--node-identity", action="append", default=[], metavar="NAME",
                   help="with --tls-self-signed: also make a certificate and kubeconfig for node NAME")
    p.add_argument("--insecure-allow-anonymous", action="store_true",
                   help="allow listening on a non-loopback address with no authenticator (anyone may do anything)")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serving_names(host: str) -> list[str]:
    """The names a self-signed serving certificate is valid for besides localhost and 127.0.0.1: the
    listen address, or for a wildcard one this machine's hostname and addresses, so boards and
    kubectl on the bench network can verify it (kube-apiserver adds its advertise address)."""
    if host not in ("0.0.0.0", "::", ""):
        return [host]
    names = [socket.gethostname(), socket.getfqdn()]
    try:
        names += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)]
    except OSError:
        pass
    try:   # the address of the default route (a UDP connect sends nothing)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            names.append(probe.getsockname()[0])
    except OSError:
        pass
    return [n for n in dict.fromkeys(names) if n and "%" not in n]


def prepare(args: argparse.Namespace, config, host: str, port: int, node_names: list[str]) -> ssl.SSLContext | None:
    from kube32.reference.auth import tls, tokens

    if args.tls_self_signed:
        if args.tls_cert_file or args.tls_private_key_file:
            raise _fail("--tls-self-signed makes its own certificate: drop --tls-cert-file/--tls-private-key-file")
        hosts = serving_names(host)
        try:
            made = tls.self_signed(args.tls_self_signed, hosts, [*args.node_identity, *node_names])
        except OSError as exc:
            raise _fail(f"--tls-self-signed {args.tls_self_signed}: {exc.strerror or exc}") from None
        config.tls_cert_file, config.tls_private_key_file = str(made["cert"]), str(made["key"])
        config.client_ca_file = args.client_ca_file or str(made["ca"])
    else:
        config.tls_cert_file, config.tls_private_key_file = args.tls_cert_file, args.tls_private_key_file
        config.client_ca_file = args.client_ca_file
        if bool(args.tls_cert_file) != bool(args.tls_private_key_file):
            raise _fail("--tls-cert-file and --tls-private-key-file go together")
        if args.client_ca_file and not args.tls_cert_file:
            raise _fail("--client-ca-file needs TLS (--tls-cert-file or --tls-self-signed)")
    config.token_auth_file = args.token_auth_file
    if args.token_auth_file:
        try:
            tokens.load(args.token_auth_file)
        except tokens.TokenFileError as exc:
            raise _fail(str(exc)) from None
    config.insecure_allow_anonymous = args.insecure_allow_anonymous
    if not _loopback(host) and not config.authenticates and not args.insecure_allow_anonymous:
        raise _fail(f"refusing to serve {host} with no authenticator: anyone who can reach it could change "
                    "anything; give --token-auth-file or --tls-self-signed (or --insecure-allow-anonymous)")
    if not config.tls_cert_file:
        return None
    try:
        ctx = tls.server_context(config.tls_cert_file, config.tls_private_key_file, config.client_ca_file)
    except tls.TlsError as exc:
        raise _fail(str(exc)) from None
    if args.tls_self_signed:
        _write_kubeconfigs(args.tls_self_signed, host, port, [*args.node_identity, *node_names])
    return ctx


def server_url(host: str, port: int, https: bool) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host)
    shown = f"[{shown}]" if ":" in shown else shown
    return f"{'https' if https else 'http'}://{shown}:{port}"


def _write_kubeconfigs(directory: str, host: str, port: int, nodes: list[str]) -> None:
    from pathlib import Path

    d = Path(directory).resolve()
    url = server_url(host, port, True)
    kubeconfig.write(d / "admin.kubeconfig", url, user="admin", certificate_authority=str(d / "ca.crt"),
                     client_certificate=str(d / "admin.crt"), client_key=str(d / "admin.key"))
    for node in nodes:
        kubeconfig.write(d / f"node-{node}.kubeconfig", url, user=f"node-{node}",
                         certificate_authority=str(d / "ca.crt"), client_certificate=str(d / f"node-{node}.crt"),
                         client_key=str(d / f"node-{node}.key"))
    print(f"https on {url}: kubectl --kubeconfig {d / 'admin.kubeconfig'} get nodes", flush=True)
