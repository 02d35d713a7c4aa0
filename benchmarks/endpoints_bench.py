"""Benchmark: computed Endpoints / EndpointSlice reads next to a plain Service read, in one run.

Not a test. Run: ``.venv/bin/python benchmarks/endpoints_bench.py [--services 100] [--pods 1000]``.
Builds an in-process reference (no loops), fills one namespace with N Services and M Running,
Ready pods spread evenly over them, then times requests through the full Flask stack
(routing, the view, JSON encoding; no sockets):

  service GET          GET  /api/v1/namespaces/default/services/svc-K         (the baseline)
  endpoints GET        GET  /api/v1/namespaces/default/endpoints/svc-K
  slices by service    LIST /apis/discovery.k8s.io/v1/.../endpointslices?labelSelector=kubernetes.io/service-name=svc-K
  service LIST         LIST /api/v1/namespaces/default/services               (baseline for the full list)
  slices LIST          LIST /apis/discovery.k8s.io/v1/namespaces/default/endpointslices

Each is timed three ways (rows interleaved round by round; median and best of the rounds), the
writes untimed before every read:
  steady        repeated reads, nothing written in between;
  other write   a write to a pod of ANOTHER Service (the store's resourceVersion moves);
  own write     a write to a pod of the Service read (or, for the lists, of one Service):
                its objects must be rebuilt.
The target is at most 2x the plain Service GET for the single-Service reads. The full LISTs are
shown next to a Service LIST with their response sizes: their cost follows the size of the answer
(every slice of every Service), which no view can shrink.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kube32.reference.app import create_app  # noqa: E402
from kube32.reference.config import Config  # noqa: E402
from kube32.spec import constants  # noqa: E402

NS = "default"


def populate(cp, services: int, pods: int) -> list[dict]:
    """N Services (selector app=svc-K, named port http) and M Ready pods spread over them."""
    store = cp.store
    store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "esp-a"}})
    for k in range(services):
        store.create("services", {
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": f"svc-{k}", "namespace": NS},
            "spec": {"selector": {"app": f"svc-{k}"},
                     "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}]}})
    created = []
    for i in range(pods):
        k = i % services
        created.append(store.create("pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p-{i}", "namespace": NS, "labels": {"app": f"svc-{k}", "n": str(i)}},
            "spec": {"nodeName": "esp-a", "containers": [
                {"name": "c", "image": "app", "ports": [{"name": "http", "containerPort": 8080}]}]},
            "status": {"phase": "Running", "podIP": f"10.{i // 65536}.{(i // 256) % 256}.{i % 256}",
                       "conditions": [{"type": "Ready", "status": "True"}]}}))
    return created


def measure(client, rows, rounds: int, before=None) -> dict[str, tuple[list[float], int]]:
    """Per row label: (seconds of each request, response bytes). Rows are interleaved round by
    round, each round starting one row later, so a load change on the machine (or the cache
    damage a big answer does to the request after it) hits every row alike; ``before()`` runs
    untimed ahead of every request; the garbage collector only runs between requests."""
    samples: dict[str, list[float]] = {label: [] for label, *_ in rows}
    sizes: dict[str, int] = {}
    for n in range(rounds):
        for label, _, url, kwargs in rows[n % len(rows):] + rows[:n % len(rows)]:
            if before is not None:
                before()
            gc.disable()                  # as timeit: garbage of one request is not collected in another's time
            start = time.perf_counter()
            resp = client.get(url, **kwargs)
            samples[label].append(time.perf_counter() - start)
            gc.enable()
            if resp.status_code != 200:
                raise SystemExit(f"GET {url} answered {resp.status_code}: {resp.get_data(as_text=True)[:300]}")
            sizes[label] = len(resp.get_data())
    return {label: (samples[label], sizes[label]) for label in samples}


STATS = (("median", statistics.median), ("best", min))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--services", type=int, default=100)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args(argv)

    app = create_app(Config(run_loops=False))
    cp = app.extensions["kube32"]
    pods = populate(cp, args.services, args.pods)
    client = app.test_client()
    target_k = args.services // 2
    target = f"svc-{target_k}"
    other = next(p for p in pods if p["metadata"]["labels"]["app"] != target)
    own = next(p for p in pods if p["metadata"]["labels"]["app"] == target)
    flip = {"i": 0}

    def write_to(name: str):
        def write() -> None:
            """A pod status write (Ready flips): bumps the pod's and the store's resourceVersion."""
            pod = cp.store.get("pods", NS, name)
            flip["i"] += 1
            pod["status"]["conditions"] = [{"type": "Ready", "status": "True" if flip["i"] % 2 else "False"}]
            cp.store.update("pods", pod)
        return write

    base = f"/api/v1/namespaces/{NS}"
    slices = f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices"
    by_service = {"query_string": {"labelSelector": f"{constants.LABEL_SERVICE_NAME}={target}"}}
    rows = [
        ("service GET", "service GET", f"{base}/services/{target}", {}),
        ("endpoints GET", "service GET", f"{base}/endpoints/{target}", {}),
        ("slices by service", "service GET", slices, by_service),
        ("service LIST", "service LIST", f"{base}/services", {}),
        ("slices LIST", "service LIST", slices, {}),
    ]
    per_pod = args.pods // args.services
    modes = (("steady", None), ("other write", write_to(other["metadata"]["name"])),
             ("own write", write_to(own["metadata"]["name"])))
    # single-Service reads and whole-namespace lists are measured apart: a 280 kB answer slows
    # whatever request follows it, which would blur the small reads
    results = {mode: {**measure(client, rows[:3], args.rounds, before), **measure(client, rows[3:], args.rounds, before)}
               for mode, before in modes}
    print(f"{args.services} Services x {args.pods} pods ({per_pod} per Service), {args.rounds} interleaved "
          f"rounds; ms and ratio to the baseline read in the same mode")
    worst = {}
    for stat_name, stat in STATS:
        print(f"\n{stat_name:<19}{'bytes':>8}" + "".join(f"{m:>19}" for m, _ in modes))
        worst[stat_name] = 0.0
        for label, baseline, _, _ in rows:
            line = f"{label:<19}{results['steady'][label][1]:>8}"
            for mode, _ in modes:
                value = stat(results[mode][label][0])
                ratio = value / stat(results[mode][baseline][0])
                if baseline == "service GET":
                    worst[stat_name] = max(worst[stat_name], ratio)
                line += f"{value * 1000:>11.3f} {ratio:>5.2f}x "
            print(line)
    print("\nworst single-Service ratio: " + ", ".join(f"{worst[n]:.2f}x ({n})" for n, _ in STATS)
          + " (target <= 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
