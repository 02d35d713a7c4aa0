"""``kube32-conformance run``: preflight, then pytest over the features with the plugin, one target or
several in turn (many.py), in parallel workers when the target allows it (parallel.py)."""

from __future__ import annotations

import argparse
import os
import sys

from kube32.conformance.commands.arguments import positive
from kube32.spec import profiles

AUTO = "auto"         # run --jobs auto (parallel.auto_jobs)
# pytest plugins a run never uses: not loaded, so neither the run nor each of its xdist workers pays
# their import (hypothesis + schemathesis alone cost 2-4 s of CPU per process)
UNUSED_PLUGINS = ("cacheprovider", "labgrid", "hypothesispytest", "schemathesis", "benchmark", "anyio",
                  "timeout")   # a real-time scenario lasts as long as its profile's durations say: minutes


def _list(args: argparse.Namespace) -> int:
    """The clauses and scenarios a run with these options selects; nothing runs, no report is written."""
    from kube32.conformance import suite
    from kube32.spec import catalogue

    if args.features:
        import os

        os.environ["KUBE32_FEATURES"] = args.features
    cat = catalogue.load()
    try:
        chosen = [sc for sc, selected in suite.selection(cat, args.clause or [], args.area or [], args.tags)
                  if selected]
    except Exception as exc:   # a malformed --tags expression
        raise SystemExit(f"kube32-conformance run --list: {exc}") from None
    clauses: dict[str, int] = {}
    for sc in chosen:
        print(f"{','.join(sc.clauses):50} {sc.feature}:{sc.line}  {sc.name}")
        for cid in sc.clauses:
            clauses[cid] = clauses.get(cid, 0) + 1
    print(f"{len(chosen)} scenarios of {len(clauses)} clauses selected:")
    for c in cat:
        if c.id in clauses:
            print(f"  {c.id:45} {c.area:15} {clauses[c.id]:3}  {c.title}")
    return 0


def run(args: argparse.Namespace) -> int:
    from kube32.conformance import preflight

    if args.features:
        args.features = os.path.abspath(args.features)      # pytest runs from elsewhere
    targets = args.target or ["reference"]
    if len(targets) > 1:
        if args.rig or args.list:
            print("kube32-conformance run: several --target run one after another into one comparison; "
                  "give --rig or --list with one target", file=sys.stderr)
            return preflight.USAGE
        from kube32.conformance import many

        return many.run(targets, args.report, args.words)
    args.target = targets[0]
    if args.rig and len(args.rig) > 1 and args.jobs != AUTO and args.jobs > len(args.rig):
        print(f"kube32-conformance run: --jobs {args.jobs} with {len(args.rig)} --rig: scenarios run in "
              "parallel one rig each (give as many --rig files as jobs); with several rigs, one rig's "
              "boards are not spread over several scenarios at once", file=sys.stderr)
        return preflight.USAGE
    problem = preflight.run(args)   # one line, its own exit status, the report directory untouched
    if problem is not None:
        print(problem.message, file=sys.stderr)
        return problem.code
    import pytest

    if args.list:
        return _list(args)
    argv = ["--pyargs", "kube32.conformance.bind", *[arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")],
            "-o", "addopts=", "--target", args.target, "--report", args.report, "--tb=short", "--no-summary",
            "-W", "ignore::pytest.PytestAssertRewriteWarning", "-W", "ignore::pytest.PytestConfigWarning"]
    # The plugin prints one line per scenario and the summary, last; pytest's own lines (its letters,
    # its FAILURES sections, its count of test items) would only repeat them (-qq, --no-summary);
    # --quiet leaves the summary alone.
    argv += ["-qqq"] if args.quiet else ["-qq"]
    if args.profile:
        argv += ["--profile", args.profile]
    for item in args.profile_set or []:
        argv += ["--profile-set", item]
    for rig in args.rig or []:
        argv += ["--rig", rig]
    if args.rig and len(args.rig) > 1:   # one pytest-xdist worker per rig, one merged report
        argv += _parallel(len(args.rig))
    if args.token:
        argv += ["--token", args.token]
    for flag in ("kubeconfig", "context", "node_credentials"):
        if getattr(args, flag, None):
            argv += [f"--{flag.replace('_', '-')}", getattr(args, flag)]
    if args.clock:
        argv += ["--clock", args.clock]
    if args.request_timeout:
        argv += ["--request-timeout", str(args.request_timeout)]
    if args.deviations:
        argv += ["--deviations", args.deviations]
    argv += ["--level", args.level]
    for clause in args.clause or []:
        argv += ["--clause", clause]
    for area in args.area or []:
        argv += ["--area", area]
    if args.tags:
        argv += ["-m", args.tags]
    chosen = selected(args)
    if args.jobs == AUTO:
        from kube32.conformance import parallel

        own = not args.rig and not args.kubeconfig and parallel.own_manual_target(args.target)
        args.jobs, args.auto_jobs = (parallel.auto_jobs(len(chosen)) if own else 1), True
    if args.rig and len(args.rig) == 1 and args.jobs > 1:   # one rig's node boards shared out (rig_jobs.py)
        args.jobs = _rig_workers(args.rig[0], chosen, args.jobs)
    if args.jobs > 1 and not (args.rig and len(args.rig) > 1):
        argv += _parallel(args.jobs)   # one target per worker (each builds its own from --target)
    print(estimate_line(args, "rig:" if args.rig else args.target, chosen), flush=True)
    from kube32.conformance import suite

    # a selection: this process and every worker parse and bind only the feature files it needs
    narrowed = {sc.feature for sc in chosen} if args.clause or args.area or args.tags else None
    with suite.binding(narrowed):
        return int(pytest.main(argv + list(args.pytest_args or [])))


def _jobs(text: str) -> str | int:
    if text == AUTO:
        return AUTO
    try:
        return positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers (at least 1) or auto") from None


def _parallel(workers: int) -> list[str]:
    """pytest-xdist with ``workers`` workers, one report; scenarios handed out one at a time in the
    workers' order (parallel.py: longest first), so the workers finish close together."""
    return ["-n", str(workers), "--dist", "load", "--maxschedchunk", "1"]


def _rig_workers(rig: str, chosen: list, jobs: int) -> int:
    """As many workers as the rig's node boards have room for (each plays the features' board nodes
    with boards of its own), at most ``jobs``; says so when that is fewer."""
    from kube32.conformance.targets import rig_jobs

    workers = rig_jobs.workers_for(rig, [text for sc in chosen for _, text, _ in sc.steps], jobs)
    if workers < jobs:
        print(f"kube32-conformance: --jobs {jobs}: rig {rig} has node boards for {workers} scenario(s) at once "
              f"({len(rig_jobs.rig_node_names(rig))} node boards)", file=sys.stderr)
    return workers


def selected(args: argparse.Namespace) -> list:
    """The scenarios the run selects (``suite.ScenarioInfo``)."""
    from kube32.conformance import suite
    from kube32.spec import catalogue

    if args.features:
        os.environ["KUBE32_FEATURES"] = args.features
    return [sc for sc, ok in suite.selection(catalogue.load(), args.clause or (), args.area or (), args.tags) if ok]


def estimate_line(args: argparse.Namespace, target: str, chosen: list) -> str:
    """"about N minutes" before the run starts, for the selected scenarios and the target's profile."""
    from kube32.conformance import estimate, parallel

    name = args.profile or ("hardware" if target.startswith("rig:") else "simulator")
    overrides = {k.strip(): float(v) for k, _, v in (item.partition("=") for item in args.profile_set or [])}
    try:
        profile = profiles.load(name, **overrides)     # the timing the run will have (short-timeout rigs)
    except (profiles.ProfileError, TypeError, ValueError):
        profile = profiles.load(name)
    # on a target the jobs share, the scenarios that count every node run one at a time (parallel.py)
    shared = target.startswith(("http://", "https://")) or bool(args.kubeconfig and target == "reference") \
        or bool(args.rig and len(args.rig) == 1 and args.jobs > 1)
    # a server at a URL cannot be restarted by the runner: those scenarios are disabled at once
    timed = [sc for sc in chosen if "restart" not in sc.needs] if shared and not args.rig else chosen
    alone = [sc for sc in timed if parallel.runs_alone(sc.tags, "\n".join(text for _, text, _ in sc.steps))] \
        if shared else ()
    jobs = len(args.rig) if args.rig and len(args.rig) > 1 else args.jobs   # several rigs: one worker each
    real = estimate.run_seconds(timed, profile, manual=False, jobs=jobs, alone=alone)
    manual = estimate.run_seconds(timed, profile, manual=True, jobs=jobs, alone=alone)
    where = f"{sum(sc.runs for sc in chosen)} scenarios, profile {profile.name}, " + (
        f"{jobs} rigs" if args.rig and len(args.rig) > 1
        else f"--jobs {args.jobs}" + (" (auto)" if getattr(args, "auto_jobs", False) else ""))
    if args.clock == "real" or target.endswith(":real") or target.startswith("rig:"):
        return f"kube32-conformance: {where}: {estimate.say(real)} on a real clock"
    if args.clock == "manual" or target in ("reference", "process") or target.startswith("process@"):
        return f"kube32-conformance: {where}: {estimate.say(manual)} on a manual clock"
    return (f"kube32-conformance: {where}: {estimate.say(manual)} if the target has a manual clock, "
            f"{estimate.say(real)} on a real clock")


def add(sub) -> None:
    from kube32.conformance.preflight import EXIT_STATUSES

    # no abbreviations (--targ for --target): several --target runs rebuild each run's words from these
    p = sub.add_parser("run", help="run the conformance features against a target and write reports", allow_abbrev=False,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="exit status:\n" + "\n".join(f"  {code:3}  {meaning}"
                                                           for code, meaning in sorted(EXIT_STATUSES.items())))
    p.add_argument("--target", action="append",
                   help="reference (in-process, default) | process (a serve subprocess) | process:real | "
                        "http(s)://URL of your kube32 API server; repeat it to run each target in turn, "
                        "each into DIR/<n>-<target>/, and compare them in DIR/compare.html")
    p.add_argument("--rig", metavar="FILE", action="append",
                   help="run on the hardware rig described by FILE (see README); repeat for several rigs "
                        "in parallel (one pytest-xdist worker each, one merged report)")
    p.add_argument("--jobs", type=_jobs, default=AUTO, metavar="N",
                   help="run scenarios in N parallel workers (pytest-xdist), each with its own target "
                        "(reference, process, process:real) or sharing an http(s) URL or one --rig's "
                        "control plane (each worker with node boards of its own); one report. Default "
                        "auto: for reference and process, one worker per core while each gets 60 "
                        "scenarios or more; otherwise 1")
    p.add_argument("--profile", choices=profiles.NAMES, default=None,
                   help="the target's timing profile (default simulator; hardware for rigs)")
    p.add_argument("--profile-set", action="append", metavar="FIELD=SECONDS",
                   help="override a timing-profile field for a target started with short timeouts")
    p.add_argument("--token", help="bearer token for an HTTP target")
    p.add_argument("--kubeconfig", metavar="FILE", help="reach the target as this kubeconfig says (its server "
                   "is the target unless --target names one; token, CA, client certificate)")
    p.add_argument("--context", metavar="NAME", help="the kubeconfig context (default: its current context)")
    p.add_argument("--node-credentials", metavar="DIR", help="fake kubelets use DIR/node-<name>.kubeconfig "
                   "(as serve --tls-self-signed writes them) to speak as their node")
    p.add_argument("--clock", choices=("auto", "manual", "real"), default=None,
                   help="the target's clock: auto probes GET /debug/clock (default); manual or real force it")
    p.add_argument("--request-timeout", type=float, metavar="SECONDS",
                   help="how long one API request may take before it counts as lost (default 30)")
    p.add_argument("--clause", action="append", metavar="ID",
                   help="only these clauses (glob; repeatable)").completer = _complete_clauses
    p.add_argument("--area", action="append",
                   help="only these areas (repeatable)").completer = _complete_areas
    p.add_argument("--tags", metavar="EXPR", help="pytest -m expression over feature tags")
    p.add_argument("--deviations", metavar="FILE", help="YAML list of {clause, reason} the target declares")
    p.add_argument("--level", choices=("document", "reference"), default="document",
                   help="the level that decides verdicts and exit status: document (what the document states, "
                        "default) or reference (also our readings where the document is silent)")
    p.add_argument("--report", default="reports", metavar="DIR",
                   help="where junit.xml, cucumber.json, clauses.json, index.html go (default %(default)s)")
    p.add_argument("--features", metavar="DIR", help="run these feature files instead of the packaged ones")
    p.add_argument("-q", "--quiet", action="store_true", help="no line per scenario: the summary only")
    p.add_argument("--list", action="store_true",
                   help="print the selected clauses and scenarios; run nothing, write no report")
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments after --")
    p.set_defaults(func=run)


def _complete_areas(prefix: str, **_) -> list[str]:
    """Shell completion (argcomplete) for --area: the catalogue's areas."""
    from kube32.spec import catalogue

    return [a for a in catalogue.AREAS if a.startswith(prefix)]


def _complete_clauses(prefix: str, **_) -> list[str]:
    """Shell completion for --clause: clause IDs (and the ``AREA-*`` globs of their prefixes)."""
    from kube32.spec import catalogue

    ids = catalogue.load().ids
    globs = sorted({f"{cid.split('-')[0]}-*" for cid in ids})
    return [c for c in (*globs, *ids) if c.startswith(prefix.upper() if prefix.islower() else prefix)]

