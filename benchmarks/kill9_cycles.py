"""kill -9 cycles under 8 writers: every acknowledged create is there after the restart, with its
uid and resourceVersion, and resourceVersions never go back.

Run: ``.venv/bin/python benchmarks/kill9_cycles.py [cycles] [seconds of writing per cycle]``.
Prints the cycles, acknowledged writes checked, lost writes and resourceVersion regressions.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import requests

PODS = "/api/v1/namespaces/default/pods"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "kube32.conformance", "serve", "--clock", "manual",
                             "--data-dir", data, "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            requests.get(f"http://127.0.0.1:{port}/version", timeout=1)
            return proc
        except requests.ConnectionError:
            if proc.poll() is not None:
                raise SystemExit(f"serve exited with {proc.returncode}") from None
            time.sleep(0.05)


def main() -> None:
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    data, port = tempfile.mkdtemp(), free_port()
    url = f"http://127.0.0.1:{port}"
    acknowledged: dict[str, tuple[str, str]] = {}
    lost = regressions = 0
    last_rv = 0
    for cycle in range(cycles):
        proc = start(data, port)
        stored = {p["metadata"]["name"]: (p["metadata"]["uid"], p["metadata"]["resourceVersion"])
                  for p in requests.get(url + PODS, timeout=60).json()["items"]}
        lost += sum(1 for name, ident in acknowledged.items() if stored.get(name) != ident)
        rv = int(requests.get(url + PODS, timeout=60).json()["metadata"]["resourceVersion"])
        regressions += rv < last_rv
        warm = requests.post(url + PODS, json={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"warm{cycle}"},
                                               "spec": {"containers": [{"name": "a", "image": "x"}]}}, timeout=120)
        meta = warm.json()["metadata"]            # (the first write compiles the schemas)
        acknowledged[meta["name"]] = (meta["uid"], meta["resourceVersion"])
        stop = threading.Event()
        lock = threading.Lock()

        def writer(k: int, cycle: int = cycle, stop: threading.Event = stop, lock: threading.Lock = lock) -> None:
            http = requests.Session()
            i = 0
            while not stop.is_set():
                name = f"c{cycle}-w{k}-{i}"
                try:
                    resp = http.post(url + PODS, json={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                                       "spec": {"containers": [{"name": "a", "image": "x"}]}}, timeout=60)
                except requests.RequestException:
                    return
                if resp.status_code == 201:
                    meta = resp.json()["metadata"]
                    with lock:
                        acknowledged[name] = (meta["uid"], meta["resourceVersion"])
                i += 1

        threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        time.sleep(seconds)
        with lock:
            last_rv = max(int(v[1]) for v in acknowledged.values()) if acknowledged else last_rv
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join(60)
    proc = start(data, port)
    stored = {p["metadata"]["name"]: (p["metadata"]["uid"], p["metadata"]["resourceVersion"])
              for p in requests.get(url + PODS, timeout=60).json()["items"]}
    lost += sum(1 for name, ident in acknowledged.items() if stored.get(name) != ident)
    proc.kill()
    print(f"{cycles} kill -9 cycles, {len(acknowledged)} acknowledged writes checked, {lost} lost, "
          f"{regressions} resourceVersion regressions")


if __name__ == "__main__":
    main()
