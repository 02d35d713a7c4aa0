"""Where reports are written (the main process, or the xdist controller): scenario records merged,
one line per scenario, reports rewritten as the run goes, the summary and the run's count last."""

from __future__ import annotations

import datetime
import time

import pytest

from kube32.conformance import levels, reachability, suite
from kube32.conformance.plugin import common
from kube32.conformance.reports import collector, terminal


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
        logs = getattr(report, common.LOGS_ATTR, None)
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

