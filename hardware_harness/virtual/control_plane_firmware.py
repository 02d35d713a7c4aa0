"""Control-plane firmware model: the reference server stands in for the kube32 control plane.

Boot starts ``reference.serve.start_in_thread(config)`` and logs
``I (ms) kube32: api listening on http://127.0.0.1:PORT``; a reset, hold or crash stops it. A reboot
starts it again on the same data dir and the same port, so nodes keep their API URL.
With ``pki`` (a directory as ``serve --tls-self-signed`` writes it) it serves https with
``server.crt``/``server.key`` and accepts client certificates signed by ``ca.crt``: authentication
and node authorisation are on, so each node board must speak as its own node.
"""

from __future__ import annotations

from pathlib import Path

from .firmware import BoardIO, Firmware


class ControlPlaneFirmware(Firmware):
    """Runs the reference control plane while the board is up."""

    tick_interval = 0.1

    def __init__(
        self,
        data_dir: str | Path,
        *,
        profile: str = "hardware",
        overrides: dict | None = None,
        listen: str = "127.0.0.1:0",
        pki: str | Path | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.profile = profile
        self.overrides = dict(overrides or {})
        self.listen = listen
        self.pki = Path(pki) if pki is not None else None
        self.handle = None
        self.url: str | None = None
        self.starts = 0

    def setup(self, io: BoardIO) -> None:
        from kube32.reference.config import Config
        from kube32.reference.serve import start_in_thread

        self.data_dir.mkdir(parents=True, exist_ok=True)
        config = Config(
            data_dir=str(self.data_dir), listen=self.listen, profile=self.profile, clock="real", overrides=self.overrides
        )
        ssl_context = None
        if self.pki is not None:
            from kube32.reference.auth import tls

            config.tls_cert_file, config.tls_private_key_file = str(self.pki / "server.crt"), str(self.pki / "server.key")
            config.client_ca_file = str(self.pki / "ca.crt")
            ssl_context = tls.server_context(config.tls_cert_file, config.tls_private_key_file, config.client_ca_file)
        self.handle = start_in_thread(config, ssl_context=ssl_context)
        self.url = self.handle.url
        self.listen = self.url.split("://", 1)[1]  # keep the port across reboots
        self.starts += 1
        io.log("I", "kube32", f"api listening on {self.url}")

    def teardown(self) -> None:
        handle, self.handle = self.handle, None
        if handle is None:
            return
        handle.stop()
