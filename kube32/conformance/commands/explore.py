"""``kube32-conformance explore``: model-based differential search (kube32/conformance/explore/).
Operations a user and a fleet produce run on the target and on an in-process reference side by
side; where the document decides, a difference is a finding, shrunk and written as a replayable
``.feature`` (``run --features DIR``).

Exit status: 0 no disagreement within the budget, 1 a disagreement (a finding), 2 usage,
10 the target could not be asked (an ``error``: no verdict)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from kube32.conformance.commands.arguments import duration

FOUND = 1
USAGE = 2
ERROR = 10


def add(sub) -> None:
    from kube32.conformance.explore import areas

    p = sub.add_parser("explore", help="search for what the features miss: the target and the reference side "
                                       "by side, a disagreement shrunk to a replayable scenario",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="exit status:\n    0  no disagreement within the budget\n    1  a disagreement (its "
                              ".feature is in the report directory)\n    2  the command line is wrong\n   10  the "
                              "target could not be asked (error: no verdict)")
    p.add_argument("--target", default="reference",
                   help="reference (a second in-process reference) | process | process:real | http(s)://URL")
    p.add_argument("--area", action="append", choices=sorted({*areas.NAMES, *areas.ALIASES}),
                   help="the areas whose operations and checks are explored (repeatable; default scheduler)")
    p.add_argument("--seed", type=int, default=0, help="the first round's seed (the next rounds count up)")
    p.add_argument("--budget", type=duration, default=300.0, metavar="DURATION",
                   help="how long to search before shrinking, e.g. 30s, 5m (default 5m)")
    p.add_argument("--report", default="explore-report", metavar="DIR",
                   help="where the finding, the seeds and Hypothesis' example database go (default %(default)s)")
    p.add_argument("--profile", default="simulator", help="timing profile of the target (default simulator)")
    p.set_defaults(func=explore)


def explore(args: argparse.Namespace) -> int:
    from kube32.conformance import errors
    from kube32.conformance.explore import areas, session
    from kube32.conformance.targets import registry
    from kube32.conformance.targets.reference import ReferenceTarget
    from kube32.spec import profiles

    why = registry.invalid(args.target)
    if why:
        print(f"kube32-conformance explore: --target {why}", file=sys.stderr)
        return USAGE
    try:
        profile = profiles.load(args.profile)
    except profiles.ProfileError as exc:
        print(f"kube32-conformance explore: --profile {exc}", file=sys.stderr)
        return USAGE
    chosen = [areas.load(name) for name in dict.fromkeys(args.area or ["scheduler"])]
    try:
        target = registry.create(args.target, profile)
        oracle, side = session.open_sides(ReferenceTarget(profile), target)
    except (errors.HarnessError, OSError) as exc:
        print(f"kube32-conformance explore: target {args.target}: {exc}", file=sys.stderr)
        return ERROR
    if not side.manual:
        chosen = [a for a in chosen if a.TIME_FREE]
        print("explore: the target runs on a real clock: only the time-free rules (scheduling, accounting, "
              "endpoints, validation) are explored", flush=True)
        if not chosen:
            print("kube32-conformance explore: no chosen area is time-free", file=sys.stderr)
            return USAGE
    os.makedirs(args.report, exist_ok=True)
    try:
        result = session.Session(oracle, side, chosen, seed=args.seed, budget=args.budget,
                                 report_dir=args.report).run()
    finally:
        for s in (oracle, side):
            s.target.stop()
    return _report(args, result, side.describe())


def _report(args: argparse.Namespace, result: dict, target: dict) -> int:
    """``summary.json`` always; ``finding.feature`` for a disagreement; the verdict in one line."""
    os.makedirs(args.report, exist_ok=True)
    finding = result["finding"]
    stats = result["stats"]
    summary = {"verdict": result["verdict"], "why": result["why"], "target": target, "seeds": result["seeds"],
               "seconds": round(result["duration"], 1), "examples": stats.examples, "operations": stats.operations,
               "compared": stats.compared, "disagreements": stats.disagreements,
               "reference_level": result["beside"]}
    path = None
    if finding is not None:
        path = os.path.join(args.report, "finding.feature")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(feature_text(finding, args))
        summary["finding"] = {"clause": finding.clause, "message": finding.message, "steps": len(finding.steps),
                              "first_steps": finding.first_steps, "found_after": round(finding.found_after, 1),
                              "seed": finding.seed, "feature": path}
    with open(os.path.join(args.report, "summary.json"), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2)
    if result["verdict"] == "error":
        print(f"explore: error: {result['why']} (no verdict on the target)", file=sys.stderr)
        return ERROR
    if finding is None:
        print(f"explore: no disagreement in {stats.operations} operations ({result['why']})")
        return 0
    print(f"explore: FAILED {finding.clause}: {finding.message}")
    print(f"explore: the smallest case ({len(finding.steps)} steps, from {finding.first_steps}) is {path}:")
    print(feature_text(finding, args), end="")
    print(f"explore: replay it with: kube32-conformance run --features {os.path.dirname(path) or '.'} "
          f"--target {args.target}")
    return FOUND


def feature_text(finding, args: argparse.Namespace) -> str:
    from kube32.conformance.explore import gherkin
    from kube32.spec import catalogue

    clause = catalogue.load().get(finding.clause)
    # explore owns the node set (placements and FailedScheduling counts depend on every node)
    return gherkin.feature(
        f"explore finding: {clause.title}",
        f"Found by kube32-conformance explore --target {args.target} --seed {finding.seed} after "
        f"{finding.found_after:.0f} s, shrunk from {finding.first_steps} steps. {finding.message}",
        [f"area-{clause.area}", "needs-exclusive-nodes"],
        f"the smallest case explore found against {clause.id}", [f"clause-{clause.id}"], list(finding.steps))
