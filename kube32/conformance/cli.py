# PYTHON_ARGCOMPLETE_OK
"""``kube32-conformance``: one console script for the whole toolkit.

Subcommands: ``run`` (conformance against a target), ``clauses`` (the catalogue and its coverage),
``compare`` (several runs side by side), ``serve`` (the reference control plane), ``rig`` (hardware rigs).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from importlib import metadata

from kube32.spec import profiles

DISTRIBUTION = "kube32-conformance"
AUTO = "auto"         # run --jobs auto (parallel.auto_jobs)
CLAUSES_MALFORMED = 3  # clauses: a catalogue or trace file cannot be read (1: --check found problems; 2: usage)
# pytest plugins a run never uses: not loaded, so neither the run nor each of its xdist workers pays
# their import (hypothesis + schemathesis alone cost 2-4 s of CPU per process)
UNUSED_PLUGINS = ("cacheprovider", "labgrid", "hypothesispytest", "schemathesis", "benchmark", "anyio",
                  "timeout")   # a real-time scenario lasts as long as its profile's durations say: minutes


_DURATION = re.compile(r"(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m)?(?:(\d+(?:\.\d*)?)s)?")


def duration(text: str) -> float:
    """Seconds from a Go duration of hours, minutes and seconds (``1h0m0s``, ``30m``) or a number."""
    try:
        seconds = float(text)
    except ValueError:
        m = _DURATION.fullmatch(text.strip())
        if not text.strip() or m is None:
            raise argparse.ArgumentTypeError(f"not a duration: {text!r} (examples: 1h0m0s, 30m, 90s, 3600)") \
                from None
        h, mi, sec = (float(g) if g else 0.0 for g in m.groups())
        seconds = h * 3600 + mi * 60 + sec
    if seconds < 0 or seconds != seconds:
        raise argparse.ArgumentTypeError(f"a duration must not be negative: {text!r}")
    return seconds


def positive(text: str) -> int:
    """A whole number of at least 1 (a count of connections or watches)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _serve(args: argparse.Namespace) -> int:
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
    p.set_defaults(func=_serve)


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


def _run(args: argparse.Namespace) -> int:
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
    chosen = _chosen(args)
    if args.jobs == AUTO:
        from kube32.conformance import parallel

        own = not args.rig and not args.kubeconfig and parallel.own_manual_target(args.target)
        args.jobs, args.auto_jobs = (parallel.auto_jobs(len(chosen)) if own else 1), True
    if args.rig and len(args.rig) == 1 and args.jobs > 1:   # one rig's node boards shared out (rig_jobs.py)
        args.jobs = _rig_workers(args.rig[0], chosen, args.jobs)
    if args.jobs > 1 and not (args.rig and len(args.rig) > 1):
        argv += _parallel(args.jobs)   # one target per worker (each builds its own from --target)
    print(_estimate_line(args, "rig:" if args.rig else args.target, chosen), flush=True)
    from kube32.conformance import suite

    # a selection: this process and every worker parse and bind only the feature files it needs
    narrowed = {sc.feature for sc in chosen} if args.clause or args.area or args.tags else None
    with suite.binding(narrowed):
        return int(pytest.main(argv + list(args.pytest_args or [])))


def _jobs(text: str) -> str | int:
    if text == AUTO:
        return AUTO
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers or auto") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"{jobs}: at least 1 worker")
    return jobs


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


def _chosen(args: argparse.Namespace) -> list:
    """The scenarios the run selects (``suite.ScenarioInfo``)."""
    from kube32.conformance import suite
    from kube32.spec import catalogue

    if args.features:
        os.environ["KUBE32_FEATURES"] = args.features
    return [sc for sc, ok in suite.selection(catalogue.load(), args.clause or (), args.area or (), args.tags) if ok]


def _estimate_line(args: argparse.Namespace, target: str, chosen: list) -> str:
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


def add_run(sub) -> None:
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
    p.set_defaults(func=_run)


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


def _clauses(args: argparse.Namespace) -> int:
    import json

    from kube32.conformance import preflight, suite
    from kube32.spec import catalogue, trace

    try:
        cat = catalogue.load()
        tr = trace.load()
    except (catalogue.CatalogueError, trace.TraceError) as exc:   # a malformed file: one line, the check fails
        print(f"kube32-conformance clauses: {exc}", file=sys.stderr)
        return CLAUSES_MALFORMED
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


def add_clauses(sub) -> None:
    p = sub.add_parser("clauses", help="list the clause catalogue with scenario coverage",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="exit status:\n    0  done (--check: no problem)\n    1  --check found problems\n"
                              "    2  the command line is wrong (--document FILE unreadable, --skeleton alone)\n"
                              f"  {CLAUSES_MALFORMED:3}  a clause catalogue or trace file is malformed (one line names it)")
    p.add_argument("--check", action="store_true",
                   help="fail when a clause has no scenario, a scenario names an unknown clause or tag, a sentence "
                        "of the trace has no scenario or lacks a side, or a document-level scenario no sentence")
    p.add_argument("--document", metavar="FILE",
                   help="with --check: hold the trace against this copy of the kube32 document as well")
    p.add_argument("--skeleton", action="store_true",
                   help="print trace entries (locator and digest) for every unit of --document FILE")
    p.add_argument("--json", action="store_true", help="machine-readable list")
    p.set_defaults(func=_clauses)


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


COMMANDS = {"run": add_run, "clauses": add_clauses, "compare": add_compare, "serve": add_serve,
            "nodes": add_nodes, "rig": add_rig}


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
