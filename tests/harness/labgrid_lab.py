"""A real labgrid lab on 127.0.0.1 for the tests: ``labgrid-coordinator`` + ``labgrid-exporter``.

``Lab(workdir)`` starts the coordinator (gRPC, on a free port) and, per ``add_rig(name, vrig)``, exports
the virtual rig's RFC2217 ports as ``NetworkSerialPort`` resources (group = place name, resource =
board name) and creates a place of that name matching them, as a lab admin would with
``labgrid-client create`` / ``add-match`` (through the same labgrid client session the rig uses, so
no ``labgrid-client`` process start-up is paid per step). ``rig_file(name, vrig)`` writes the rig file
that reaches the boards through the place instead of through URLs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from kube32.harness.lab import Coordinator, PlaceRef

EXPORTER = "k32-exporter"


def session_pb2():
    from labgrid.remote.generated import labgrid_coordinator_pb2

    return labgrid_coordinator_pb2


def serial_port(url: str) -> dict:
    """The exporter's NetworkSerialPort for an RFC2217 server's URL (as ser2net would serve a UART)."""
    return {"cls": "NetworkSerialPort", "host": "127.0.0.1", "port": int(url.rsplit(":", 1)[1]), "speed": 115200,
            "protocol": "rfc2217"}


class PowerSwitch:
    """A network power switch (PDU) for virtual boards on 127.0.0.1, speaking what labgrid's
    ``simplerest`` power backend sends: ``GET /relay/<index>/<0|1>`` switches outlet ``index`` (the
    board's supply, ``VirtualBoard.power``), ``GET /relay/<index>`` reads it. ``resource(i)`` is the
    exporter's ``NetworkPowerPort`` for outlet ``i``; ``switched`` lists every (index, on) it did."""

    def __init__(self, boards: list) -> None:
        import http.server

        switch = self
        self.boards = boards
        self.switched: list[tuple[int, bool]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:   # noqa: N802 - http.server's name
                parts = self.path.strip("/").split("/")
                if len(parts) not in (2, 3) or parts[0] != "relay" or not parts[1].isdigit() \
                        or int(parts[1]) >= len(switch.boards) or (len(parts) == 3 and parts[2] not in ("0", "1")):
                    self.send_error(404)
                    return
                board = switch.boards[int(parts[1])]
                if len(parts) == 3:
                    switch.switched.append((int(parts[1]), parts[2] == "1"))
                    board.power(parts[2] == "1")
                body = b"1" if board.powered else b"0"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def resource(self, index: int) -> dict:
        return {"cls": "NetworkPowerPort", "model": "simplerest", "index": index,
                "host": f"http://127.0.0.1:{self.server.server_address[1]}/relay/{{index}}/{{value}}"}

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    def __init__(self, workdir: Path) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.coordinator = f"127.0.0.1:{free_port()}"
        self.procs: list[subprocess.Popen] = []
        self.exports: dict[str, dict] = {}
        self.env = {**os.environ, "LG_COORDINATOR": self.coordinator}

    def _spawn(self, *args: str, log: str) -> subprocess.Popen:
        out = open(self.workdir / log, "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen([sys.executable, "-m", *args], cwd=self.workdir, stdout=out,
                                stderr=subprocess.STDOUT, env=self.env)
        self.procs.append(proc)
        return proc

    def start(self, rigs: dict[str, object], places: dict[str, dict] | None = None) -> Lab:
        """Coordinator, one exporter for every rig's boards, one place per rig; ``places`` adds places
        of hand-made resources (place -> {resource name: exporter params})."""
        self._spawn("labgrid.remote.coordinator", "-l", self.coordinator, log="coordinator.log")
        self._wait_port(self.coordinator)
        for name, vrig in rigs.items():
            self.exports[name] = {board: serial_port(server.url) for board, server in vrig.servers.items()}
        self.exports.update(places or {})
        (self.workdir / "exporter.yaml").write_text(yaml.safe_dump(self.exports))
        self._spawn("labgrid.remote.exporter", "-c", self.coordinator, "-n", EXPORTER, "--hostname", "127.0.0.1",
                    str(self.workdir / "exporter.yaml"), log="exporter.log")
        pb2 = session_pb2()
        for name in self.exports:
            self._admin(lambda stub, n=name: stub.AddPlace(pb2.AddPlaceRequest(name=n)), f"create {name}")
            self._admin(lambda stub, n=name: stub.AddPlaceMatch(pb2.AddPlaceMatchRequest(
                placename=n, pattern=f"{EXPORTER}/{n}/*")), f"add-match {name}")
        self._wait_resources(list(self.exports))
        return self

    @property
    def session(self):
        """labgrid's ClientSession with this lab's coordinator (the one the rigs of this process use)."""
        return Coordinator.at(self.coordinator).session

    def _admin(self, request, what: str) -> None:
        """``request(stub)`` on the session's loop (gRPC calls are made there), then a sync."""
        async def run():
            await request(self.session.stub)
            await self.session.sync_with_coordinator()
        Coordinator.at(self.coordinator).call(run(), what)

    def client(self, place: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "labgrid.remote.client", "-x", self.coordinator, "-p", place,
                               *args], capture_output=True, text=True, timeout=120, env=self.env)
        if check and proc.returncode != 0:
            raise RuntimeError(f"labgrid-client -p {place} {' '.join(args)}: {proc.stdout}{proc.stderr}")
        return proc

    def acquired_by(self, place: str) -> str | None:
        """Who holds the place ('host/user'), or None when it is free."""
        return Coordinator.at(self.coordinator).acquired_by(PlaceRef(self.coordinator, place))

    def rig_file(self, name: str, vrig, path: Path) -> Path:
        """The virtual rig's rig file with its boards reached through labgrid place ``name``."""
        doc = yaml.safe_load(vrig.rig_path.read_text())
        for entry in doc["boards"].values():
            entry.pop("url", None)
        doc = {"labgrid": {"coordinator": self.coordinator, "place": name}, **doc}
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        return path

    def _wait_port(self, address: str, timeout: float = 60.0) -> None:
        host, port = address.rsplit(":", 1)
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"labgrid-coordinator did not listen on {address}: "
                                       f"{(self.workdir / 'coordinator.log').read_text()[-2000:]}") from None
                time.sleep(0.2)

    def _wait_resources(self, places: list[str], timeout: float = 60.0) -> None:
        """Until the exporter has announced every board (``show`` lists a resource per board)."""
        async def announced() -> dict[str, set[str]]:
            groups = self.session.resources.get(EXPORTER, {})
            return {place: {name for name, r in groups.get(place, {}).items() if r.avail}
                    for place in places}

        deadline = time.monotonic() + timeout
        while True:
            shown = Coordinator.at(self.coordinator).call(announced(), "resources")
            if all(set(self.exports[place]) <= shown[place] for place in places):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the exporter did not announce every board: {shown}\n"
                                   f"{(self.workdir / 'exporter.log').read_text()[-2000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        with contextlib.suppress(Exception):   # the session goes first: the coordinator stops at once
            Coordinator.at(self.coordinator).close()
        for proc in reversed(self.procs):
            proc.send_signal(signal.SIGINT)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
