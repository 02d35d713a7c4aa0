# PYTHON_ARGCOMPLETE_OK
"""``kube32-conformance``: one console script for the whole toolkit.

Subcommands: ``run`` (conformance against a target), ``clauses`` (the catalogue and its coverage),
``compare`` (several runs side by side), ``serve`` (the reference control plane), ``nodes`` (boards
of a dev cluster), ``rig`` (hardware rigs). Each lives in ``commands/`` or its own room.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from importlib import metadata

DISTRIBUTION = "kube32-conformance"


def _compare(args: argparse.Namespace) -> int:
    import json
    import os

    from kube32.conformance.reports import compare, html
    from kube32.conformance.reports.collector import write_atomic

    out_dir = os.path.dirname(os.path.abspath(args.out)) if args.out else os.getcwd()
    try:
        cmp = compare.compare(args.runs, out_dir=out_dir)
    except compare.CompareError as exc:
        print(f"kube32-conformance compare: {exc}", file=sys.stderr)
        return 2
    for line in compare.text_lines(cmp):
        print(line)
    if args.json == "-":
        print(json.dumps(cmp, indent=2))
    elif args.json:
        write_atomic(args.json, json.dumps(cmp, indent=2))
        print(f"comparison: {args.json}")
    if args.out:
        write_atomic(args.out, html.render_comparison(cmp))
        print(f"comparison: {args.out}")
    return 0


def add_compare(sub) -> None:
    p = sub.add_parser("compare", help="several runs' clauses.json side by side, clause by clause")
    p.add_argument("runs", nargs="+", metavar="DIR", help="report directories (or clauses.json files)")
    p.add_argument("--out", metavar="FILE.html", help="write the comparison page here")
    p.add_argument("--json", metavar="FILE", help="write the comparison as JSON here ('-' for stdout)")
    p.set_defaults(func=_compare)


def add_nodes(sub) -> None:
    from kube32.conformance import nodes_cli

    nodes_cli.add_nodes(sub)


def add_rig(sub) -> None:
    from kube32.harness import cli as rig_cli

    p = sub.add_parser("rig", help="hardware-in-the-loop rigs of ESP32 boards (check, monitor)")
    rig_cli.add_subparsers(p.add_subparsers(dest="rig_command", required=True))



def _command(module: str):
    """``add(sub)`` of a module in ``commands/``, imported only when that command is built."""
    return lambda sub: importlib.import_module(f"kube32.conformance.commands.{module}").add(sub)


COMMANDS = {"run": _command("run"), "explore": _command("explore"), "clauses": _command("clauses"),
            "compare": add_compare, "serve": _command("serve"), "nodes": add_nodes, "rig": add_rig}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` just that command's (its options and errors are the same)."""
    parser = argparse.ArgumentParser(prog="kube32-conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {metadata.version(DISTRIBUTION)}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}")
    for name, add in COMMANDS.items():
        if only in (None, name):
            add(sub)
    return parser



def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # A command named first needs only its own parser: `serve` (started at every restart of the
    # process target) then imports none of the other commands' modules (~0.3 s of CPU).
    completing = "_ARGCOMPLETE" in os.environ
    parser = build_parser(words[0] if words and words[0] in COMMANDS and not completing else None)
    if completing:              # argcomplete answers the shell's completion request and exits
        import argcomplete

        argcomplete.autocomplete(parser)
    args = parser.parse_args(argv)
    args.words = list(words)
    return int(args.func(args) or 0)



if __name__ == "__main__":
    sys.exit(main())
