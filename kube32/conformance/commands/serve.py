"""``kube32-conformance serve``: the reference control plane, with simulated boards (devcluster),
TLS and node identities (secure_serve). With the reference target driver, the only place the runner
starts the reference."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from kube32.conformance.commands.arguments import duration, positive
from kube32.spec import profiles


def serve(args: argparse.Namespace) -> int:
    from kube32.reference.config import Config
    from kube32.reference.serve import serve
    from kube32.reference.store.backends import StoreDamaged

    # the simulator's flags first; --set names one profile field, so it has the last word
    overrides = profiles.flag_overrides({"--not-ready-timeout": args.not_ready_timeout,
                                          "--eviction-timeout": args.eviction_timeout,
                                          "--reconcile-interval": args.reconcile_interval})
    try:
        for item in args.set or []:
            key, _, value = item.partition("=")
            try:
                overrides[key.strip()] = float(value)
            except ValueError:
                raise profiles.ProfileError(f"--set {item!r}: expected FIELD=SECONDS") from None
        profiles.load(args.profile, **overrides)
    except profiles.ProfileError as exc:
        print(f"kube32-conformance serve: {exc}", file=sys.stderr)
        return 2       # a bad flag, as argparse says it
    config = Config(data_dir=args.data_dir, listen=args.listen, profile=args.profile, clock=args.clock,
                    clock_start=args.clock_start, overrides=overrides, fsync=not args.unsafe_no_fsync,
                    event_ttl=args.event_ttl, max_connections=args.max_connections,
                    max_watches_per_user=args.max_watches_per_user)
    from kube32.conformance import devcluster, secure_serve

    cluster = devcluster.prepare(args, config)      # one-line errors for bad flags and files, before binding
    host, port = devcluster.check_listen(args.listen)
    tls = secure_serve.prepare(args, config, host, port, [b.name for b in cluster.boards])
    devcluster.check_free(host, port, args.listen)    # last: before any board could talk to what holds it
    if tls is not None:
        cluster.url = secure_serve.server_url(host, port, True)
        cluster.certificates = args.tls_self_signed
        cluster.verify = False      # the readiness probe only: boards verify with the CA
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        with cluster:
            serve(config, ssl_context=tls, parent=os.getppid() if args.exit_with_parent else None)
    except StoreDamaged as exc:        # one line and status 2; --debug adds the traceback
        if args.debug:
            raise
        print(f"kube32-conformance serve: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:     # the address was taken between the check and the bind
        print(f"kube32-conformance serve: cannot listen on {args.listen}: {exc.strerror or exc}", file=sys.stderr)
        return devcluster.EXIT_USAGE
    return 0


def add(sub) -> None:
    p = sub.add_parser("serve", help="run the reference control plane (Flask API + control loops)")
    p.add_argument("--listen", default="127.0.0.1:6443", help="HOST:PORT to listen on (default %(default)s)")
    p.add_argument("--data-dir", default=None, help="directory of the SQLite store (default: in memory)")
    p.add_argument("--profile", choices=profiles.NAMES, default="simulator")
    p.add_argument("--clock", choices=("real", "manual"), default="real",
                   help="manual: time moves only through POST /debug/clock")
    p.add_argument("--reconcile-interval", type=float, default=None,
                   help="scheduler retry interval in seconds (profile default: 3 hardware, 1 simulator)")
    p.add_argument("--not-ready-timeout", type=float, default=None,
                   help="seconds without renewal before NotReady when a Lease declares no duration, "
                        "and the further delay before the NoExecute taint")
    p.add_argument("--eviction-timeout", type=float, default=None,
                   help="tolerationSeconds of the default not-ready/unreachable tolerations (default 300)")
    p.add_argument("--unsafe-no-fsync", action="store_true",
                   help="answer writes before they are fsynced: faster, and acknowledged writes survive a "
                        "killed server but may be lost on a power cut or OS crash")
    p.add_argument("--event-ttl", type=duration, default=3600.0, metavar="DURATION",
                   help="how long an Event lives after its last write, as upstream's flag: 1h0m0s, 30m, 90s or "
                        "seconds; 0 keeps them (default 1h)")
    p.add_argument("--max-connections", type=positive, default=4096, metavar="N",
                   help="sockets open at once, TLS handshakes included; at the limit a connection that is not "
                        "running a request gives way to a new one (default %(default)s)")
    p.add_argument("--max-watches-per-user", type=positive, default=1024, metavar="N",
                   help="watches one user (without authentication: one client address) may hold at once; "
                        "another is answered 429 (default %(default)s)")
    p.add_argument("--debug", action="store_true", help="show tracebacks of start-up errors")
    p.add_argument("--clock-start", type=float, default=None,
                   help="with --clock manual: the epoch the clock starts at, fractions allowed (controller "
                        "checks then fall at that phase; default: now, whole seconds)")
    p.add_argument("--set", action="append", metavar="FIELD=SECONDS",
                   help="override any timing-profile field (see spec/profiles/shared.yaml), after the flags above")
    p.add_argument("--nodes", type=int, default=0, metavar="N",
                   help="simulate N boards (node-0 …, ESP32-S3 figures) with kwok-style fake kubelets")
    p.add_argument("--nodes-file", metavar="FILE", help="simulate the boards a YAML nodes file describes")
    p.add_argument("--stages", metavar="FILE", help="pod stages of the simulated boards (default: packaged)")
    p.add_argument("--kubeconfig", metavar="FILE", help="write a kubeconfig for this server to FILE")
    p.add_argument("--exit-with-parent", action="store_true",
                   help="stop when the process that started this one ends (for tools that run serve as a child)")
    from kube32.conformance import secure_serve

    secure_serve.add_flags(p)
    p.set_defaults(func=serve)

