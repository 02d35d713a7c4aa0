"""Write throughput with 8 concurrent clients: durable (fsync before the answer, group commit)
against ``--unsafe-no-fsync`` (the reference's mode before issue 13), measured in the same run.

Run: ``.venv/bin/python benchmarks/write_bench.py [writes per client]``. Each client is a real
HTTP client creating Leases on a served reference with an SQLite data dir. Printed per mode:
acknowledged writes per second, fsyncs, acknowledged writes per fsync, and the ratio.

Target (issue 13): durable throughput within 2x of the unsafe mode.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time

import requests

from kube32.reference.config import Config
from kube32.reference.serve import start_in_thread

CLIENTS = 8
LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"


def run(fsync: bool, per_client: int) -> tuple[float, int, int]:
    """(acknowledged writes per second, writes, fsyncs)."""
    server = start_in_thread(Config(data_dir=tempfile.mkdtemp(), listen="127.0.0.1:0", clock="manual",
                                    fsync=fsync))
    backend = server.control_plane.store._backend
    failures: list[str] = []

    def client(k: int) -> None:
        http = requests.Session()
        for i in range(per_client):
            resp = http.post(server.url + LEASES, json={"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                                        "metadata": {"name": f"c{k}-{i}"}}, timeout=60)
            if resp.status_code != 201:
                failures.append(resp.text)

    syncs_before = backend.syncs
    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    syncs = backend.syncs - syncs_before
    server.stop()
    if failures:
        raise SystemExit(f"{len(failures)} writes failed: {failures[0]}")
    writes = CLIENTS * per_client
    return writes / elapsed, writes, syncs


def main() -> None:
    per_client = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    run(False, 5)                                    # warm up imports and schema compilation
    unsafe, writes, _ = run(False, per_client)
    durable, writes, syncs = run(True, per_client)
    print(f"{CLIENTS} clients x {per_client} creates")
    print(f"  --unsafe-no-fsync : {unsafe:8.1f} writes/s")
    print(f"  durable (default) : {durable:8.1f} writes/s, {syncs} fsyncs, "
          f"{writes / max(syncs, 1):.1f} acknowledged writes per fsync")
    print(f"  ratio unsafe/durable: {unsafe / durable:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
