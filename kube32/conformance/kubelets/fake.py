"""FakeKubelet: a kube32 node played by the runner over the target's HTTP API (kwok-style).

It registers its Node, writes the node status the way a kube32 kubelet does (free figures that
already subtract the pods it runs), renews its Lease in kube-node-lease every
``profile.lease_renew_interval`` seconds of target time, reports pod status (Running/Ready/podIP,
Succeeded, Failed, container restarts) when a step asks, and confirms the deletion of terminating
pods at its next sync. A silenced kubelet writes nothing at all -- no lease, no node status, no
pod status, whatever a step asks: that is "the node goes silent" (a scenario that needs a silent
node to act must say so; asking one to write is a harness error).

Requests: a sync that finds work syncs again a second later; one that finds nothing waits for the
next renewal -- or, when the target cannot change this node's pods by itself (``pods_move_alone``
False: no workload controller has anything to do), for the next write of the runner's (``wake``).
A renewal writes the Lease it last wrote (one PUT) and a status report the Node it last wrote,
reading again only after a conflict; a sync's status report counts the pods the sync listed.
"""

from __future__ import annotations

import copy
import threading
from fractions import Fraction

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import ApiStatusError, HarnessError
from kube32.spec import constants, quantities, timefmt
from kube32.spec.profiles import Profile

SYNC_INTERVAL = 1.0          # seconds of target time between pod syncs (terminating pods, auto-start)
LEASE_WRITE_ATTEMPTS = 3     # a renewal read again and written over a 409 Conflict, as a kubelet retries
HOSTNAME_LABEL = constants.HOSTNAME_LABEL
MEASURED = (constants.MEMORY, *constants.PSRAM_RESOURCES, constants.GPIO)  # what a kubelet measures
WRITE_RETRIES = 5


def pod_requests(pod: dict) -> dict[str, Fraction]:
    """What a pod takes from its node, as a kube32 kubelet measures it: per container requests,
    else limits; a pod that declares no memory at all takes the document's 16 KiB default."""
    total: dict[str, Fraction] = {}
    declared_memory = False
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for name in set(req) | set(lim):
            value = req.get(name, lim.get(name))
            total[name] = total.get(name, Fraction(0)) + quantities.parse(value)
            declared_memory |= name == constants.MEMORY
    if not declared_memory:
        total[constants.MEMORY] = total.get(constants.MEMORY, Fraction(0)) + constants.DEFAULT_POD_MEMORY
    return total


def _fmt(value: Fraction, like: str = "") -> str:
    """``value`` as a quantity string, in the binary-suffix form when ``like`` (the figure it came
    from) had one, as upstream's Quantity arithmetic keeps the format of its operand: 192Ki - 16Ki is
    176Ki, not 180224."""
    if value.denominator != 1:
        return f"{int(value * 1000)}m"
    n = value.numerator
    if like.rstrip().endswith(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")) and n:
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            unit = 1024 ** ("KMGTPE".index(suffix[0]) + 1)
            if n % unit == 0:
                return f"{n // unit}{suffix}"
    return str(n)


class FakeKubelet:
    def __init__(self, api: ApiClient, clock, name: str, profile: Profile, index: int,
                 lease_duration: float | None = None) -> None:
        self.api, self.clock, self.name, self.profile, self.index = api, clock, name, profile, index
        self.lease_duration = lease_duration if lease_duration is not None else profile.lease_duration
        self.silenced = False
        self.hold_terminating = False     # keep terminating pods (not confirming their deletion)
        self.auto_start = False           # start pods bound to this node at each sync
        self.capacity: dict[str, str] = {}
        self.free: dict[str, str] = {}    # allocatable with nothing running
        self.ready = "True"
        self.next_renew: float | None = None
        self.renewed_at: float | None = None   # the renewTime this kubelet last wrote
        self.pods_move_alone = True              # the target may start/stop this node's pods by itself
        self._lease: dict | None = None          # the Lease as last written (its resourceVersion)
        self._node: dict | None = None           # the Node as last written (status PUTs go over it)
        self.next_sync: float | None = None
        self._ips = 0
        self.lock = threading.RLock()
        self.fence_labels: dict[str, str] = {}   # labels a scenario sharing the target puts on its nodes

    # -- registration and reports ---------------------------------------------------------
    def register(self, *, capacity: dict[str, str], allocatable: dict[str, str], labels: dict[str, str],
                 with_status: bool = True, unschedulable: bool = False, ready: str = "True") -> dict:
        self.capacity, self.free, self.ready = dict(capacity), dict(allocatable), ready
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": self.name, "labels": {HOSTNAME_LABEL: self.name, **labels,
                                                           **self.fence_labels}},
                "spec": {"unschedulable": True} if unschedulable else {}}
        if with_status:      # registered with its status, as upstream's kubelet does (nothing runs yet)
            node["status"] = self.node_status(pods=[])
        created = self._node = self.api.create(node)
        if with_status:
            kept = created.get("status") or {}
            if kept.get("allocatable") != node["status"]["allocatable"] or \
                    _ready(kept) != self.ready:             # a server that drops status on create
                created = self.report_status(pods=[])
            self.renew()
            now = self.clock.now()
            self.next_sync = now + SYNC_INTERVAL
        return created

    def _pods(self) -> list[dict]:
        return self.api.list("Pod", None, fields=f"spec.nodeName={self.name}")

    def node_status(self, pods: list[dict] | None = None) -> dict:
        """``pods``: this node's pods as the caller knows them already (else they are listed)."""
        used: dict[str, Fraction] = {}
        running = [p for p in (self._pods() if pods is None else pods)
                   if (p.get("status") or {}).get("phase") == "Running"
                   and not _waiting(p) and not p["metadata"].get("deletionTimestamp")]
        for pod in running:
            for name, value in pod_requests(pod).items():
                if name in MEASURED:
                    used[name] = used.get(name, Fraction(0)) + value
        allocatable = {}
        for name, value in self.free.items():
            if name in used:
                allocatable[name] = _fmt(max(quantities.parse(value) - used[name], Fraction(0)), like=value)
            else:
                allocatable[name] = value
        now = timefmt.rfc3339(self.clock.now())
        return {
            "capacity": dict(self.capacity),
            "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": self.ready,
                            "reason": "KubeletReady" if self.ready == "True" else "KubeletNotReady",
                            "message": "kube32 fake kubelet is posting ready status" if self.ready == "True"
                            else "kube32 fake kubelet reports not ready",
                            "lastHeartbeatTime": now, "lastTransitionTime": now}],
            "addresses": [{"type": "InternalIP", "address": f"10.32.{self.index}.1"},
                          {"type": "Hostname", "address": self.name}],
            "nodeInfo": {"kubeletVersion": "v1.33.0-kube32-fake", "kubeProxyVersion": "",
                         "architecture": "xtensa", "operatingSystem": "esp-idf",
                         "osImage": "kube32 fake kubelet", "kernelVersion": "esp-idf",
                         "containerRuntimeVersion": "kube32://fake", "machineID": self._machine_id(),
                         "systemUUID": self._machine_id(), "bootID": self._machine_id()},
        }

    def _machine_id(self) -> str:
        """A stable 32-hex-digit id per node name (what /etc/machine-id holds upstream)."""
        import hashlib

        return hashlib.md5(self.name.encode(), usedforsecurity=False).hexdigest()

    def report_status(self, pods: list[dict] | None = None) -> dict:
        """Write the node status (a kubelet status report) over the Node as this kubelet last wrote
        it; read again and retried on conflicts."""
        status = self.node_status(pods)
        self._node = self._write("Node", self.name, None, lambda obj: obj.__setitem__("status", status),
                                 known=self._node)
        return self._node

    def _speak(self, what: str) -> None:
        """A silent node writes nothing: a scenario that needs it to must resume it first."""
        if self.silenced:
            raise HarnessError(f"node {self.name} is silent (it stopped renewing its lease) and cannot {what}; "
                               "a scenario that needs a silent node to act must say so")

    def renew(self) -> dict:
        """Write renewTime = now. Steps and (on a real clock) the kubelet thread both renew, so the
        write is serialised by the kubelet's lock."""
        with self.lock:
            now = self.clock.now()
            spec = {"holderIdentity": self.name, "leaseDurationSeconds": int(self.lease_duration),
                    "renewTime": timefmt.rfc3339_micro(now)}
            result = None
            if self._lease is not None:      # the usual case: one PUT over what this kubelet wrote
                lease = {**self._lease, "spec": {**(self._lease.get("spec") or {}), **spec}}
                try:
                    result = self.api.update(lease)
                except ApiStatusError as exc:
                    if exc.code not in (404, 409):
                        raise
            if result is None and self._lease is None:     # the first renewal creates it
                try:
                    result = self.api.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                              "metadata": {"name": self.name,
                                                           "namespace": constants.NODE_LEASE_NAMESPACE},
                                              "spec": {**spec, "acquireTime": spec["renewTime"]}})
                except ApiStatusError as exc:
                    if exc.code != 409:
                        raise
            for attempt in range(LEASE_WRITE_ATTEMPTS if result is None else 0):   # someone else's copy:
                lease = self.api.get("Lease", self.name, constants.NODE_LEASE_NAMESPACE)   # read, then write
                lease["spec"] = {**(lease.get("spec") or {}), **spec}
                try:
                    result = self.api.update(lease)
                    break
                except ApiStatusError as exc:    # written again in between (e.g. a write the restart cut off)
                    if exc.code != 409 or attempt == LEASE_WRITE_ATTEMPTS - 1:
                        raise
            self._lease = result
            self.next_renew = now + self.profile.lease_renew_interval
            self.renewed_at = now
            return result

    # -- time -----------------------------------------------------------------------------
    def due(self) -> float | None:
        if self.silenced or self.next_renew is None:
            return None
        return min(t for t in (self.next_renew, self.next_sync) if t is not None)

    def sync_due(self, now: float) -> bool:
        return not self.silenced and self.next_sync is not None and self.next_sync <= now + 1e-9

    def run_due(self, now: float, pods: list[dict] | None = None) -> None:
        """Renew and sync if due; ``pods``: this node's pods when the caller listed them already."""
        with self.lock:
            if self.silenced:
                return
            if self.next_renew is not None and self.next_renew <= now + 1e-9:
                self.renew()
            if self.sync_due(now):
                if self.sync_pods(pods) or self.auto_start:
                    self.next_sync = now + SYNC_INTERVAL
                else:                                 # quiet: at the next renewal, or when woken
                    self.next_sync = self.next_renew if self.pods_move_alone else None

    def wake(self) -> None:
        """Something may have changed on this node: sync again within a second."""
        with self.lock:
            if self.next_renew is None:               # never reported status: no kubelet runs
                return
            soon = self.clock.now() + SYNC_INTERVAL
            self.next_sync = soon if self.next_sync is None else min(self.next_sync, soon)

    def silence(self) -> None:
        with self.lock:
            self.silenced = True

    def resume(self) -> None:
        with self.lock:
            self.silenced = False
            self.renew()
            self.next_sync = self.clock.now() + SYNC_INTERVAL

    def sync_pods(self, pods: list[dict] | None = None) -> bool:
        """Confirm terminating pods' deletion, start pending ones (auto_start); True when it acted."""
        changed = False
        now_on_node = []          # the node's pods after this sync (its status report counts them)
        for pod in self._pods() if pods is None else pods:
            meta = pod["metadata"]
            if meta.get("deletionTimestamp") and not self.hold_terminating:
                self._confirm_delete(pod)
                changed = True
                continue
            if self.auto_start and not meta.get("deletionTimestamp") and \
                    (pod.get("status") or {}).get("phase", "Pending") == "Pending":
                pod = self._write("Pod", meta["name"], meta["namespace"],
                                  lambda p: self._pod_status(p, "Running", True), known=pod)
                changed = True
            now_on_node.append(pod)
        if changed:
            self.report_status(now_on_node)
        return changed

    def refuse_pod(self, name: str, namespace: str, reason: str, message: str) -> dict:
        """Admission refused (the capability firewall): phase Failed with the reason, as a kubelet does."""
        def mutate(p: dict) -> None:
            p["status"] = {**(p.get("status") or {}), "phase": "Failed", "reason": reason, "message": message}
        return self._write("Pod", name, namespace, mutate)

    def confirm_delete(self, pod: dict) -> None:
        self._confirm_delete(pod)

    def _confirm_delete(self, pod: dict) -> None:
        try:
            self.api.delete("Pod", pod["metadata"]["name"], pod["metadata"]["namespace"], grace=0)
        except ApiStatusError as exc:
            if exc.code != 404:
                raise

    # -- pod status reports ---------------------------------------------------------------
    def _write(self, kind: str, name: str, namespace: str | None, mutate, known: dict | None = None) -> dict:
        """PUT the status ``mutate`` makes; over ``known`` (the object as last seen) when given, else
        over a fresh read. Conflicts read again, up to WRITE_RETRIES times."""
        self._speak(f"write {kind} {name} status")
        with self.lock:
            return self._write_retrying(kind, name, namespace, mutate, known)

    def _write_retrying(self, kind: str, name: str, namespace: str | None, mutate, known: dict | None) -> dict:
        last: Exception | None = None
        for attempt in range(WRITE_RETRIES):
            obj = copy.deepcopy(known) if attempt == 0 and known is not None else self.api.get(kind, name, namespace)
            mutate(obj)
            try:
                return self.api.update(obj, sub="status")
            except ApiStatusError as exc:
                if exc.code != 409:
                    raise
                last = exc
        raise AssertionError(f"could not write {kind} {name} status after {WRITE_RETRIES} conflicts: {last}")

    def _pod_status(self, pod: dict, phase: str, ready: bool, **container) -> None:
        now = timefmt.rfc3339(self.clock.now())
        status = pod.setdefault("status", {})
        if not status.get("podIP"):
            self._ips += 1
            status["podIP"] = f"10.32.{self.index}.{self._ips + 1}"
            status["podIPs"] = [{"ip": status["podIP"]}]
        status["hostIP"] = f"10.32.{self.index}.1"
        status["phase"] = phase
        status.pop("reason", None)
        status.setdefault("startTime", now)
        conditions = {c["type"]: c for c in status.get("conditions") or []}
        flag = "True" if ready else "False"
        for ctype, value in (("Initialized", "True"), ("Ready", flag), ("ContainersReady", flag)):
            old = conditions.get(ctype)
            if old is None or old.get("status") != value:
                conditions[ctype] = {"type": ctype, "status": value, "lastTransitionTime": now}
        status["conditions"] = list(conditions.values())
        previous = {c["name"]: c for c in status.get("containerStatuses") or []}
        statuses = []
        for c in (pod.get("spec") or {}).get("containers") or []:
            prev = previous.get(c["name"], {})
            cs = {"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": ready,
                  "restartCount": prev.get("restartCount", 0), "started": phase == "Running",
                  "state": {"running": {"startedAt": now}}}
            cs.update(container)
            statuses.append(cs)
        status["containerStatuses"] = statuses

    # ``known``: the pod as the caller last saw it (its resourceVersion); saves a read when current
    def start_pod(self, name: str, namespace: str, report: bool = True, known: dict | None = None) -> dict:
        pod = self._write("Pod", name, namespace, lambda p: self._pod_status(p, "Running", True), known)
        if report:
            self.report_status()
        return pod

    def set_pod_ready(self, name: str, namespace: str, ready: bool, known: dict | None = None) -> dict:
        return self._write("Pod", name, namespace, lambda p: self._pod_status(p, "Running", ready), known)

    def finish_pod(self, name: str, namespace: str, succeeded: bool, known: dict | None = None,
                   report: bool = True) -> dict:
        now = timefmt.rfc3339(self.clock.now())
        code = 0 if succeeded else 1
        state = {"terminated": {"exitCode": code, "reason": "Completed" if succeeded else "Error",
                                "finishedAt": now}}
        pod = self._write("Pod", name, namespace, lambda p: self._pod_status(
            p, "Succeeded" if succeeded else "Failed", False, state=state, started=False), known)
        if report:
            self.report_status()
        return pod

    def restart_container(self, name: str, namespace: str, known: dict | None = None) -> dict:
        def mutate(p: dict) -> None:
            restarts = max([c.get("restartCount", 0) for c in (p.get("status") or {}).get("containerStatuses")
                            or []] or [0]) + 1
            self._pod_status(p, "Running", False, restartCount=restarts, started=False,
                             state={"waiting": {"reason": "CrashLoopBackOff"}})
        pod = self._write("Pod", name, namespace, mutate, known)
        self.report_status()
        return pod


def _ready(status: dict) -> str | None:
    return next((c.get("status") for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)


def _waiting(pod: dict) -> bool:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return any("waiting" in (c.get("state") or {}) for c in statuses)
