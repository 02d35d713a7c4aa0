"""The pytest plugin (entry point ``pytest11``): options, markers, selection and xdist, with its
parts in this package: ``fixtures`` (the target and ``k32``), ``record`` (the Gherkin record and
board health), ``verdicts`` and ``reporting``; ``common`` holds what they share. Inert for test
runs that collect no kube32 feature scenarios.

Run the suite as plain pytest:  ``pytest --pyargs kube32.conformance.bind --target URL --report DIR``
(``kube32-conformance run`` is a thin layer over exactly that).
"""

from __future__ import annotations

import gc
import os
import pkgutil
import shutil
import tempfile

import pytest

from kube32.conformance import levels, parallel, preflight, reachability, steplookup, steps, suite
from kube32.conformance.heartbeat import Heartbeat
from kube32.conformance.plugin import common, reporting
from kube32.conformance.reports import collector
from kube32.conformance.suite import item_clauses, known_tags
from kube32.conformance.targets import rig_jobs
from kube32.conformance.targets.base import CLOCK_MODES
from kube32.spec import catalogue, profiles

pytest_plugins = ("kube32.conformance.plugin.fixtures", "kube32.conformance.plugin.record",
                  "kube32.conformance.plugin.verdicts")


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
    common.deviations(config)
    report = config.getoption("--report")
    if report:
        os.makedirs(report, exist_ok=True)
    config.stash[collector.COLLECTOR] = collector.Collector(cat, config.getoption("--level"))
    config.stash[common.REACH] = reachability.Reachability(config.getoption("--target"))
    rigs = config.getoption("--rig")
    workers = getattr(config.option, "numprocesses", None)
    if rigs and workers and not common.is_worker(config):   # the workers drive the rigs; the report names them all
        config.stash[collector.COLLECTOR].target = {"name": "rigs", "rigs": list(rigs), "clock": "real",
                                                    "profile": common.run_profile(config).name, "workers": workers}
    if not common.is_worker(config):
        config.pluginmanager.register(reporting.Reporting(config), "kube32-reporting")
    if getattr(config.option, "numprocesses", None) and not common.is_worker(config):
        lock_dir = tempfile.mkdtemp(prefix="kube32-run-")
        config.stash[common.LOCK_FILE] = os.path.join(lock_dir, "scenarios.lock")
        config.add_cleanup(lambda: shutil.rmtree(lock_dir, ignore_errors=True))


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
    if common.is_worker(config) and any(common.is_scenario(i) for i in items):
        profile = common.run_profile(config)
        # with several rigs every worker has one to itself: no scenario waits for the others' end
        alone = (lambda i: False) if len(config.getoption("--rig")) > 1 else parallel.item_runs_alone
        items[:] = parallel.order(items, lambda i: parallel.item_seconds(i, profile), alone,
                                  int(config.workerinput.get("workercount", 1)))
        if len(config.getoption("--rig")) == 1:   # one rig's boards shared out: the serial phase's scenarios
            rig_jobs.write_alone(common.run_dir(config), [i.nodeid for i in items if alone(i)])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """One rig shared by the workers: its serial phase runs on one worker after the others stopped."""
    if len(config.getoption("--rig")) == 1:
        from kube32.conformance.targets.rig_schedule import SerialTail

        return SerialTail(config, log, run_dir=common.run_dir(config))
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    """What exists once the scenarios are collected (modules, items, the catalogue) lives as long as
    the run: out of the cyclic collector's sight, a full collection walks only what came since (it
    was ~10 % of a manual-clock run's CPU: ten full collections of ~0.3 s)."""
    if any(common.is_scenario(item) for item in session.items):
        gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist controller: every worker gets the run's lock file (scenarios that must run alone)."""
    node.workerinput[parallel.LOCK_KEY] = node.config.stash[common.LOCK_FILE]


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
    if not common.runs_scenarios_here(config) or tr is None or capman is None:
        return

    def say(line: str) -> None:
        with capman.global_and_fixture_disabled():
            tr.ensure_newline()
            tr.write_line(line)
            tr.flush()                      # stdout to a file is block-buffered: a beat must show now

    every = config.getoption("--heartbeat") or (10.0 if tr.isatty() else 30.0)
    config.stash[common.HEARTBEAT] = Heartbeat(say, every=every)

