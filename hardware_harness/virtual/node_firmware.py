"""Node firmware model: a kube32 kubelet talking HTTP to the API (what a node board runs).

It registers its Node (capacity and allocatable memory / PSRAM / GPIO, Ready condition), renews
its Lease in ``kube-node-lease`` every ``lease_interval`` seconds declaring ``lease_duration``, and
re-reports its status every ``status_interval`` seconds. Like the real kubelet it reports measured
free figures, so allocatable already has the requests of the pods bound to it subtracted.
Console lines: ``I (ms) kubelet: node registered name=<n>`` then ``I (ms) kubelet: kubelet ready``.
"""

from __future__ import annotations

import time

import requests

from spec import constants, profiles, quantities, timefmt

from .firmware import BoardIO, Firmware

DEFAULT_CAPACITY = {constants.MEMORY: "192Ki", "esp32.io/psram": "4Mi", constants.GPIO: "16"}
_TERMINAL = ("Succeeded", "Failed")
_HW = profiles.load("hardware")


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
    return total


class NodeFirmware(Firmware):
    """A kubelet: register, renew the Lease, report free resources."""

    tick_interval = 0.1

    def __init__(
        self,
        node_name: str,
        api_url: str,
        *,
        capacity: dict[str, str] | None = None,
        labels: dict[str, str] | None = None,
        lease_interval: float = _HW.lease_renew_interval,
        lease_duration: float = _HW.lease_duration,
        status_interval: float | None = None,
        request_timeout: float = 2.0,
    ) -> None:
        self.node_name = node_name
        self.api_url = api_url.rstrip("/")
        self.capacity = dict(capacity or DEFAULT_CAPACITY)
        self.labels = dict(labels or {})
        self.lease_interval = lease_interval
        self.lease_duration = lease_duration
        self.status_interval = status_interval if status_interval is not None else lease_interval
        self.request_timeout = request_timeout
        self._session: requests.Session | None = None
        self._registered = False
        self._ready_logged = False
        self._next_lease = 0.0
        self._next_status = 0.0
        self._next_try = 0.0
        self.renewals = 0

    # --- firmware hooks --------------------------------------------------------------------------

    def setup(self, io: BoardIO) -> None:
        self._session = requests.Session()
        self._registered = False
        self._ready_logged = False
        self._next_lease = self._next_status = self._next_try = 0.0
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
                self._next_lease = now + self.lease_interval
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
        resp = self._session.request(method, self.api_url + path, json=body, timeout=self.request_timeout)
        if resp.status_code not in ok:
            raise ApiFailure(f"{method} {path} answered {resp.status_code}, expected {ok}: {resp.text[:200]}")
        return resp

    def free(self) -> dict[str, str]:
        """Capacity minus the requests of the pods bound to this node (the measured free figures)."""
        pods = self._call("GET", "/api/v1/pods").json().get("items", [])
        used = {constants.MEMORY: 0, "psram": 0, constants.GPIO: 0}
        for pod in pods:
            if pod.get("spec", {}).get("nodeName") != self.node_name:
                continue
            if pod.get("status", {}).get("phase") in _TERMINAL:
                continue
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

    def _report_status(self) -> None:
        node = self._call("GET", f"/api/v1/nodes/{self.node_name}").json()
        node["status"] = {**node.get("status", {}), **self._status(node.get("status"))}
        resp = self._call("PUT", f"/api/v1/nodes/{self.node_name}/status", node, ok=(200, 201, 404, 405, 409))
        if resp.status_code in (404, 405):
            self._call("PUT", f"/api/v1/nodes/{self.node_name}", node)
        elif resp.status_code == 409:
            raise ApiFailure(f"node {self.node_name} status update conflicted")

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
