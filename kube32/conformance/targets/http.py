"""Any kube32 API server at a URL.

Capabilities are detected: a manual clock when ``GET /debug/clock`` answers, otherwise real time
with the declared profile. Scenarios share the target, so each gets its own namespace and the
runner deletes what the scenario created (nodes, leases, namespaced objects) afterwards.
"""

from __future__ import annotations

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import ApiStatusError
from kube32.conformance.targets import base
from kube32.spec.profiles import Profile

RUNNER_LABEL = "conformance.kube32.io/scenario"


class HttpTarget:
    name = "http"

    def __init__(self, url: str, profile: Profile, token: str | None = None) -> None:
        self.url = url
        self.profile = profile
        self.api = ApiClient(url, token=token)
        self.clock: base.TargetClock | None = None
        self.capabilities: frozenset[str] = frozenset()
        self.created_nodes: set[str] = set()

    def start(self) -> None:
        self.api.call("GET", "/version")
        self.clock = base.detect_clock(self.api)
        caps = {base.FAKE_KUBELETS}
        if self.clock.manual:
            caps.add(base.MANUAL_CLOCK)
        self.capabilities = frozenset(caps | self._extra_capabilities())

    def _extra_capabilities(self) -> set[str]:
        return set()

    def begin_scenario(self) -> None:
        self.created_nodes = set()
        if isinstance(self.clock, base.ManualTargetClock):
            self.clock.refresh()
        foreign = [n["metadata"]["name"] for n in self.api.list("Node")]
        self.foreign_nodes = foreign
        self.capabilities = (self.capabilities - {base.EXCLUSIVE_NODES}) | (
            set() if foreign else {base.EXCLUSIVE_NODES})

    def end_scenario(self) -> None:
        """Delete the nodes and leases the scenario's kubelets registered (namespaces go with the context)."""
        for name in sorted(self.created_nodes):
            for kind, ns in (("Lease", "kube-node-lease"), ("Node", None)):
                try:
                    self.api.delete(kind, name, ns)
                except ApiStatusError as exc:
                    if exc.code != 404:
                        raise
        self.created_nodes = set()

    def restart_control_plane(self) -> None:
        from kube32.conformance.errors import CapabilityMissing

        raise CapabilityMissing(f"target {self.url} cannot be restarted by the runner")

    def stop(self) -> None:
        pass

    def describe(self) -> dict:
        return {"name": self.name, "url": self.url, "clock": "manual" if self.clock and self.clock.manual
                else "real", "profile": self.profile.name}
