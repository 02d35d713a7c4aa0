"""The ``k32_target`` (one per process) and ``k32`` (one per scenario) fixtures: the target built
from the options, the scenario's context, capabilities, a node set of its own beside other
workers, and the cleanup after it."""

from __future__ import annotations

import contextlib

import pytest

from kube32.conformance import credentials, errors, kubeconfig, levels, naming, parallel
from kube32.conformance.context import ScenarioContext, target_is_fresh
from kube32.conformance.plugin import common
from kube32.conformance.reports import collector
from kube32.conformance.suite import NEEDS_PREFIX, item_clauses
from kube32.conformance.targets import registry, rig_jobs
from kube32.conformance.targets.base import EXCLUSIVE_NODES


def _rig_share(request: pytest.FixtureRequest) -> rig_jobs.RigShare | None:
    """This worker's boards when the workers share one rig (``run --rig FILE --jobs N``)."""
    config = request.config
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if len(config.getoption("--rig")) != 1 or workers < 2:
        return None
    texts = [s.name for item in request.session.items for s in parallel.item_steps(item)]
    try:
        return rig_jobs.share(config.getoption("--rig")[0], texts, int(config.workerinput["workerid"][2:]),
                              workers, common.run_dir(config))
    except ValueError as exc:   # more workers than the rig's node boards have room for (plain pytest -n)
        raise errors.TargetUnavailable(f"--rig {config.getoption('--rig')[0]} with {workers} workers: {exc}") from None


@pytest.fixture(scope="session")
def k32_target(pytestconfig: pytest.Config, request: pytest.FixtureRequest):
    __tracebackhide__ = True
    try:
        access = credentials.resolve(pytestconfig.getoption("--token"), pytestconfig.getoption("--kubeconfig"),
                                     pytestconfig.getoption("--context"))
        spec = common.target_spec(pytestconfig)
        if access.url and spec == "reference" and pytestconfig.getoption("--kubeconfig"):
            spec = access.url          # a kubeconfig names the server when --target does not
        target = registry.create(spec, common.run_profile(pytestconfig), token=access.token,
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
    request.node.stash[common.SCENARIO_TARGET] = target
    request.config.stash[common.REACH].check()
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
        request.node.stash[common.JUDGE] = judge
        ctx = ScenarioContext(target, tags=tags, heartbeat=request.config.stash.get(common.HEARTBEAT, None), judge=judge,
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

