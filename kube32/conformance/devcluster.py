"""``serve`` as a development cluster: flag checks before binding, a kubeconfig, simulated boards.

``prepare(args, config)`` checks what ``serve`` was given (listen address, data directory, nodes and
stages files) and answers a bad one with one line and exit status 2; the context manager it returns
writes the kubeconfig and starts the simulated boards once the server answers, and stops them when
the server stops.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kube32.conformance import kubeconfig
from kube32.conformance.errors import ApiStatusError, TargetUnavailable

if TYPE_CHECKING:   # imported where boards are simulated: pydantic and requests cost a plain serve ~0.2 s
    from kube32.conformance.kubelets import simulated

log = logging.getLogger(__name__)
EXIT_USAGE = 2
READY_TIMEOUT = 30.0


def _fail(message: str) -> SystemExit:
    print(f"kube32-conformance serve: {message}", file=sys.stderr)
    return SystemExit(EXIT_USAGE)


def check_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise _fail(f"--listen {listen!r}: expected HOST:PORT with a port from 0 to 65535")
    host = host.strip("[]") or "127.0.0.1"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost" and not all(part.isalnum() or "-" in part for part in host.split(".")):
            raise _fail(f"--listen {listen!r}: {host!r} is not an address or host name") from None
    return host, int(port)


def _probe(url: str, verify: bool | str) -> bool:
    """Does the server answer yet? (Only a readiness probe: the boards verify with the CA.)"""
    import warnings

    import requests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # urllib3's InsecureRequestWarning for verify=False
        return requests.get(url + "/version", timeout=1, verify=verify).ok


class DevCluster:
    def __init__(self, url: str, boards: list[simulated.Board], stages: list[simulated.Stage] | None,
                 kubeconfig_path: str | None, profile) -> None:
        self.url, self.boards, self.stages, self.profile = url, boards, stages, profile
        self.kubeconfig_path = kubeconfig_path
        self.certificates: str | None = None     # a --tls-self-signed directory (https, node identities)
        self.verify: str | bool = True
        self.fleet: simulated.Fleet | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> DevCluster:
        if not self.boards and not self.kubeconfig_path:
            return self              # nothing to do once the server answers
        self._thread = threading.Thread(target=self._when_up, name="kube32-devcluster", daemon=True)
        self._thread.start()
        return self

    def _when_up(self) -> None:
        """Once the server answers: register the boards, start them, then write the kubeconfig, so
        that a kubeconfig on disk means a cluster ready to use."""
        import requests

        deadline = time.monotonic() + READY_TIMEOUT
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                if _probe(self.url, self.verify):
                    break
            except requests.RequestException:
                pass
            self._stop.wait(0.1)
        else:
            return
        if self.boards:
            from kube32.conformance.kubelets import simulated

            self.fleet = simulated.Fleet(self.url, self.boards, stages=self.stages, profile=self.profile,
                                         certificates=self.certificates)
            try:
                self.fleet.tick(time.time())
            except (TargetUnavailable, ApiStatusError) as exc:
                log.error("simulated boards could not register: %s", exc)
                return
            self.fleet.start()
            print(f"simulating {len(self.boards)} board(s): {', '.join(b.name for b in self.boards)}", flush=True)
        if self.kubeconfig_path:
            if self.certificates:
                d = Path(self.certificates).resolve()
                path = kubeconfig.write(self.kubeconfig_path, self.url, certificate_authority=str(d / "ca.crt"),
                                        client_certificate=str(d / "admin.crt"), client_key=str(d / "admin.key"))
            else:
                path = kubeconfig.write(self.kubeconfig_path, self.url)
            print(f"kubeconfig for {self.url} written to {path} (context {kubeconfig.context_name(self.url)}); "
                  f"try: kubectl --kubeconfig {path} get nodes", flush=True)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self.fleet is not None:
            self.fleet.stop()


def check_free(host: str, port: int, listen: str) -> None:
    """Fail now, in one line, when the address is taken (and before any simulated board could talk
    to whatever server holds it)."""
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the server binds
            probe.bind((host, port))
    except OSError as exc:
        raise _fail(f"cannot listen on {listen}: {exc.strerror or exc}") from None


def prepare(args: argparse.Namespace, config) -> DevCluster:
    """Every flag and file checked; the address is checked last, by the caller (``check_free``), so a
    bad flag is named even when the port is taken."""
    host, port = check_listen(args.listen)
    if args.data_dir:
        parent = Path(args.data_dir).resolve().parent
        if not parent.is_dir():
            raise _fail(f"--data-dir {args.data_dir}: the folder {parent} does not exist")
    boards: list[simulated.Board] = []
    stages = None
    if args.nodes_file or args.nodes or args.stages:
        from kube32.conformance.kubelets import simulated

        try:
            if args.nodes_file:
                boards += simulated.load_nodes_file(args.nodes_file)
            if args.nodes < 0:
                raise simulated.SimulationError(f"--nodes {args.nodes}: a count of boards is 0 or more")
            boards += simulated.default_boards(args.nodes)
            if args.stages:
                stages = simulated.load_stages(args.stages)
        except simulated.SimulationError as exc:
            raise _fail(str(exc)) from None
    if boards and args.clock == "manual":
        raise _fail("simulated boards renew their Leases on the wall clock; use them with --clock real")
    names = [b.name for b in boards]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _fail(f"node names given twice: {', '.join(dupes)}")
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return DevCluster(f"http://{shown}:{port}", boards, stages, args.kubeconfig, config.timing())
