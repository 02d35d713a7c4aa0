"""The pytest plugin (entry point ``pytest11``): options, markers, the target and ``k32`` fixtures,
verdict bookkeeping and reports. Inert for test runs that collect no kube32 feature scenarios.

Run the suite as plain pytest:  ``pytest --pyargs kube32.conformance.bind --target URL --report DIR``
(``kube32-conformance run`` is a thin layer over exactly that).
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import os
import pkgutil
import shutil
import sys
import tempfile
import time

import pytest

from kube32.conformance import (
    credentials,
    errors,
    explanation,
    kubeconfig,
    levels,
    naming,
    parallel,
    preflight,
    reachability,
    steplookup,
    steps,
    suite,
)
from kube32.conformance.context import ScenarioContext, target_is_fresh
from kube32.conformance.heartbeat import Heartbeat
from kube32.conformance.reports import collector, terminal
from kube32.conformance.reports.gherkin import SCENARIO_LOG, ScenarioLog
from kube32.conformance.suite import NEEDS_PREFIX, item_clauses, known_tags
from kube32.conformance.targets import registry, rig_jobs
from kube32.conformance.targets.base import CLOCK_MODES, EXCLUSIVE_NODES
from kube32.spec import catalogue, profiles

VERDICT = pytest.StashKey[str]()
SCENARIO_TARGET = pytest.StashKey[object]()   # the target a scenario ran on (board health, console logs)
JUDGE = pytest.StashKey[levels.Judge]()          # the scenario's findings by clause and level
REACH = pytest.StashKey[reachability.Reachability]()   # this process: has the target stopped answering?
LOGS_ATTR = "kube32_logs"                    # board consoles on a teardown report (survives xdist)
LOCK_FILE = pytest.StashKey[str]()           # xdist controller: the run's lock file (parallel.turn)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kube32", "kube32 conformance")
    group.addoption("--target", default="reference",
                    help="reference (in-process, default) | process (a serve subprocess) | http(s)://URL | "
                         "rig:FILE")
    group.addoption("--profile", default=None, choices=profiles.NAMES,
                    help="timing profile of the target (default: simulator; hardware for rigs)")
    group.addoption("--profile-set", action="append", default=[], metavar="FIELD=SECONDS",
                    help="override a timing-profile field, e.g. lease_duration=4 (for short-timeout targets)")
    group.addoption("--rig", action="append", default=[], metavar="FILE",
                    help="run on the rig described by FILE; several, with -n (pytest-xdist): one rig per worker")
    group.addoption("--token", default=None, help="bearer token for an HTTP target")
    group.addoption("--kubeconfig", default=None, metavar="FILE",
                    help="reach the target as this kubeconfig's context says (server, token, TLS, client cert)")
    group.addoption("--context", default=None, metavar="NAME", help="the kubeconfig context (default: current)")
    group.addoption("--node-credentials", default=None, metavar="DIR",
                    help="fake kubelets speak as their node with DIR/node-<name>.kubeconfig when it exists")
    group.addoption("--clock", default="auto", choices=CLOCK_MODES,
                    help="the target's clock: auto (probe GET /debug/clock, default) | manual | real")
    group.addoption("--request-timeout", type=float, default=None, metavar="SECONDS",
                    help="how long one API request may take before it counts as lost (default 30)")
    group.addoption("--report", default=None, metavar="DIR",
                    help="write junit.xml, cucumber.json, clauses.json and index.html to DIR")
    group.addoption("--deviations", default=None, metavar="FILE",
                    help="YAML list of {clause, reason}: declared deviations of the target")
    group.addoption("--clause", action="append", default=[], metavar="ID",
                    help="run only scenarios of these clauses (glob patterns allowed; repeatable)")
    group.addoption("--area", action="append", default=[], help="run only these areas (repeatable)")
    group.addoption("--level", default=levels.DOCUMENT, choices=levels.LEVELS,
                    help="the level that decides verdicts and exit status: document (what the document "
                         "states, default) or reference (also our readings where it is silent)")
    group.addoption("--heartbeat", type=float, default=None, metavar="SECONDS",
                    help="during long real-time waits, say how far they got every SECONDS "
                         "(default 10 on a terminal, 30 otherwise)")


def _profile(config: pytest.Config) -> profiles.Profile:
    name = config.getoption("--profile") or ("hardware" if _target_spec(config).startswith("rig:")
                                             else "simulator")
    overrides = {}
    for item in config.getoption("--profile-set"):
        key, _, value = item.partition("=")
        overrides[key.strip()] = float(value)
    return profiles.load(name, **overrides)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    cat = catalogue.load()
    config.stash[collector.CATALOGUE] = cat
    for tag, meaning in known_tags(cat).items():
        config.addinivalue_line("markers", f"{tag}: {meaning}")
    # Every step module is marked for assertion rewriting before the first is imported: they import
    # each other, and a module imported before its mark cannot be rewritten (PytestAssertRewriteWarning).
    step_modules = [f"{steps.__name__}.{m.name}" for m in pkgutil.iter_modules(steps.__path__)]
    pytest.register_assert_rewrite(*step_modules)
    for name in step_modules:
        config.pluginmanager.import_plugin(name)
    steplookup.install()
    # pyserial 3.5, its last release, calls Thread.setDaemon/setName whenever it opens an rfc2217:// port.
    config.addinivalue_line("filterwarnings",
                            r"ignore:set(Daemon|Name)\(\) is deprecated:DeprecationWarning:serial\.rfc2217")
    # bad files and selections stop the run before anything is written (the CLI checks them first)
    problem = preflight.selection_problem(cat, config.getoption("--clause"), config.getoption("--area"))
    if problem is not None:
        raise pytest.UsageError(problem.message)
    _deviations(config)
    report = config.getoption("--report")
    if report:
        os.makedirs(report, exist_ok=True)
    config.stash[collector.COLLECTOR] = collector.Collector(cat, config.getoption("--level"))
    config.stash[REACH] = reachability.Reachability(config.getoption("--target"))
    rigs = config.getoption("--rig")
    workers = getattr(config.option, "numprocesses", None)
    if rigs and workers and not _is_worker(config):   # the workers drive the rigs; the report names them all
        config.stash[collector.COLLECTOR].target = {"name": "rigs", "rigs": list(rigs), "clock": "real",
                                                    "profile": _profile(config).name, "workers": workers}
    if not _is_worker(config):
        config.pluginmanager.register(Reporting(config), "kube32-reporting")
    if getattr(config.option, "numprocesses", None) and not _is_worker(config):
        lock_dir = tempfile.mkdtemp(prefix="kube32-run-")
        config.stash[LOCK_FILE] = os.path.join(lock_dir, "scenarios.lock")
        config.add_cleanup(lambda: shutil.rmtree(lock_dir, ignore_errors=True))


def _is_scenario(item: pytest.Item) -> bool:
    return bool(item_clauses(item))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The run's selection; in xdist workers also the order scenarios are handed out in (parallel.py)."""
    patterns = config.getoption("--clause")
    areas = set(config.getoption("--area"))
    if patterns or areas:
        cat = config.stash[collector.CATALOGUE]
        keep, drop = [], []
        for item in items:
            (keep if suite.wanted(item_clauses(item), cat, patterns, areas) else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if _is_worker(config) and any(_is_scenario(i) for i in items):
        profile = _profile(config)
        # with several rigs every worker has one to itself: no scenario waits for the others' end
        alone = (lambda i: False) if len(config.getoption("--rig")) > 1 else parallel.item_runs_alone
        items[:] = parallel.order(items, lambda i: parallel.item_seconds(i, profile), alone,
                                  int(config.workerinput.get("workercount", 1)))
        if len(config.getoption("--rig")) == 1:   # one rig's boards shared out: the serial phase's scenarios
            rig_jobs.write_alone(_run_dir(config), [i.nodeid for i in items if alone(i)])


def _run_dir(config: pytest.Config) -> str:
    """The run's lock directory (made by the xdist controller, shared by every worker)."""
    lock = config.workerinput[parallel.LOCK_KEY] if _is_worker(config) else config.stash[LOCK_FILE]
    return os.path.dirname(lock)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """One rig shared by the workers: its serial phase runs on one worker after the others stopped."""
    if len(config.getoption("--rig")) == 1:
        from kube32.conformance.targets.rig_schedule import SerialTail

        return SerialTail(config, log, run_dir=_run_dir(config))
    return None


def _rig_share(request: pytest.FixtureRequest) -> rig_jobs.RigShare | None:
    """This worker's boards when the workers share one rig (``run --rig FILE --jobs N``)."""
    config = request.config
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if len(config.getoption("--rig")) != 1 or workers < 2:
        return None
    texts = [s.name for item in request.session.items for s in parallel.item_steps(item)]
    try:
        return rig_jobs.share(config.getoption("--rig")[0], texts, int(config.workerinput["workerid"][2:]),
                              workers, _run_dir(config))
    except ValueError as exc:   # more workers than the rig's node boards have room for (plain pytest -n)
        raise errors.TargetUnavailable(f"--rig {config.getoption('--rig')[0]} with {workers} workers: {exc}") from None


def pytest_collection_finish(session: pytest.Session) -> None:
    """What exists once the scenarios are collected (modules, items, the catalogue) lives as long as
    the run: out of the cyclic collector's sight, a full collection walks only what came since (it
    was ~10 % of a manual-clock run's CPU: ten full collections of ~0.3 s)."""
    if any(_is_scenario(item) for item in session.items):
        gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist controller: every worker gets the run's lock file (scenarios that must run alone)."""
    node.workerinput[parallel.LOCK_KEY] = node.config.stash[LOCK_FILE]


# -- fixtures -----------------------------------------------------------------------------
def _target_spec(config: pytest.Config) -> str:
    """``--target``, or with ``--rig`` files the rig of this process (xdist worker gwN gets rig N)."""
    rigs = config.getoption("--rig")
    if not rigs:
        return config.getoption("--target")
    worker = getattr(config, "workerinput", {}).get("workerid", "gw0")
    return f"rig:{rigs[int(worker.removeprefix('gw') or 0) % len(rigs)]}"


@pytest.fixture(scope="session")
def k32_target(pytestconfig: pytest.Config, request: pytest.FixtureRequest):
    __tracebackhide__ = True
    try:
        access = credentials.resolve(pytestconfig.getoption("--token"), pytestconfig.getoption("--kubeconfig"),
                                     pytestconfig.getoption("--context"))
        spec = _target_spec(pytestconfig)
        if access.url and spec == "reference" and pytestconfig.getoption("--kubeconfig"):
            spec = access.url          # a kubeconfig names the server when --target does not
        target = registry.create(spec, _profile(pytestconfig), token=access.token,
                                 clock=pytestconfig.getoption("--clock"),
                                 request_timeout=pytestconfig.getoption("--request-timeout"), access=access,
                                 rig_share=_rig_share(request))
        if hasattr(target, "node_credentials"):
            target.node_credentials = pytestconfig.getoption("--node-credentials")
    except kubeconfig.KubeconfigError as exc:
        pytest.exit(str(exc), returncode=2)
    except errors.TargetUnavailable as exc:   # e.g. a bad rig file: one line, not one error per scenario
        pytest.exit(str(exc), returncode=2)
    try:
        target.start()
    except errors.HarnessError:
        raise
    except Exception as exc:
        raise errors.TargetUnavailable(f"target {pytestconfig.getoption('--target')} did not start: "
                                       f"{exc!r}") from None
    described = target.describe()
    pytestconfig.stash[collector.COLLECTOR].target = described
    terminal = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        terminal.write_line(f"kube32: {_clock_line(described)}")
    yield target
    target.stop()


@pytest.fixture
def k32(request: pytest.FixtureRequest, k32_target):
    """The scenario context. Disables the scenario when the target lacks a needed capability."""
    target = k32_target
    request.node.stash[SCENARIO_TARGET] = target
    request.config.stash[REACH].check()
    tags = frozenset(m.name for m in request.node.iter_markers())
    held = contextlib.ExitStack()
    turn = None
    lock = getattr(request.config, "workerinput", {}).get(parallel.LOCK_KEY)
    # a rig the workers share keeps them apart by its boards (rig_jobs.py): its serial phase takes
    # every board once the other workers have stopped, so it must not wait for their turns too
    by_boards = getattr(target, "separate_by_boards", False)
    if lock and getattr(target, "shared", False) and not by_boards:   # other workers' scenarios use it too
        turn = parallel.Turn(lock)
        held.callback(turn.close)
        turn.alone() if target.clock.manual or parallel.item_runs_alone(request.node) else turn.share()
    try:
        target.begin_scenario()
    except BaseException:
        held.close()
        raise
    try:
        # beside other scenarios, a fence gives the scenario a node set of its own (parallel.py)
        shares = (turn is not None or by_boards) and parallel.shares_nodes(target, request.node)
        needs = sorted({m.name[len(NEEDS_PREFIX):] for m in request.node.iter_markers()
                        if m.name.startswith(NEEDS_PREFIX)} - ({EXCLUSIVE_NODES} if shares else set()))
        missing = [n for n in needs if n not in target.capabilities]
        if missing:
            reason = f"target lacks capability {', '.join(missing)}"
            if "exclusive-nodes" in missing and getattr(target, "foreign_nodes", None):
                reason += f" (foreign nodes present: {', '.join(target.foreign_nodes[:5])})"
            pytest.skip(f"disabled: {reason}")
        judge = levels.Judge(item_clauses(request.node), levels.REFERENCE
                             if levels.SCENARIO_REFERENCE_TAG in tags else levels.DOCUMENT)
        request.node.stash[JUDGE] = judge
        ctx = ScenarioContext(target, tags=tags, heartbeat=request.config.stash.get(HEARTBEAT, None), judge=judge,
                              before_nodes=turn.alone if turn is not None and not shares else None,
                              own_nodes=naming.declared(parallel.item_steps(request.node)) if shares else None)
        prepare = getattr(target, "prepare_scenario", None)   # a rig parks boards the scenario must not see
        if prepare is not None:
            prepare(ctx)
    except BaseException:
        with held:
            target.end_scenario()
        raise
    request.node.stash[collector.CONTEXT] = ctx
    yield ctx
    __tracebackhide__ = True
    ctx.close()
    problems, lost = [], None
    with held:
        for step in ((lambda: None) if target_is_fresh(target) else ctx.cleanup, target.end_scenario):
            try:
                step()
            except errors.TargetUnavailable as exc:      # the cause: what stays behind follows from it
                lost = lost or exc
            except errors.HarnessError as exc:
                problems.append(str(exc))
    if lost is not None:
        raise lost
    if problems:
        raise errors.CleanupFailed("; ".join(problems))


def _clock_line(described: dict) -> str:
    choice = described.get("clock_choice") or {}
    how = f" ({choice['how']})" if choice.get("how") else ""
    return f"target {described.get('url') or described.get('name')}: {described.get('clock')} clock{how}"


# -- the Gherkin record of each scenario (steps, durations, step locations) -----------------------
def pytest_bdd_before_scenario(request: pytest.FixtureRequest, feature, scenario) -> None:
    request.node.stash[SCENARIO_LOG] = ScenarioLog(feature, scenario)


def _clock_now(item: pytest.Item) -> float | None:
    ctx = item.stash.get(collector.CONTEXT, None)
    return ctx.timeline.now() if ctx is not None else None


def _step_log(request: pytest.FixtureRequest) -> ScenarioLog | None:
    return request.node.stash.get(SCENARIO_LOG, None)


def pytest_bdd_step_func_lookup_error(request: pytest.FixtureRequest, feature, scenario, step, exception) -> None:
    log = _step_log(request)
    if log is not None:
        log.undefined(step)


# -- targets with boards (rigs): health after every step, console logs in the reports ----------
def _health_check(request: pytest.FixtureRequest):
    return getattr(request.node.stash.get(SCENARIO_TARGET, None), "check_health", None)


def pytest_bdd_before_step(request: pytest.FixtureRequest, feature, scenario, step, step_func) -> None:
    """Steps are timed; a long wait in the step says so; targets with consoles (rigs) mark each step
    in the boards' logs."""
    judge = request.node.stash.get(JUDGE, None)
    if judge is not None:
        judge.step = f"{step.keyword} {step.name}".strip()
    log = _step_log(request)
    if log is not None:
        log.started(step, step_func, _clock_now(request.node))
    heartbeat = request.config.stash.get(HEARTBEAT, None)
    if heartbeat is not None:
        heartbeat.what = f"{step.keyword} {step.name}".strip()
    note = getattr(request.node.stash.get(SCENARIO_TARGET, None), "note", None)
    if note is not None:
        note(f"step: {step.keyword} {step.name}")


def pytest_bdd_before_step_call(request: pytest.FixtureRequest, feature, scenario, step, step_func,
                                step_func_args) -> None:
    """A scenario with node names of its own (naming.py) gets them in every argument."""
    ctx = request.node.stash.get(collector.CONTEXT, None)
    if ctx is not None and ctx.node_names:
        ctx.renamer.arguments(step_func_args)


def pytest_bdd_after_step(request: pytest.FixtureRequest, feature, scenario, step, step_func,
                          step_func_args) -> None:
    """A board that crashed or vanished during the step makes the scenario an ERROR now."""
    log = _step_log(request)
    if log is not None:
        log.ended(step, "passed")
    check = _health_check(request)
    if check is not None:
        check()


def pytest_bdd_step_error(request: pytest.FixtureRequest, feature, scenario, step, step_func, step_func_args,
                          exception) -> None:
    """A step failed: when a board broke meanwhile, that (an ERROR) is the explanation, not the target."""
    log = _step_log(request)
    if log is not None:
        log.ended(step, "failed")
    check = _health_check(request)
    if check is not None and not isinstance(exception, errors.HarnessError):
        check()


def pytest_bdd_after_scenario(request: pytest.FixtureRequest, feature, scenario) -> None:
    """Before the verdict, a target with boards checks every board once more (consoles drained):
    a crash anywhere in the scenario, the last step included, makes it an ERROR."""
    final = getattr(request.node.stash.get(SCENARIO_TARGET, None), "final_health_check", None)
    if final is not None and not isinstance(sys.exc_info()[1], errors.CapabilityMissing):
        final()


def _attach_logs(item: pytest.Item, report: pytest.TestReport) -> None:
    logs_of = getattr(item.stash.get(SCENARIO_TARGET, None), "scenario_logs", None)
    if logs_of is None:
        return
    logs = logs_of()
    if not logs:
        return
    if report.when == "call" and report.failed:
        report.sections.append(("Captured stdout board consoles", "".join(
            f"--- {board} ---\n{text}" for board, text in logs.items())))
    if report.when == "teardown":
        setattr(report, LOGS_ATTR, dict(logs))


# -- verdicts -----------------------------------------------------------------------------
def clause_levels(config: pytest.Config) -> dict[str, str]:
    return {c.id: c.level for c in config.stash[collector.CATALOGUE]}


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A scenario whose soft checks (``k32.judging``) failed at the chosen level fails at its end."""
    result = yield
    judge = pyfuncitem.stash.get(JUDGE, None)
    if judge is not None:
        failing = judge.failing(pyfuncitem.config.getoption("--level"), clause_levels(pyfuncitem.config))
        if failing:
            raise levels.SoftFailures(failing)
    return result


def _deviations(config: pytest.Config) -> dict[str, str]:
    """``--deviations``, read and checked once (``preflight.load_deviations``) at configure time."""
    key = collector.DEVIATIONS
    if key not in config.stash:
        path = config.getoption("--deviations")
        try:
            config.stash[key] = preflight.load_deviations(path, config.stash[collector.CATALOGUE]) if path else {}
        except preflight.PreflightError as exc:
            raise pytest.UsageError(str(exc)) from None
    return config.stash[key]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not _is_scenario(item):
        return
    verdict = None
    if report.failed:
        exc = call.excinfo.value if call.excinfo else None
        if isinstance(exc, errors.CapabilityMissing):
            report.outcome, report.longrepr = "skipped", (str(item.path), item.location[1] or 0,
                                                          f"disabled: {exc}")
            verdict = "disabled"
        elif isinstance(exc, AssertionError) and call.when in ("setup", "call"):
            verdict = "failed"
        else:
            verdict = "error"
            if isinstance(exc, errors.HarnessError):   # one line, not the network stack's traceback
                report.longrepr = f"{type(exc).__name__}: {exc}"
    elif report.skipped and call.when in ("setup", "call"):
        verdict = "disabled"
    elif report.passed and call.when == "call":
        verdict = "passed"
    if verdict in ("failed", "deviation") and call.excinfo is not None:
        explained = _explain(item, call.excinfo.value)
        if verdict == "failed" and item.config.option.tbstyle not in ("long", "native"):
            # the explanation instead of the runner's frames (--tb=long keeps pytest's traceback)
            report.longrepr = explanation.ExplainedFailure(explained, call.excinfo.value, str(item.path),
                                                           item.location[1] or 0)
    if verdict is not None:
        item.config.stash[REACH].scenario_ended(verdict, call.excinfo.value if call.excinfo else None)
        per_clause = _clause_verdicts(item, call, verdict)
        verdict = _chosen(item, report, verdict, per_clause)
        item.stash[VERDICT] = verdict
        where = getattr(item.stash.get(SCENARIO_TARGET, None), "scenario_where", None)
        item.config.stash[collector.COLLECTOR].record(item, verdict, report, where=where() if where else None,
                                                      judge=item.stash.get(JUDGE, None), by_clause=per_clause)
    _attach_logs(item, report)


def _explain(item: pytest.Item, exc: BaseException) -> dict | None:
    """Build, stash and return the failure explanation; never let it change the verdict."""
    log = item.stash.get(SCENARIO_LOG, None)
    try:
        built = explanation.build(exc, item_clauses(item), item.config.stash[collector.CATALOGUE],
                                  log.as_dict(True)["steps"] if log is not None else [],
                                  item.stash.get(collector.CONTEXT, None))
    except Exception as problem:   # noqa: BLE001 - an explanation is a courtesy, the verdict stands
        built = {"actual": str(exc), "explanation problem": repr(problem)}
    item.stash[collector.EXPLANATION] = built
    return built


def _clause_verdicts(item: pytest.Item, call: pytest.CallInfo, verdict: str) -> dict[str, dict[str, str]]:
    """clause -> {document: ..., reference: ...} for this scenario. An assertion that ended the
    scenario counts against all its clauses; declared deviations turn "failed" into "deviation"."""
    judge = item.stash.get(JUDGE, None)
    if judge is None or call.when != "call" or verdict not in ("passed", "failed"):
        return {c: dict.fromkeys(levels.LEVELS, verdict) for c in item_clauses(item)}
    exc = call.excinfo.value if call.excinfo else None
    if verdict == "failed" and not isinstance(exc, levels.SoftFailures):
        judge.add(None, levels.DOCUMENT, str(exc))
    deviations = _deviations(item.config)
    return {c: {level: "deviation" if v == "failed" and c in deviations else v for level, v in by_level.items()}
            for c, by_level in judge.verdicts(clause_levels(item.config)).items()}


def _chosen(item: pytest.Item, report: pytest.TestReport, verdict: str,
            per_clause: dict[str, dict[str, str]]) -> str:
    """The scenario's verdict at the chosen level. A failure only at the other level, or only of
    declared deviations, does not fail the run (pytest shows it as xfail with the reason)."""
    if verdict not in ("passed", "failed") or not per_clause:
        return verdict
    level = item.config.getoption("--level")
    chosen = collector.combine(v[level] for v in per_clause.values())
    if verdict == "failed" and chosen != "failed":
        report.outcome, report.longrepr = "skipped", None
        deviations = _deviations(item.config)
        declared = sorted(c for c, v in per_clause.items() if v[level] == "deviation")
        report.wasxfail = ("deviation: " + "; ".join(f"{c}: {deviations[c]}" for c in declared) if declared
                           else f"fails only at reference level (not judged at --level {level})")
    return chosen


# -- where reports are written (the main process, or the xdist controller) ---------------------------
HEARTBEAT = pytest.StashKey[Heartbeat]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _runs_scenarios_here(config: pytest.Config) -> bool:
    """False in an xdist controller (its workers run them) and in a worker (nobody sees its terminal)."""
    return not _is_worker(config) and not getattr(config.option, "numprocesses", None)


class Reporting:
    """Registered where reports are written: merges scenario records, prints one line per scenario,
    rewrites the reports after each scenario, and closes them at the end of the session."""

    # A rewrite costs more as results pile up (a full run: ~0.5 s for index.html); rewrites wait until
    # COST_SHARE times the last one's cost has passed, so they take at most ~1/COST_SHARE of the run's
    # wall time (at 4 they were a fifth of a manual-clock run's CPU; at 20, 9 % of its CPU) and lag at
    # most ~20 s behind it.
    COST_SHARE = 40.0

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.col: collector.Collector = config.stash[collector.COLLECTOR]
        self.written: list[str] = []
        self._next_write = 0.0
        self.said_gone = False

    def _expect(self) -> None:
        """Which clauses the features cover and which of them this run selected (not-selected/pending)."""
        if self.col.expected is not None:
            return
        self.col.expected = {}
        for sc, selected in suite.selection(self.col.catalogue, self.config.getoption("--clause"),
                                            self.config.getoption("--area"), self.config.option.markexpr):
            for cid in sc.clauses:
                entry = self.col.expected.setdefault(cid, {"scenarios": 0, "selected": 0})
                entry["scenarios"] += 1
                entry["selected"] += int(selected)

    def write(self, final: bool = False) -> None:
        directory = self.config.getoption("--report")
        if not directory or not self.col.results or (not final and time.monotonic() < self._next_write):
            return
        began = time.monotonic()
        self._expect()
        self.written = self.col.write(directory)
        done = time.monotonic()
        self._next_write = done + self.COST_SHARE * (done - began)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport):
        """A scenario gets its own line below; pytest's letter for it would only repeat it. pytest's
        counts follow the verdict: an ``error`` is an ERROR in whatever phase it happened (a step's
        TargetUnavailable too), a ``failed`` a FAILED (a Status 500 while setting up too)."""
        data = getattr(report, collector.REPORT_ATTR, None)
        if data is None:
            return None
        category = {"disabled": "skipped", "deviation": "xfailed",
                    levels.NOT_JUDGED: "xfailed" if report.skipped else "passed"}.get(data["status"], data["status"])
        if reachability.not_run(data["status"], data.get("message", "")):
            category = reachability.NOT_RUN     # counted apart, and not listed one by one (-rE)
        if self.config.option.verbose > 0:
            word = {"error": "ERROR", "failed": "FAILED"}.get(category)
            return (category, category[0].upper(), word) if word else None
        return category, "", ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, collector.REPORT_ATTR, None)
        if data is not None:
            self.col.add(data, getattr(report, collector.TARGET_ATTR, None))
        logs = getattr(report, LOGS_ATTR, None)
        if logs:
            self.col.attach_logs(report.nodeid, logs)
        if report.when != "teardown" or report.nodeid not in self.col.results:
            return
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        result = self.col.results[report.nodeid]
        if reachability.not_run(result.status, result.message):
            if tr is not None and not self.said_gone:      # one line for all of them
                self.said_gone = True
                tr.ensure_newline()
                tr.write_line(f"kube32: {result.message.partition(': ')[2]}; the scenarios after it are "
                              "errors, not run", red=True, bold=True)
            self.write()
            return
        if tr is not None and -2 <= self.config.option.verbose <= 0:    # -qqq (run --quiet): none
            line, markup = terminal.scenario_line(result)
            tr.ensure_newline()
            tr.write_line(line, **markup)
            tr.flush()                      # a log file or pipe sees each scenario as it ends
        self.write()

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus) -> None:
        if not self.col.results:
            return
        self.col.finish(exitstatus, complete=exitstatus not in (pytest.ExitCode.INTERRUPTED,
                                                                pytest.ExitCode.INTERNAL_ERROR))
        self.write(final=True)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.col.results:
            return
        for line in self.col.summary_lines():
            terminalreporter.write_line(line)
        if self.written:
            terminalreporter.write_line("reports: " + ", ".join(self.written))
        # last: the one count of the run (each Examples row is a scenario), as index.html gives it
        counts = self.col.scenario_counts()
        took = (datetime.datetime.now(datetime.UTC) - self.col.started).total_seconds()
        terminalreporter.write_line(f"kube32: {sum(counts.values())} scenarios: "
                                    + ", ".join(f"{n} {status}" for status, n in counts.items() if n)
                                    + f" ({took:.0f} s)", bold=True)


def pytest_terminal_summary(terminalreporter) -> None:
    """pytest's own sections are off in a ``run`` (--no-summary): what stopped the collection is
    still said, in its last line."""
    if not getattr(terminalreporter, "no_summary", False):
        return
    for rep in terminalreporter.stats.get("error", []):
        if isinstance(rep, pytest.CollectReport):
            last = (rep.longreprtext.strip().splitlines() or ["?"])[-1].removeprefix("E   ")
            terminalreporter.write_line(f"kube32: the features could not be collected: {last}", red=True)


@pytest.hookimpl(tryfirst=True)       # before xdist brings its workers up
def pytest_sessionstart(session: pytest.Session) -> None:
    """A heartbeat for long waits, where scenarios run in this process and a terminal shows it."""
    config = session.config
    tr = config.pluginmanager.get_plugin("terminalreporter")
    capman = config.pluginmanager.get_plugin("capturemanager")
    workers = config.pluginmanager.get_plugin("terminaldistreporter")
    if workers is not None and tr is not None and not tr.isatty():
        workers.ensure_show_status = lambda: None    # xdist's "bringing up nodes..." lines, on a pipe
    if not _runs_scenarios_here(config) or tr is None or capman is None:
        return

    def say(line: str) -> None:
        with capman.global_and_fixture_disabled():
            tr.ensure_newline()
            tr.write_line(line)
            tr.flush()                      # stdout to a file is block-buffered: a beat must show now

    every = config.getoption("--heartbeat") or (10.0 if tr.isatty() else 30.0)
    config.stash[HEARTBEAT] = Heartbeat(say, every=every)
