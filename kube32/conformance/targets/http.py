"""Any kube32 API server at a URL.

The clock is probed (``GET /debug/clock``: manual when it answers, real when it is 404) or forced
with ``--clock``. Scenarios share the target, so each gets its own namespace and the runner deletes
what the scenario created (nodes, leases, namespaced objects) afterwards. Nodes the runner made
itself are never taken for foreign nodes: one it could not delete is deleted again before the next
scenario, and when that fails too the scenario is an ``error``, never ``disabled``.
"""

from __future__ import annotations

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import (
    ApiStatusError,
    CapabilityMissing,
    CleanupFailed,
    HarnessError,
    TargetUnavailable,
)
from kube32.conformance.targets import base
from kube32.spec.profiles import Profile


class HttpTarget:
    name = "http"
    shared = True    # one server for every runner process that names its URL (parallel.py)

    def __init__(self, url: str, profile: Profile, token: str | None = None, clock: str = "auto",
                 request_timeout: float | None = None, access=None) -> None:
        self.url = url
        self.profile = profile
        self.timeout_kw = {"timeout": request_timeout} if request_timeout else {}
        tls = {"verify": access.verify, "cert": access.cert} if access is not None else {}
        self.api = ApiClient(url, token=token, **self.timeout_kw, **tls)
        self.node_credentials: str | None = None    # --node-credentials DIR (see credentials.py)
        self.clock_mode = clock
        self.clock_how = ""
        self.clock: base.TargetClock | None = None
        self.capabilities: frozenset[str] = frozenset()
        self.created_nodes: set[str] = set()
        self.leftover_nodes: set[str] = set()    # the runner's own nodes a cleanup could not delete
        self.foreign_nodes: list[str] = []

    def start(self) -> None:
        self.api.call("GET", "/version")
        self.clock, self.clock_how = base.choose_clock(self.api, self.clock_mode)
        caps = {base.FAKE_KUBELETS}
        if self.clock.manual:
            caps.add(base.MANUAL_CLOCK)
        self.capabilities = frozenset(caps | self._extra_capabilities())

    def _extra_capabilities(self) -> set[str]:
        return set()

    def begin_scenario(self) -> None:
        self.created_nodes = set()      # (a manual clock is read again as the scenario starts: ScenarioContext)
        if self.leftover_nodes:
            try:
                self._delete_nodes(self.leftover_nodes)
            except CleanupFailed as exc:
                raise CleanupFailed(f"nodes an earlier scenario registered are still there and could not be "
                                    f"deleted: {exc}") from None
        names = [n["metadata"]["name"] for n in self.api.list("Node")]
        self.foreign_nodes = names
        self.capabilities = (self.capabilities - {base.EXCLUSIVE_NODES}) | (
            set() if names else {base.EXCLUSIVE_NODES})

    def end_scenario(self) -> None:
        """Delete the nodes and leases the scenario's kubelets registered (namespaces go with the context)."""
        created, self.created_nodes = self.created_nodes, set()
        self.leftover_nodes |= created
        self._delete_nodes(self.leftover_nodes)

    def _delete_nodes(self, names: set[str]) -> None:
        """Delete these nodes and their leases; those that stay are named in ``CleanupFailed``."""
        problems = []
        for name in sorted(names):
            try:
                for kind, ns in (("Lease", "kube-node-lease"), ("Node", None)):
                    try:
                        self.api.delete(kind, name, ns, idempotent=True)
                    except ApiStatusError as exc:
                        if exc.code != 404:
                            raise
            except TargetUnavailable:
                raise               # the cause, not a leftover (the nodes stay in leftover_nodes)
            except (ApiStatusError, HarnessError) as exc:
                problems.append(f"node {name}: {exc}")
            else:
                names.discard(name)
        if problems:
            raise CleanupFailed("; ".join(problems))

    def restart_control_plane(self) -> None:
        raise CapabilityMissing(f"target {self.url} cannot be restarted by the runner")

    def stop(self) -> None:
        pass

    def describe(self) -> dict:
        return {"name": self.name, "url": self.url, "clock": "manual" if self.clock and self.clock.manual
                else "real", "clock_choice": {"mode": self.clock_mode, "how": self.clock_how},
                "profile": self.profile.name}
