"""Helpers for the integration tests: a real ``kube32-conformance serve`` child process, a kubeconfig,
kubectl runs with a private discovery cache, and a tiny stand-in kubelet over HTTP."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

BOOT_TIMEOUT = 30.0          # a bound on waiting for the child to listen, not an assertion on time
KUBECTL_TIMEOUT = 60.0
VERSIONED_KUBECTL_DIR = Path("/usr/lib/google-cloud-sdk/bin")
EXAMPLES = Path(__file__).resolve().parents[2] / "reference" / "examples"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serve:
    """``python -m kube32.conformance serve`` as a subprocess (a real process on a real socket)."""

    def __init__(self, *args: str, data_dir: str | None = None, port: int | None = None,
                 log_path: Path | None = None, https: bool = False, ca: Path | None = None) -> None:
        self.args = list(args)
        self.data_dir = data_dir
        self.port = port or free_port()
        self.url = f"{'https' if https else 'http'}://127.0.0.1:{self.port}"
        self.ca = ca        # https: the CA the server's certificate is checked with (it may write it at start)
        self.proc: subprocess.Popen | None = None
        # the child's output goes to a file (a pipe nobody reads fills up and blocks the server):
        # ``log_path`` if given, else an anonymous temporary file that vanishes with this object
        self.log_path = log_path
        self._log = open(log_path, "ab+") if log_path else tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "kube32.conformance", "serve", "--listen", f"127.0.0.1:{self.port}", *self.args]
        if self.data_dir:
            cmd += ["--data-dir", self.data_dir]
        return cmd

    def start(self) -> Serve:
        self.proc = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + BOOT_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}: {self.output()[-2000:]}")
            try:
                if (self.ca is None or self.ca.exists()) and requests.get(
                        self.url + "/version", timeout=1, verify=str(self.ca) if self.ca else True).status_code == 200:
                    return self
            except requests.RequestException:     # not listening yet, or too busy to answer within 1 s
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"serve did not answer on {self.url} within {BOOT_TIMEOUT} s")

    def output(self) -> str:
        """What the child has written so far."""
        self._log.flush()
        return os.pread(self._log.fileno(), os.fstat(self._log.fileno()).st_size, 0).decode(errors="replace")

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def write_kubeconfig(path: Path, server_url: str) -> Path:
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: kube32\n  cluster:\n    server: {server_url}\n"
        "users:\n- name: me\n  user: {}\n"
        "contexts:\n- name: kube32\n  context:\n    cluster: kube32\n    user: me\n"
        "current-context: kube32\n")
    return path


def kubectl_binary(name: str) -> str | None:
    """The default dispatcher (``kubectl`` on PATH) or a versioned binary next to it."""
    if name == "kubectl":
        return shutil.which("kubectl")
    candidate = VERSIONED_KUBECTL_DIR / name
    if candidate.is_file():
        return str(candidate)
    return shutil.which(name)


class Kubectl:
    """Runs one kubectl binary against one server with its own discovery cache."""

    def __init__(self, binary: str, kubeconfig: Path, cache_dir: Path) -> None:
        self.binary, self.kubeconfig, self.cache_dir = binary, kubeconfig, cache_dir
        bin_dir = os.path.dirname(binary)
        self.env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(cache_dir),
                    "PATH": f"{VERSIONED_KUBECTL_DIR}{os.pathsep}{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}

    def run(self, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run([self.binary, *args], capture_output=True, text=True, env=self.env,
                              input=stdin, timeout=KUBECTL_TIMEOUT)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    def out(self, *args: str) -> str:
        return self.run(*args).stdout

    def popen(self, *args: str) -> LineReader:
        proc = subprocess.Popen([self.binary, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=self.env)
        return LineReader(proc)


class LineReader:
    """The lines of a long-running process (``get -w``), read on a thread so waits are bounded."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, predicate, timeout: float = 30.0) -> str:
        """The first line matching ``predicate``; fails with every line seen when none does in time."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise AssertionError(f"no matching line; saw {self.seen!r}") from None
            if line is None:
                raise AssertionError(f"the process ended; saw {self.seen!r}")
            self.seen.append(line)
            if predicate(line):
                return line

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def columns(header: str) -> list[str]:
    """A kubectl table header split into column names (columns are separated by 2+ spaces)."""
    import re
    return re.split(r"\s{2,}", header.strip())


class Kubelet:
    """Just enough of a kubelet over HTTP: registers a Ready node with its Lease, reports pod status,
    records an event the way a kubelet does, confirms graceful deletions."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = requests.Session()

    def call(self, method: str, path: str, body=None, content_type: str = "application/json") -> dict:
        resp = self.http.request(method, self.url + path, json=body, headers={"Content-Type": content_type})
        assert resp.status_code < 300, (method, path, resp.status_code, resp.text)
        return resp.json()

    def now(self) -> str:
        return self.call("GET", "/debug/clock")["now"]

    def register(self, name: str, labels: dict | None = None, allocatable: dict | None = None,
                 address: str = "10.0.0.1") -> dict:
        alloc = allocatable or {"memory": "200Ki", "esp32.io/gpio": "8"}
        node = self.call("POST", "/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"capacity": alloc, "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                       "addresses": [{"type": "InternalIP", "address": address}],
                       "nodeInfo": {"kubeletVersion": "v1.33.0-kube32", "osImage": "ESP-IDF v5.2",
                                    "kernelVersion": "", "containerRuntimeVersion": "kube32://1.0"}}})
        self.call("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 15, "renewTime": self.now()}})
        return node

    def renew(self, name: str) -> dict:
        """Renew node ``name``'s Lease at the server's current time."""
        return self.call("PATCH", f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{name}",
                         {"spec": {"renewTime": self.now()}}, "application/merge-patch+json")

    def advance(self, seconds: float, nodes: tuple[str, ...] = ()) -> dict:
        """Move the server's manual clock, renewing the given nodes' Leases first."""
        for node in nodes:
            self.renew(node)
        return self.call("POST", "/debug/clock", {"advance": seconds})

    def pods(self, ns: str) -> list[dict]:
        return self.call("GET", f"/api/v1/namespaces/{ns}/pods")["items"]

    def pod(self, ns: str, name: str) -> dict:
        return self.call("GET", f"/api/v1/namespaces/{ns}/pods/{name}")

    def start(self, ns: str, name: str, ip: str = "10.1.0.5") -> dict:
        pod = self.pod(ns, name)
        containers = [c["name"] for c in pod["spec"]["containers"]]
        now = self.now()
        status = {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "hostIP": "10.0.0.1", "startTime": now,
                  "conditions": [{"type": t, "status": "True", "lastTransitionTime": now}
                                 for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
                  "containerStatuses": [{"name": c, "ready": True, "restartCount": 0, "started": True,
                                         "image": "x", "state": {"running": {"startedAt": now}}}
                                        for c in containers]}
        self.event(pod, "Normal", "Started", f"Started container {containers[0]}")
        return self.call("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status", {"status": status},
                         "application/merge-patch+json")

    def event(self, obj: dict, type_: str, reason: str, message: str) -> dict:
        meta = obj["metadata"]
        now = self.now()
        return self.call("POST", f"/api/v1/namespaces/{meta['namespace']}/events", {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{reason.lower()}", "namespace": meta["namespace"]},
            "involvedObject": {"kind": obj["kind"], "name": meta["name"], "namespace": meta["namespace"],
                               "uid": meta["uid"], "apiVersion": obj["apiVersion"]},
            "type": type_, "reason": reason, "message": message, "count": 1,
            "firstTimestamp": now, "lastTimestamp": now, "source": {"component": "kubelet", "host": "node-a"}})

    def confirm_delete(self, ns: str, name: str) -> None:
        self.call("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}?gracePeriodSeconds=0")


def start_two_board_cluster(s3_board: str, plain_board: str) -> Serve:
    """`serve` with the document's example cluster: an S3 board with 2 MiB of PSRAM (labelled
    board=esp32-s3) and a plain board without PSRAM."""
    running = Serve("--clock", "manual").start()
    kubelet = Kubelet(running.url)
    kubelet.register(s3_board, labels={"board": "esp32-s3"},
                     allocatable={"memory": "200Ki", "esp32.io/psram": "2Mi", "esp32.io/gpio": "8"})
    kubelet.register(plain_board, allocatable={"memory": "200Ki", "esp32.io/gpio": "8"}, address="10.0.0.2")
    return running
