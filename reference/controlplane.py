"""ControlPlane: the store, the clock, the timing profile, events, admission and the loops.

The behaviour areas plug in through ``install(cp)`` functions in the modules listed in
``EXTENSIONS`` (scheduler, node lifecycle, Deployment, DaemonSet + Job, Endpoints views). Each may:
register a controller on ``cp.loops``, append to ``cp.admission``, set ``cp.scheduler``, or add a
computed read-only view to ``cp.views``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from kube32.reference.clock import ManualClock, RealClock
from kube32.reference.config import Config
from kube32.reference.controllers.loop import LoopRunner
from kube32.reference.events import EventRecorder
from kube32.reference.store import MemoryBackend, SqliteBackend, Store
from kube32.reference.store.housekeeping import Housekeeping
from kube32.spec import constants

EXTENSIONS = (
    "kube32.reference.scheduler",
    "kube32.reference.controllers.node_lifecycle",
    "kube32.reference.controllers.deployment",
    "kube32.reference.controllers.workload",
    "kube32.reference.views.endpoints",
    "kube32.reference.controllers.namespace",
)

MANUAL_CLOCK_KEY = "manualClock"

# fn(cp, resource key, new object, old object or None, "CREATE" | "UPDATE") -> None;
# mutates the new object in place or raises errors.Invalid.
Admission = Callable[["ControlPlane", str, dict, "dict | None", str], None]


class ControlPlane:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.profile = config.timing()
        backend = SqliteBackend(config.data_dir, fsync=config.fsync) if config.data_dir else MemoryBackend()
        self.clock = self._clock(config, backend)
        self.store = Store(backend, self.clock, ttls={"events": config.event_ttl})
        self.events = EventRecorder(self.store, self.clock)
        self.loops = LoopRunner(self.clock, self.store.lock, version=self._version, jumps=config.clock_jumps)
        self.loops.register(Housekeeping(self.store, on_expired=self.events.forget))
        self.admission: list[Admission] = []
        self.scheduler = None          # set by reference.scheduler.install
        self.views: dict = {}          # resource key -> computed view (list(ns), get(ns, name))
        self.started_at = self.clock.now()
        self._ensure_namespaces()
        for module in EXTENSIONS:
            importlib.import_module(module).install(self)

    @staticmethod
    def _clock(config: Config, backend) -> ManualClock | RealClock:
        """A manual clock goes on from where it stood when the server stopped (the store remembers
        it), unless ``clock_start`` says where to start."""
        if config.clock != "manual":
            return RealClock()
        saved = backend.get_meta(MANUAL_CLOCK_KEY)
        clock = ManualClock(config.clock_start if config.clock_start is not None or saved is None
                            else float(saved))
        clock.persist = lambda t: backend.set_meta(MANUAL_CLOCK_KEY, repr(t))
        clock.persist(clock.now())
        return clock

    def _ensure_namespaces(self) -> None:
        for ns in constants.DEFAULT_NAMESPACES:
            if self.store.head.peek("namespaces", "", ns) is None:
                self.store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                 "metadata": {"name": ns}, "status": {"phase": "Active"}})

    def _version(self, resources=None):
        """The store's version, or the last write to any of ``resources`` (for the loop runner)."""
        if resources is None:
            return self.store.head.resource_version
        return max((self.store.changed_at.get(r, 0) for r in resources), default=0)

    def admit(self, res: str, obj: dict, old: dict | None, operation: str) -> None:
        for fn in self.admission:
            fn(self, res, obj, old, operation)

    def start(self) -> None:
        if self.config.run_loops:
            self.loops.start()

    def stop(self) -> None:
        self.loops.stop()
        self.store.close()
