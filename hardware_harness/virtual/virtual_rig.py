"""VirtualRig: N virtual boards behind RFC2217 servers (or vboard://) plus the rig YAML for them.

    with VirtualRig(tmp_path, nodes=["node-a", "node-b"]) as vrig:
        rig = Rig.open(vrig.rig_path); rig.start()

The control-plane board runs the reference (``ControlPlaneFirmware``); node boards run the
virtual kubelet (``NodeFirmware``) against the control plane's URL. With ``control_plane=False``
the nodes get ``api_url`` (any kube32 API) and the rig file names it as a fixed URL.
With ``pki`` (a directory as ``serve --tls-self-signed`` writes it) every node board speaks as its
own node: ``node-<name>.crt``/``.key`` (``system:node:<name>`` in ``system:nodes``), trusting
``ca.crt``. A virtual control plane then makes the directory (CA, serving certificate, admin and
node certificates, kept when present) and serves https with node authorisation on.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .board import VirtualBoard
from .firmware import Firmware, IdleFirmware
from .rfc2217_server import Rfc2217Server


class VirtualRig:
    """Start virtual boards and write a rig file that reaches them like real hardware."""

    def __init__(
        self,
        workdir: str | Path,
        nodes: list[str] | tuple[str, ...] = ("node-a",),
        *,
        transport: str = "rfc2217",
        control_plane: bool = True,
        api_url: str | None = None,
        profile: str = "hardware",
        overrides: dict | None = None,
        lease_interval: float | None = None,
        lease_duration: float | None = None,
        prefix: str = "",
        node_firmware: dict[str, Firmware] | None = None,
        timeouts: dict | None = None,
        rig_path: str | Path | None = None,
        pki: str | Path | None = None,
    ) -> None:
        if transport not in ("rfc2217", "vboard"):
            raise ValueError(f"transport must be rfc2217 or vboard, got {transport!r}")
        if not control_plane and not api_url:
            raise ValueError("without a virtual control plane, give api_url of the control plane to use")
        if pki is not None and not control_plane:
            missing = [f"node-{n}.crt" for n in nodes if not (Path(pki) / f"node-{n}.crt").is_file()]
            if missing:
                raise ValueError(f"{pki}: no {', '.join(missing)} (serve --tls-self-signed DIR --node-identity NAME)")
        self.workdir = Path(workdir)
        self.node_names = list(nodes)
        self.transport = transport
        self.with_control_plane = control_plane
        self.api_url = api_url
        self.profile = profile
        self.overrides = dict(overrides or {})
        self.lease_interval = lease_interval
        self.lease_duration = lease_duration
        self.prefix = prefix
        self.node_firmware = dict(node_firmware or {})
        self.timeouts = timeouts
        self.boards: dict[str, VirtualBoard] = {}
        self.servers: dict[str, Rfc2217Server] = {}
        self.rig_path = Path(rig_path) if rig_path else self.workdir / "rig.yaml"
        self.pki = Path(pki) if pki is not None else None

    @property
    def cp_board(self) -> str:
        return f"{self.prefix}cp"

    def board_name(self, node: str) -> str:
        return f"{self.prefix}{node}"

    def start(self) -> VirtualRig:
        self.workdir.mkdir(parents=True, exist_ok=True)
        entries: dict[str, dict] = {}
        if self.with_control_plane:
            from .control_plane_firmware import ControlPlaneFirmware

            if self.pki is not None:
                from kube32.reference.auth import tls

                tls.self_signed(self.pki, [], self.node_names)
            fw = ControlPlaneFirmware(self.workdir / "cp-data", profile=self.profile, overrides=self.overrides,
                                      pki=self.pki)
            self._add(self.cp_board, fw)
            self._boot_control_plane(fw)
            entries[self.cp_board] = {
                "url": self._url(self.cp_board),
                "role": "control-plane",
                "api_url": {"pattern": r"kube32: api listening on (https?://\S+)"},
            }
        else:
            entries["cp"] = {"url": "loop://", "role": "control-plane", "api_url": {"fixed": self.api_url}, "reset": "none"}
        for node in self.node_names:
            fw = self.node_firmware.get(node) or self._kubelet(node)
            self._add(self.board_name(node), fw)
            entries[self.board_name(node)] = {"url": self._url(self.board_name(node)), "role": "node", "node_name": node}
        self._wait_powered_up()
        doc: dict = {"profile": self.profile, "boards": entries}
        if self.overrides:
            doc["profile_set"] = {k: float(v) for k, v in self.overrides.items()}
        if self.timeouts:
            doc["timeouts"] = self.timeouts
        self.rig_path.parent.mkdir(parents=True, exist_ok=True)
        self.rig_path.write_text(yaml.safe_dump(doc, sort_keys=False))
        return self

    def _boot_control_plane(self, fw) -> None:
        """Learn the control plane's URL before the nodes need it (the board boots on power-up)."""
        import time

        deadline = time.monotonic() + 30
        while fw.url is None:
            if time.monotonic() > deadline:
                raise TimeoutError("the virtual control plane did not start within 30 s")
            time.sleep(0.02)
        self.api_url = fw.url

    def _wait_powered_up(self, timeout: float = 10.0) -> None:
        """Boards are 'already on' when the rig opens them: their power-up boot has happened."""
        import time

        deadline = time.monotonic() + timeout
        while any(b.state != "running" for b in self.boards.values()) and time.monotonic() < deadline:
            time.sleep(0.02)

    def _kubelet(self, node: str) -> Firmware:
        try:
            from .node_firmware import NodeFirmware
        except ImportError:  # pragma: no cover - spec or requests missing
            return IdleFirmware()
        kwargs = {}
        if self.lease_interval is not None:
            kwargs["lease_interval"] = self.lease_interval
        if self.lease_duration is not None:
            kwargs["lease_duration"] = self.lease_duration
        if self.pki is not None:
            kwargs["ca_file"] = str(self.pki / "ca.crt")
            kwargs["client_cert"] = (str(self.pki / f"node-{node}.crt"), str(self.pki / f"node-{node}.key"))
        return NodeFirmware(node, self.api_url or "", **kwargs)

    def _add(self, name: str, firmware: Firmware) -> None:
        board = VirtualBoard(name, firmware).start()
        self.boards[name] = board
        if self.transport == "rfc2217":
            self.servers[name] = Rfc2217Server(f"vboard://{name}").start()

    def _url(self, name: str) -> str:
        return self.servers[name].url if self.transport == "rfc2217" else f"vboard://{name}"

    def board(self, node_or_board: str) -> VirtualBoard:
        return self.boards.get(node_or_board) or self.boards[self.board_name(node_or_board)]

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()
        for board in self.boards.values():
            board.shutdown()

    def __enter__(self) -> VirtualRig:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
