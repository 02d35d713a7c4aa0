"""Reference server configuration: where data lives, which timing profile, which clock."""

from __future__ import annotations

import dataclasses
import os

from kube32.spec import profiles


@dataclasses.dataclass
class Config:
    data_dir: str | None = None          # None: in-memory store (tests)
    listen: str = "127.0.0.1:6443"
    profile: str = "simulator"
    clock: str = "real"                  # "real" | "manual"
    clock_start: float | None = None     # manual clock start (epoch seconds)
    # Overrides of profile fields, e.g. {"reconcile_interval": 0.5, "not_ready_timeout": 4}
    overrides: dict = dataclasses.field(default_factory=dict)
    # False (serve --unsafe-no-fsync): a write is answered before it is fsynced; it survives a
    # killed process but may be lost on a power cut or OS crash.
    fsync: bool = True
    run_loops: bool = True               # False: controllers never tick (API-only unit tests)
    # seconds an Event lives after its last write (upstream's --event-ttl, one hour); 0: for ever
    event_ttl: float = 3600.0
    # serving bounds (serving.http.Limits, serving.hub): sockets at once, TLS handshakes included, and
    # the watches one identity (a user; without authentication, a client address) may hold
    max_connections: int = 4096
    max_watches_per_user: int = 1024
    # security (upstream's flags): with an authenticator, anonymous requests get 401
    token_auth_file: str | None = None
    client_ca_file: str | None = None
    tls_cert_file: str | None = None
    tls_private_key_file: str | None = None
    insecure_allow_anonymous: bool = False

    @property
    def authenticates(self) -> bool:
        return bool(self.token_auth_file or self.client_ca_file)
    # manual clock: "deadline" skips ticks that can change nothing; "tick" runs every one
    clock_jumps: str = dataclasses.field(default_factory=lambda: os.environ.get("KUBE32_CLOCK_JUMPS", "deadline"))

    def timing(self) -> profiles.Profile:
        return profiles.load(self.profile, **self.overrides)

    @property
    def host_port(self) -> tuple[str, int]:
        host, _, port = self.listen.rpartition(":")
        return host or "127.0.0.1", int(port)
