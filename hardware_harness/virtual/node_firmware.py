"""Node firmware model: a kube32 kubelet talking HTTP to the API (what a node board runs).

It registers its Node (capacity and allocatable memory / PSRAM / GPIO, Ready condition), renews
its Lease in ``kube-node-lease`` every ``lease_interval`` seconds (fixed rate) declaring
``lease_duration``, and re-reports its status every ``status_interval`` seconds. It admits the pods
bound to it through the capability firewall (``firewall_refusal``): a pod claiming a
``hardware.kube32.io/*`` resource the board does not have, or an ``esp32.io/gpio-<N>`` pin the board
lacks or has given out, is refused (phase Failed, reason ``UnexpectedAdmissionError``, a message
naming the claim); the others run (phase Running, Ready, a pod IP). Like the real kubelet it reports
measured free figures: allocatable is capacity minus what the pods it RUNS take (``free``), and it
re-reports right after it starts a pod. Terminating pods are confirmed (DELETE, grace 0).
Against a secured server it speaks as its node, as a real kubelet does: ``client_cert`` (its
``system:node:<name>`` certificate and key), and ``ca_file`` to trust the server.
Console lines: ``I (ms) kubelet: node registered name=<n>`` then ``I (ms) kubelet: kubelet ready``;
``kubelet: started pod ns/name`` and ``kubelet: refused pod ns/name: <why>``.
"""

from __future__ import annotations

import time

import requests

from kube32.spec import constants, firewall, profiles, quantities, timefmt
from kube32.spec.firewall import REFUSED_REASON, pin_claims

from .firmware import BoardIO, Firmware

DEFAULT_CAPACITY = {constants.MEMORY: "192Ki", "esp32.io/psram": "4Mi", constants.GPIO: "16"}
# GPIOs an ESP32 (WROOM) can give out: 6-11 drive the flash, 20/24/28-31 are not bonded out.
KUBELET_CONDITIONS = ("Initialized", "ContainersReady", "Ready")   # the pod conditions a kubelet owns
DEFAULT_PINS = frozenset([0, 1, 2, 3, 4, 5, *range(12, 20), 21, 22, 23, 25, 26, 27, *range(32, 40)])
_TERMINAL = ("Succeeded", "Failed")
_HW = profiles.load("hardware")


def firewall_refusal(fw: NodeFirmware, pod: dict, running: list[dict]) -> str | None:
    """Why the capability firewall refuses ``pod`` on this board, or None when it admits it."""
    return firewall.refusal(fw.hardware, fw.pins, pod, running)


def pod_requests(pod: dict) -> dict[str, int]:
    """Memory (default 16 KiB), PSRAM and GPIO a pod takes, summed over its containers."""
    total = {constants.MEMORY: 0, "psram": 0, constants.GPIO: 0}
    for c in pod.get("spec", {}).get("containers", []) or []:
        res = c.get("resources") or {}
        want = {**(res.get("limits") or {}), **(res.get("requests") or {})}
        mem = want.get(constants.MEMORY)
        total[constants.MEMORY] += quantities.value(mem) if mem is not None else constants.DEFAULT_POD_MEMORY
        for name in constants.PSRAM_RESOURCES:
            if name in want:
                total["psram"] += quantities.value(want[name])
        if constants.GPIO in want:
            total[constants.GPIO] += quantities.value(want[constants.GPIO])
    total[constants.GPIO] += len(pin_claims(pod))  # a claimed pin is no longer unclaimed
    return total


class NodeFirmware(Firmware):
    """A kubelet: register, renew the Lease, report free resources."""

    tick_interval = 0.02
    pod_interval = 0.25  # seconds between pod syncs (admission, deletes)

    def __init__(
        self,
        node_name: str,
        api_url: str,
        *,
        capacity: dict[str, str] | None = None,
        labels: dict[str, str] | None = None,
        hardware: tuple[str, ...] | list[str] = (),
        pins: frozenset[int] | set[int] = DEFAULT_PINS,
        lease_interval: float = _HW.lease_renew_interval,
        lease_duration: float = _HW.lease_duration,
        status_interval: float | None = None,
        request_timeout: float = 2.0,
        ca_file: str | None = None,
        client_cert: tuple[str, str] | None = None,
    ) -> None:
        self.node_name = node_name
        self.api_url = api_url.rstrip("/")
        self.capacity = dict(capacity or DEFAULT_CAPACITY)
        self.labels = dict(labels or {})
        self.hardware = frozenset(hardware)
        self.pins = frozenset(pins)
        self.lease_interval = lease_interval
        self.lease_duration = lease_duration
        self.status_interval = status_interval if status_interval is not None else lease_interval
        self.request_timeout = request_timeout
        self.verify: bool | str = ca_file or True
        self.client_cert = client_cert
        self._session: requests.Session | None = None
        self._registered = False
        self._ready_logged = False
        self._next_lease = 0.0
        self._next_status = 0.0
        self._next_try = 0.0
        self._next_pods = 0.0
        self._ips = 0
        self.renewals = 0

    # --- firmware hooks --------------------------------------------------------------------------

    def setup(self, io: BoardIO) -> None:
        self._session = requests.Session()
        self._registered = False
        self._ready_logged = False
        self._next_lease = self._next_status = self._next_try = self._next_pods = 0.0
        io.log("I", "kubelet", f"starting kubelet for node {self.node_name} api={self.api_url}")

    def teardown(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def tick(self, io: BoardIO) -> None:
        now = time.monotonic()
        if now < self._next_try:
            return
        try:
            if not self._registered:
                self._register(io)
                self._registered = True
                io.log("I", "kubelet", f"node registered name={self.node_name}")
            if now >= self._next_lease:
                self._renew_lease()
                # fixed rate, like a ticker: late ticks do not push later renewals back
                late = now - self._next_lease
                self._next_lease = (self._next_lease if 0 <= late < self.lease_interval else now) + self.lease_interval
            if now >= self._next_pods:
                self._next_pods = now + self.pod_interval
                try:
                    if self._sync_pods(io):
                        self._next_status = now
                except (requests.RequestException, ApiFailure) as exc:  # a pod write must not delay the Lease
                    io.log("W", "kubelet", f"pod sync failed, retrying: {exc}")
            if now >= self._next_status:
                self._report_status()
                self._next_status = now + self.status_interval
            if not self._ready_logged:
                self._ready_logged = True
                io.log("I", "kubelet", "kubelet ready")
        except (requests.RequestException, ApiFailure) as exc:
            io.log("W", "kubelet", f"api request failed, retrying in 1 s: {exc}")
            self._next_try = now + 1.0

    # --- API work --------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: dict | None = None, ok=(200, 201)) -> requests.Response:
        assert self._session is not None
        # verify/cert per request: a session's are overridden by REQUESTS_CA_BUNDLE
        resp = self._session.request(method, self.api_url + path, json=body, timeout=self.request_timeout,
                                     verify=self.verify, cert=self.client_cert)
        if resp.status_code not in ok:
            raise ApiFailure(f"{method} {path} answered {resp.status_code}, expected {ok}: {resp.text[:200]}")
        return resp

    def my_pods(self) -> list[dict]:
        pods = self._call("GET", "/api/v1/pods").json().get("items", [])
        return [p for p in pods if p.get("spec", {}).get("nodeName") == self.node_name]

    def running_pods(self, pods: list[dict] | None = None) -> list[dict]:
        """Pods this board runs: admitted (phase Running) and not being deleted."""
        pods = self.my_pods() if pods is None else pods
        return [p for p in pods if p.get("status", {}).get("phase") == "Running"
                and not p["metadata"].get("deletionTimestamp")]

    def free(self) -> dict[str, str]:
        """Capacity minus what the pods this board runs take (the measured free figures)."""
        used = {constants.MEMORY: 0, "psram": 0, constants.GPIO: 0}
        for pod in self.running_pods():
            for k, v in pod_requests(pod).items():
                used[k] += v
        free = dict(self.capacity)
        mem = quantities.value(self.capacity.get(constants.MEMORY, "0")) - used[constants.MEMORY]
        free[constants.MEMORY] = str(max(0, mem))
        for name in constants.PSRAM_RESOURCES:
            if name in self.capacity:
                free[name] = str(max(0, quantities.value(self.capacity[name]) - used["psram"]))
        if constants.GPIO in self.capacity:
            free[constants.GPIO] = str(max(0, quantities.value(self.capacity[constants.GPIO]) - used[constants.GPIO]))
        return free

    # --- pods ----------------------------------------------------------------------------------

    def _sync_pods(self, io: BoardIO) -> bool:
        """Admit (run or refuse) Pending pods bound here, confirm deletions. True when something changed."""
        pods = self.my_pods()
        changed = False
        for pod in pods:
            meta = pod["metadata"]
            where = f"{meta.get('namespace')}/{meta['name']}"
            path = f"/api/v1/namespaces/{meta.get('namespace')}/pods/{meta['name']}"
            if meta.get("deletionTimestamp"):
                self._call("DELETE", path + "?gracePeriodSeconds=0", ok=(200, 202, 404))
                changed = True
                continue
            if pod.get("status", {}).get("phase", "Pending") != "Pending":
                continue
            why = firewall_refusal(self, pod, self.running_pods(pods))
            if why:
                self._write_pod_status(pod, "Failed", reason=REFUSED_REASON, message=why)
                io.log("W", "kubelet", f"refused pod {where}: {why}")
            else:
                pod = self._write_pod_status(pod, "Running")
                pods = [pod if p["metadata"]["name"] == meta["name"] and p["metadata"].get("namespace") ==
                        meta.get("namespace") else p for p in pods]
                io.log("I", "kubelet", f"started pod {where}")
            changed = True
        return changed

    def _write_pod_status(self, pod: dict, phase: str, *, reason: str = "", message: str = "") -> dict:
        meta = pod["metadata"]
        now = timefmt.rfc3339(time.time())
        status = {"phase": phase, "startTime": now, "hostIP": "10.32.0.1"}
        ready = "True" if phase == "Running" else "False"
        mine = [{"type": t, "status": s, "lastTransitionTime": now} for t, s in
                (("Initialized", "True"), ("ContainersReady", ready), ("Ready", ready))]
        # conditions other components own (PodScheduled, DisruptionTarget) are kept, as a kubelet does
        kept = [c for c in (pod.get("status") or {}).get("conditions") or []
                if c.get("type") not in KUBELET_CONDITIONS]
        status["conditions"] = kept + mine
        if phase == "Running":
            self._ips += 1
            ip = f"10.32.{sum(map(ord, self.node_name)) % 250 + 1}.{self._ips % 250 + 2}"
            status["podIP"], status["podIPs"] = ip, [{"ip": ip}]
            status["containerStatuses"] = [
                {"name": c["name"], "image": c.get("image", ""), "ready": True, "restartCount": 0, "started": True,
                 "state": {"running": {"startedAt": now}}} for c in pod.get("spec", {}).get("containers", [])]
        else:
            status["reason"], status["message"] = reason, message
        body = {**pod, "status": status}
        path = f"/api/v1/namespaces/{meta.get('namespace')}/pods/{meta['name']}/status"
        return self._call("PUT", path, body).json()

    def _status(self, previous: dict | None = None) -> dict:
        now = timefmt.rfc3339(time.time())
        transition = now
        for cond in (previous or {}).get("conditions", []) or []:
            if cond.get("type") == "Ready" and cond.get("status") == "True":
                transition = cond.get("lastTransitionTime", now)
        return {
            "capacity": dict(self.capacity),
            "allocatable": self.free(),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": transition,
                }
            ],
            "addresses": [{"type": "Hostname", "address": self.node_name}],
            "nodeInfo": {"architecture": "xtensa", "operatingSystem": "freertos", "kubeletVersion": "kube32-virtual"},
        }

    def _register(self, io: BoardIO) -> None:
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": self.node_name, "labels": {constants.HOSTNAME_LABEL: self.node_name, **self.labels}},
            "status": self._status(),
        }
        resp = self._call("POST", "/api/v1/nodes", node, ok=(200, 201, 409))
        if resp.status_code == 409:
            self._report_status()

    def _report_status(self, attempts: int = 3) -> None:
        for _ in range(attempts):
            node = self._call("GET", f"/api/v1/nodes/{self.node_name}").json()
            node["status"] = {**node.get("status", {}), **self._status(node.get("status"))}
            resp = self._call("PUT", f"/api/v1/nodes/{self.node_name}/status", node, ok=(200, 201, 404, 405, 409))
            if resp.status_code in (404, 405):
                self._call("PUT", f"/api/v1/nodes/{self.node_name}", node)
            if resp.status_code != 409:
                return
        raise ApiFailure(f"node {self.node_name} status update conflicted {attempts} times")

    def _renew_lease(self) -> None:
        ns = constants.NODE_LEASE_NAMESPACE
        base = f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
        now = timefmt.rfc3339_micro(time.time())
        spec = {"holderIdentity": self.node_name, "leaseDurationSeconds": int(self.lease_duration), "renewTime": now}
        resp = self._call("GET", f"{base}/{self.node_name}", ok=(200, 404))
        if resp.status_code == 404:
            lease = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": self.node_name, "namespace": ns},
                "spec": {**spec, "acquireTime": now},
            }
            self._call("POST", base, lease)
        else:
            lease = resp.json()
            lease["spec"] = {**lease.get("spec", {}), **spec}
            self._call("PUT", f"{base}/{self.node_name}", lease)
        self.renewals += 1


class ApiFailure(Exception):
    """The API answered with an unexpected status."""
