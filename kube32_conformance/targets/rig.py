"""A hardware (or virtual) rig as a conformance target: ``--target rig:FILE``.

Adapts ``hardware_harness.rig.Rig``: start resets every board and waits for the API and the real
kubelets; each scenario gets a console mark, and its console output per board is kept in
``last_logs`` (``{board: text}``) after ``end_scenario``; a board crash during a scenario fails it.
"""

from __future__ import annotations

from hardware_harness.rig import Rig
from kube32_conformance.client import ApiClient
from kube32_conformance.targets import base
from kube32_conformance.targets.http import HttpTarget
from spec.profiles import Profile


class RigTarget(HttpTarget):
    name = "rig"

    def __init__(self, rig_file: str, profile: Profile, log_dir: str | None = None) -> None:
        self.rig_file = rig_file
        self.rig = Rig.open(rig_file, log_dir=log_dir)
        self._mark = None
        self.last_logs: dict[str, str] = {}
        super().__init__("", profile)

    def start(self) -> None:
        self.url = self.rig.start()
        self.api = ApiClient(self.url)
        super().start()

    def _extra_capabilities(self) -> set[str]:
        return {base.RESTART, base.REAL_KUBELET}

    def begin_scenario(self) -> None:
        self.rig.check()
        self._mark = self.rig.mark()
        super().begin_scenario()

    def end_scenario(self) -> None:
        if self._mark is not None:
            self.last_logs = self.rig.scenario_logs(self._mark)
        super().end_scenario()
        self.rig.check()

    def restart_control_plane(self) -> None:
        url = self.rig.restart_control_plane()
        if url != self.url:
            self.url = url
            self.api = ApiClient(url)

    def hold(self, node: str) -> None:
        """Hold a node's board in reset (it stops renewing its Lease)."""
        self.rig.hold(node)

    def release(self, node: str) -> None:
        self.rig.release(node)

    def stop(self) -> None:
        self.rig.close()

    def describe(self) -> dict:
        return {**super().describe(), "rig_file": self.rig_file,
                "boards": {name: spec.port.url for name, spec in self.rig.specs.items()}}
