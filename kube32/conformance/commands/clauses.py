"""``kube32-conformance clauses``: the catalogue with its coverage, and ``--check`` of the features
and the sentence-by-sentence trace against the catalogue (and the document)."""

from __future__ import annotations

import argparse
import sys

MALFORMED = 3      # a catalogue or trace file cannot be read (1: --check found problems; 2: usage)


def clauses(args: argparse.Namespace) -> int:
    import json

    from kube32.conformance import preflight, suite
    from kube32.spec import catalogue, trace

    try:
        cat = catalogue.load()
        tr = trace.load()
    except (catalogue.CatalogueError, trace.TraceError) as exc:   # a malformed file: one line, the check fails
        print(f"kube32-conformance clauses: {exc}", file=sys.stderr)
        return MALFORMED
    units = None
    if args.document:
        from pathlib import Path

        from kube32.spec import document

        try:
            units = document.units(Path(args.document).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            print(f"kube32-conformance clauses: --document {args.document}: {exc.strerror or exc}", file=sys.stderr)
            return preflight.USAGE
    if args.skeleton:
        from kube32.conformance import tracecheck

        if units is None:
            print("kube32-conformance clauses: --skeleton needs --document FILE", file=sys.stderr)
            return preflight.USAGE
        print(tracecheck.skeleton(units), end="")
        return 0
    if args.check:
        from kube32.conformance import steplint, tracecheck

        scenarios = suite.scenarios()
        problems = [*suite.check(cat), *tracecheck.check(tr, cat, scenarios, units), *tracecheck.missing_files(tr),
                    *steplint.check()]
        for problem in problems:
            print(problem)
        print(f"{len(list(cat))} clauses, {len(scenarios)} scenarios, {tracecheck.summary(tr)}, "
              f"{len(problems)} problems")
        return 1 if problems else 0
    counts: dict[str, int] = {}
    for sc in suite.scenarios():
        for cid in sc.clauses:
            counts[cid] = counts.get(cid, 0) + 1
    rows = [{"id": c.id, "area": c.area, "scenarios": counts.get(c.id, 0), "title": c.title,
             "interpretation": bool(c.interpretation)} for c in cat]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        flag = "*" if r["interpretation"] else " "
        print(f"{r['id']:45} {r['area']:15} {r['scenarios']:3}{flag} {r['title']}")
    print(f"{len(rows)} clauses; * = our interpretation (spec/decisions.md)")
    return 0


def add(sub) -> None:
    p = sub.add_parser("clauses", help="list the clause catalogue with scenario coverage",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="exit status:\n    0  done (--check: no problem)\n    1  --check found problems\n"
                              "    2  the command line is wrong (--document FILE unreadable, --skeleton alone)\n"
                              f"  {MALFORMED:3}  a clause catalogue or trace file is malformed (one line names it)")
    p.add_argument("--check", action="store_true",
                   help="fail when a clause has no scenario, a scenario names an unknown clause or tag, a sentence "
                        "of the trace has no scenario or lacks a side, or a document-level scenario no sentence")
    p.add_argument("--document", metavar="FILE",
                   help="with --check: hold the trace against this copy of the kube32 document as well")
    p.add_argument("--skeleton", action="store_true",
                   help="print trace entries (locator and digest) for every unit of --document FILE")
    p.add_argument("--json", action="store_true", help="machine-readable list")
    p.set_defaults(func=clauses)

