"""``kube32-conformance nodes``: simulated boards against any running kube32 server.

``add`` plays boards until Ctrl-C (like a kwok process beside a kube-apiserver); ``remove`` deletes
Nodes and their Leases; ``list`` shows the nodes with their Ready condition and Lease age.
"""

from __future__ import annotations

import argparse
import sys
import time

from kube32.conformance.client import ApiClient
from kube32.conformance.errors import ApiStatusError, TargetUnavailable
from kube32.conformance.kubelets import simulated
from kube32.spec import constants, profiles, timefmt

DEFAULT_SERVER = "http://127.0.0.1:6443"
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3


def boards_from(args: argparse.Namespace, taken: set[str] = frozenset()) -> list[simulated.Board]:
    """The boards named by --nodes-file, NAMEs and --count (in that order); --count takes the first
    ``node-<i>`` names that are neither ``taken`` (Nodes the server has) nor named before."""
    boards = simulated.load_nodes_file(args.nodes_file) if args.nodes_file else []
    boards += [simulated.Board(name=n) for n in getattr(args, "names", None) or []]
    names = [b.name for b in boards]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise simulated.SimulationError(f"node names given twice: {', '.join(dupes)}")
    boards += [simulated.Board(name=n) for n in simulated.free_names(set(taken) | set(names), args.count or 0)]
    return boards


def _played(api: ApiClient) -> dict[str, float]:
    """Nodes whose Lease was renewed within its duration (another kubelet plays them): name -> age."""
    now, out = time.time(), {}
    default = profiles.load("simulator").lease_duration
    for lease in api.list("Lease", constants.NODE_LEASE_NAMESPACE):
        spec = lease.get("spec") or {}
        if not spec.get("renewTime"):
            continue
        age = now - timefmt.parse(spec["renewTime"])
        if age < float(spec.get("leaseDurationSeconds") or default):
            out[lease["metadata"]["name"]] = max(0.0, age)
    return out


def _api(args: argparse.Namespace) -> ApiClient:
    api = ApiClient(args.server, token=args.token, validate=False)
    try:
        api.call("GET", "/version")
    except (TargetUnavailable, ApiStatusError) as exc:
        print(f"kube32-conformance nodes: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_UNREACHABLE) from None
    return api


def _add(args: argparse.Namespace) -> int:
    if not (args.names or args.count or args.nodes_file):
        print("kube32-conformance nodes add: name some boards (NAME..., --count N or --nodes-file FILE)",
              file=sys.stderr)
        return EXIT_USAGE
    stages = simulated.load_stages(args.stages)
    api = _api(args)
    boards = boards_from(args, {n["metadata"]["name"] for n in api.list("Node")})
    played = _played(api)
    busy = [b.name for b in boards if b.name in played]
    if busy:      # two kubelets on one Node would fight over its status and Lease
        ages = ", ".join(f"{n} (renewed {played[n]:.0f} s ago)" for n in busy)
        print(f"kube32-conformance nodes add: another kubelet plays {ages}; pick other names, or stop it "
              "first (nodes remove NAME deletes a Node)", file=sys.stderr)
        return EXIT_USAGE
    fleet = simulated.Fleet(args.server, boards, token=args.token, stages=stages).start()
    print(f"simulating {len(boards)} board(s) on {args.server}: {', '.join(b.name for b in boards)} "
          "(Ctrl-C stops them; their Nodes stay and go NotReady)", flush=True)
    try:
        fleet.wait()
    except KeyboardInterrupt:
        pass
    finally:
        fleet.stop()
    return 0


def _remove(args: argparse.Namespace) -> int:
    missing = simulated.remove_nodes(_api(args), args.names)
    for name in args.names:
        if name in missing:
            print(f'node "{name}" not found', file=sys.stderr)
        else:
            print(f'node "{name}" deleted')      # as kubectl delete says it
    return 1 if missing else 0


def _list(args: argparse.Namespace) -> int:
    api = _api(args)
    leases = {lease["metadata"]["name"]: lease for lease in api.list("Lease", constants.NODE_LEASE_NAMESPACE)}
    pods: dict[str, int] = {}
    for pod in api.list("Pod"):
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            pods[node] = pods.get(node, 0) + 1
    print(f"{'NAME':20} {'READY':8} {'LEASE-AGE':10} PODS")
    now = time.time()
    for node in api.list("Node"):
        name = node["metadata"]["name"]
        ready = next((c.get("status") for c in (node.get("status") or {}).get("conditions") or []
                      if c.get("type") == "Ready"), "-")
        renew = ((leases.get(name) or {}).get("spec") or {}).get("renewTime")
        age = timefmt.human_duration(max(0.0, now - timefmt.parse(renew))) if renew else "-"
        print(f"{name:20} {ready:8} {age:10} {pods.get(name, 0)}")
    return 0


def add_nodes(sub) -> None:
    p = sub.add_parser("nodes", help="simulated boards (kwok-style fake kubelets) on a running server")
    cmds = p.add_subparsers(dest="nodes_command", required=True)

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--server", default=DEFAULT_SERVER, help="the API server (default %(default)s)")
        q.add_argument("--token", help="bearer token")

    add = cmds.add_parser("add", help="play boards until Ctrl-C")
    add.add_argument("names", nargs="*", metavar="NAME", help="board names (default figures: an ESP32-S3)")
    add.add_argument("--count", type=int, default=0, help="add N boards named node-0, node-1, …")
    add.add_argument("--nodes-file", metavar="FILE", help="YAML `nodes: [{name, labels, capacity, …}]`")
    add.add_argument("--stages", metavar="FILE", help="pod stages replacing the default ones (see README)")
    common(add)
    add.set_defaults(func=_guarded(_add))
    rm = cmds.add_parser("remove", help="delete Nodes and their Leases")
    rm.add_argument("names", nargs="+", metavar="NAME")
    common(rm)
    rm.set_defaults(func=_guarded(_remove))
    ls = cmds.add_parser("list", help="nodes with Ready, Lease age and pod count")
    common(ls)
    ls.set_defaults(func=_guarded(_list))


def _guarded(func):
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except simulated.SimulationError as exc:
            print(f"kube32-conformance nodes: {exc}", file=sys.stderr)
            return EXIT_USAGE
    return run
