"""Simulated boards: long-lived fake kubelets on the wall clock, kwok-style.

``Fleet`` plays many boards against any kube32 API server over HTTP, as kwok plays nodes against a
kube-apiserver: each board registers its Node, renews its Lease every 5 s declaring 15 s (the
document's kubelet), admits the pods bound to it through the capability firewall, runs them (Running,
a pod IP, Ready) and then moves them through the declarative stages of ``stages.yaml``. Used by
``serve --nodes`` / ``--nodes-file`` and ``kube32-conformance nodes add``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import ApiStatusError, HarnessError, TargetUnavailable
from kube32.conformance.kubelets.fake import FakeKubelet
from kube32.conformance.targets.base import RealTargetClock
from kube32.spec import constants, firewall, profiles, timefmt

log = logging.getLogger(__name__)

POD_SYNC_INTERVAL = 1.0     # seconds between looks at the pods (admission, stages, deletions)
LOOP_INTERVAL = 0.2
# A typical ESP32-S3 module (N8R8): its two cores, free heap after boot, octal PSRAM, the peripherals it
# exposes. The scheduler ignores cpu; the board reports it as a kubelet does (kubectl describe node
# divides the pods' cpu requests by it).
S3_CAPACITY = {"cpu": "2", constants.MEMORY: "256Ki", "esp32.io/psram": "8Mi", constants.GPIO: "36",
               "esp32.io/i2c": "2", "esp32.io/uart": "3", "esp32.io/adc": "20", "esp32.io/rmt-tx": "4",
               "esp32.io/rmt-rx": "4"}
S3_LABELS = {"board": "esp32-s3"}
# GPIOs an ESP32-S3 module can give out (26-32 drive flash/PSRAM; 19/20 are USB, still usable).
S3_PINS = tuple([*range(0, 22), *range(33, 49)])


class SimulationError(HarnessError):
    """A bad nodes file, stages file or fleet request (the CLI prints it on one line)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Taint(_Strict):
    key: str
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class Board(_Strict):
    """One simulated board (an entry of a nodes file)."""
    name: str
    labels: dict[str, str] = Field(default_factory=lambda: dict(S3_LABELS))
    capacity: dict[str, str] = Field(default_factory=lambda: dict(S3_CAPACITY))
    allocatable: dict[str, str] | None = None      # free figures with nothing running (default: capacity)
    taints: list[Taint] = Field(default_factory=list)
    hardware: list[str] = Field(default_factory=list)   # hardware.kube32.io/* the board has
    pins: list[int] = Field(default_factory=lambda: list(S3_PINS))


class _NodesFile(_Strict):
    nodes: list[Board]


class Selector(_Strict):
    annotation: str | None = None
    owner_kind: str | None = Field(default=None, alias="ownerKind")

    def matches(self, pod: dict) -> tuple[bool, str | None]:
        meta = pod.get("metadata") or {}
        if self.annotation is not None:
            value = (meta.get("annotations") or {}).get(self.annotation)
            return value is not None, value
        if self.owner_kind is not None:
            return any(o.get("kind") == self.owner_kind for o in meta.get("ownerReferences") or []), None
        return True, None


class Stage(_Strict):
    name: str
    selector: Selector = Field(default_factory=Selector)
    outcome: Literal["succeed", "fail", "restart", "unready"]
    delay: float = Field(ge=0)

    def delay_for(self, pod: dict) -> float | None:
        """The stage's delay for ``pod`` (an annotation value overrides it); None: no match."""
        matched, value = self.selector.matches(pod)
        if not matched:
            return None
        if value in (None, "", "true"):
            return self.delay
        try:
            return max(0.0, float(str(value).rstrip("s")))
        except ValueError:
            return self.delay


def _load_yaml(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SimulationError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise SimulationError(f"{path}: not YAML: {str(exc).splitlines()[0]}") from None


def _first_error(path: object, exc: ValidationError) -> SimulationError:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return SimulationError(f"{path}: {where}: {err['msg']}" if where else f"{path}: {err['msg']}")


def load_stages(path: str | Path | None = None) -> list[Stage]:
    """The stage list of ``path`` (a YAML list), or the packaged default."""
    if path is None:
        data = yaml.safe_load((resources.files(__package__) / "stages.yaml").read_text(encoding="utf-8"))
        where: object = "stages.yaml"
    else:
        data, where = _load_yaml(Path(path)), path
    if not isinstance(data, list):
        raise SimulationError(f"{where}: a list of stages is expected")
    stages = []
    for i, item in enumerate(data):
        try:
            stages.append(Stage.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in (i, *err["loc"]))
            raise SimulationError(f"{where}: {field}: {err['msg']}") from None
    return stages


def load_nodes_file(path: str | Path) -> list[Board]:
    """``nodes: [...]`` of a nodes file, checked strictly (unknown keys are errors)."""
    data = _load_yaml(Path(path))
    if not isinstance(data, dict):
        raise SimulationError(f"{path}: expected a mapping `nodes: [{{name: …}}, …]`")
    try:
        boards = _NodesFile.model_validate(data).nodes
    except ValidationError as exc:
        raise _first_error(path, exc) from None
    names = [b.name for b in boards]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SimulationError(f"{path}: node names appear twice: {', '.join(dupes)}")
    return boards


def default_boards(count: int, prefix: str = "node-") -> list[Board]:
    return [Board(name=f"{prefix}{i}") for i in range(count)]


class SimulatedBoard:
    """One board: a FakeKubelet (registration, status, Lease) plus admission and stages."""

    def __init__(self, api: ApiClient, board: Board, index: int, stages: list[Stage],
                 profile: profiles.Profile) -> None:
        self.board, self.stages = board, stages
        self.kubelet = FakeKubelet(api, RealTargetClock(), board.name, profile, index)
        self.api = api
        self.registered = False

    @property
    def name(self) -> str:
        return self.board.name

    def register(self) -> None:
        b = self.board
        try:
            self.kubelet.register(capacity=b.capacity, allocatable=b.allocatable or b.capacity, labels=b.labels)
        except ApiStatusError as exc:
            if exc.code != 409:
                raise
            self.kubelet.capacity, self.kubelet.free = dict(b.capacity), dict(b.allocatable or b.capacity)
            self.kubelet.report_status()      # a board that reboots finds its Node and takes it over
            self.kubelet.renew()
        if b.taints:
            self.api.patch("Node", b.name, {"spec": {"taints": [t.model_dump(exclude_none=True) for t in b.taints]}})
        self.kubelet.next_sync = None         # pods are this class's job (one LIST for the fleet)
        self.registered = True

    def lease_tick(self, now: float) -> None:
        self.kubelet.run_due(now)

    def sync(self, pods: list[dict], now: float) -> None:
        """Admit, advance and confirm the deletion of the pods bound to this board."""
        changed = False
        running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"
                   and not p["metadata"].get("deletionTimestamp")]
        for pod in pods:
            meta, phase = pod["metadata"], (pod.get("status") or {}).get("phase", "Pending")
            name, ns = meta["name"], meta["namespace"]
            if meta.get("deletionTimestamp"):
                self.kubelet.confirm_delete(pod)
                changed = True
            elif phase == "Pending":
                why = firewall.refusal(self.board.hardware, self.board.pins, pod, running)
                if why:
                    self.kubelet.refuse_pod(name, ns, firewall.REFUSED_REASON, why)
                else:
                    stage = self._stage(pod)
                    unready = stage is not None and stage[0].outcome == "unready"
                    started = self.kubelet.start_pod(name, ns, report=False)
                    if unready:
                        self.kubelet.set_pod_ready(name, ns, False)
                    running.append(started)
                changed = True
            elif phase == "Running":
                changed |= self._advance(pod, now)
        if changed:
            self.kubelet.report_status()

    def _stage(self, pod: dict) -> tuple[Stage, float] | None:
        for stage in self.stages:
            delay = stage.delay_for(pod)
            if delay is not None:
                return stage, delay
        return None

    def _advance(self, pod: dict, now: float) -> bool:
        found = self._stage(pod)
        if found is None or found[0].outcome == "unready":
            return False
        stage, delay = found
        meta = pod["metadata"]
        started = _running_since(pod)
        if started is None:           # restarting: back to running after one sync
            self.kubelet.start_pod(meta["name"], meta["namespace"], report=False)
            return True
        if now < started + delay:
            return False
        if stage.outcome == "restart":
            self.kubelet.restart_container(meta["name"], meta["namespace"])
        else:
            self.kubelet.finish_pod(meta["name"], meta["namespace"], succeeded=stage.outcome == "succeed")
        return True


def _running_since(pod: dict) -> float | None:
    """When the pod's containers last started running (None while a container waits to restart)."""
    latest = None
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        running = (cs.get("state") or {}).get("running")
        if running is None:
            return None
        t = timefmt.parse(running.get("startedAt")) if running.get("startedAt") else None
        latest = t if latest is None or (t is not None and t > latest) else latest
    return latest


class Fleet:
    """Many simulated boards on one server, driven by one background thread."""

    def __init__(self, server: str, boards: list[Board], *, token: str | None = None,
                 stages: list[Stage] | None = None, profile: profiles.Profile | None = None,
                 certificates: str | None = None) -> None:
        """``certificates``: a ``--tls-self-signed`` directory; each board then speaks as its own
        node identity (``node-<name>.crt``), as a real kubelet does, and the fleet reads as admin."""
        self.certificates = certificates
        self.api = self._client(server, token, "admin")
        profile = profile or profiles.load("simulator")
        stages = stages if stages is not None else load_stages()
        self.boards = [SimulatedBoard(self._client(server, token, f"node-{b.name}") if certificates else self.api,
                                      b, i + 1, stages, profile) for i, b in enumerate(boards)]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_pods = 0.0

    def _client(self, server: str, token: str | None, identity: str) -> ApiClient:
        api = ApiClient(server, token=token, validate=False)
        if self.certificates:
            d = Path(self.certificates)
            api.verify = str(d / "ca.crt")
            api.cert = (str(d / f"{identity}.crt"), str(d / f"{identity}.key"))
        return api

    def start(self) -> Fleet:
        self._thread = threading.Thread(target=self._run, name="kube32-simulated-boards", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def wait(self) -> None:
        """Block until stopped (Ctrl-C raises KeyboardInterrupt here)."""
        while not self._stop.wait(0.5):
            pass

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick(time.time())
            except (TargetUnavailable, ApiStatusError) as exc:
                log.warning("simulated boards: %s (retrying)", exc)
            self._stop.wait(LOOP_INTERVAL)

    def tick(self, now: float) -> None:
        for board in list(self.boards):
            with self._retiring(board):
                if not board.registered:
                    board.register()
                    log.info("simulated board %s registered", board.name)
                board.lease_tick(now)
        if now >= self._next_pods:
            self._next_pods = now + POD_SYNC_INTERVAL
            by_node: dict[str, list[dict]] = {}
            for pod in self.api.list("Pod"):
                by_node.setdefault((pod.get("spec") or {}).get("nodeName") or "", []).append(pod)
            for board in list(self.boards):
                with self._retiring(board):
                    board.sync(by_node.get(board.name, []), now)

    @contextlib.contextmanager
    def _retiring(self, board: SimulatedBoard):
        """A board whose Node was deleted (``nodes remove``, kubectl) stops playing it, once, and says so."""
        try:
            yield
        except ApiStatusError as exc:
            if exc.code != 404 or not board.registered or self.api.try_get("Node", board.name) is not None:
                raise
            self.boards.remove(board)
            log.warning("simulated board %s: its Node was deleted, so the board stops", board.name)


def free_names(taken: set[str], count: int, prefix: str = "node-") -> list[str]:
    """The first ``count`` names ``node-<i>`` that no Node has yet."""
    out, i = [], 0
    while len(out) < count:
        if f"{prefix}{i}" not in taken:
            out.append(f"{prefix}{i}")
        i += 1
    return out


def remove_nodes(api: ApiClient, names: list[str]) -> list[str]:
    """Delete the Nodes and their Leases; the names that did not exist."""
    missing = []
    for name in names:
        try:
            api.delete("Node", name)
        except ApiStatusError as exc:
            if exc.code != 404:
                raise
            missing.append(name)
        try:
            api.delete("Lease", name, constants.NODE_LEASE_NAMESPACE)
        except ApiStatusError as exc:
            if exc.code != 404:
                raise
    return missing
