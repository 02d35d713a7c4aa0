"""The in-process reference: a fresh control plane per scenario, on a manual clock, served over
real HTTP (the reference server on 127.0.0.1) from a temporary SQLite data dir. The only runner module that
imports the reference."""

from __future__ import annotations

import shutil
import tempfile

from kube32.conformance.client import ApiClient
from kube32.conformance.targets import base
from kube32.spec import profiles
from kube32.spec.profiles import Profile

# Every scenario starts at the same instant, so timestamps in failures are reproducible.
EPOCH = 1767225600.0  # 2026-01-01T00:00:00Z


class ReferenceTarget:
    name = "reference"
    # The reference finishes all work inside the request that caused it (creates schedule at once,
    # clock jumps run every due tick before answering): nothing to wait for on a manual clock.
    manual_settle = 0.0

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.capabilities = frozenset({base.MANUAL_CLOCK, base.RESTART, base.EXCLUSIVE_NODES,
                                       base.FAKE_KUBELETS})
        self.api = ApiClient("http://127.0.0.1:0")
        self.clock: base.TargetClock | None = None
        self._server = None
        self._data_dir: str | None = None
        self._flag_overrides: dict = {}   # set by restart_with_flags, for one scenario

    def _config(self, start: float):
        from kube32.reference.config import Config

        overrides = {k: v for k, v in self.profile.as_dict().items() if k != "name"}
        overrides.update(self._flag_overrides)
        # no fsync: restarts here stop the server cleanly, and a power cut is no scenario's concern
        # (the store's durability has its own tests); fsyncs would be most of a scenario's wall time
        return Config(data_dir=self._data_dir, listen="127.0.0.1:0", profile=self.profile.name,
                      clock="manual", clock_start=start, overrides=overrides, fsync=False)

    def _boot(self, start: float) -> None:
        from kube32.reference.serve import start_in_thread

        self._server = start_in_thread(self._config(start))
        self.api.base_url = self._server.url
        self.clock = base.ManualTargetClock(self.api)

    def start(self) -> None:
        pass

    def begin_scenario(self) -> None:
        self._flag_overrides = {}
        self._data_dir = tempfile.mkdtemp(prefix="kube32-ref-")
        self._boot(EPOCH)

    def end_scenario(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._data_dir:
            shutil.rmtree(self._data_dir, ignore_errors=True)
            self._data_dir = None

    def restart_control_plane(self) -> None:
        """Stop the control plane and start a new one on the same data dir, resuming the clock."""
        now = self.clock.now()
        clock = self.clock
        self._server.stop()
        self._boot(now)
        clock.refresh()      # keep the clock object the timeline and the kubelets already hold
        self.clock = clock

    def restart_with_flags(self, flags: dict[str, float]) -> None:
        """Restart as the simulator would with these flags (``profiles.FLAGS``: --not-ready-timeout,
        --eviction-timeout, --reconcile-interval) on the same data, clock resumed; they hold until the
        scenario ends."""
        self._flag_overrides = profiles.flag_overrides(flags)
        self.restart_control_plane()

    def stop(self) -> None:
        self.end_scenario()

    def describe(self) -> dict:
        return {"name": self.name, "kind": "in-process reference", "clock": "manual",
                "profile": self.profile.name}
