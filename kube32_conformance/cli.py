"""``kube32-conformance``: one console script for the whole toolkit.

Subcommands: ``run`` (conformance against a target), ``clauses`` (the catalogue and its coverage),
``serve`` (the reference control plane), ``rig`` (hardware rigs).
"""

from __future__ import annotations

import argparse
import logging
import sys

from spec import profiles


def _serve(args: argparse.Namespace) -> int:
    from reference.config import Config
    from reference.serve import serve

    overrides: dict[str, float] = {}
    for item in args.set or []:
        key, _, value = item.partition("=")
        overrides[key.strip()] = float(value)
    if args.reconcile_interval is not None:
        overrides["reconcile_interval"] = args.reconcile_interval
    if args.not_ready_timeout is not None:
        overrides["not_ready_timeout"] = overrides["noexecute_delay"] = args.not_ready_timeout
    if args.eviction_timeout is not None:
        overrides["default_toleration_seconds"] = args.eviction_timeout
    try:
        profiles.load(args.profile, **overrides)
    except profiles.ProfileError as exc:
        raise SystemExit(f"kube32-conformance serve: {exc}") from None
    config = Config(data_dir=args.data_dir, listen=args.listen, profile=args.profile, clock=args.clock,
                    clock_start=args.clock_start, overrides=overrides)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    serve(config)
    return 0


def add_serve(sub) -> None:
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
    p.add_argument("--clock-start", type=float, default=None,
                   help="with --clock manual: the epoch second the clock starts at (default: now)")
    p.add_argument("--set", action="append", metavar="FIELD=SECONDS",
                   help="override any timing-profile field (see spec/profiles/shared.yaml)")
    p.set_defaults(func=_serve)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kube32-conformance", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_serve(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
