"""What the plugin's parts share: the stash keys, the run's options read once, where this process
stands in an xdist run."""

from __future__ import annotations

import os

import pytest

from kube32.conformance import levels, parallel, preflight, reachability
from kube32.conformance.heartbeat import Heartbeat
from kube32.conformance.reports import collector
from kube32.conformance.suite import item_clauses
from kube32.spec import profiles

VERDICT = pytest.StashKey[str]()
SCENARIO_TARGET = pytest.StashKey[object]()   # the target a scenario ran on (board health, console logs)
JUDGE = pytest.StashKey[levels.Judge]()          # the scenario's findings by clause and level
REACH = pytest.StashKey[reachability.Reachability]()   # this process: has the target stopped answering?
LOGS_ATTR = "kube32_logs"                    # board consoles on a teardown report (survives xdist)
LOCK_FILE = pytest.StashKey[str]()           # xdist controller: the run's lock file (parallel.turn)
HEARTBEAT = pytest.StashKey[Heartbeat]()     # where scenarios run and a terminal shows it


def target_spec(config: pytest.Config) -> str:
    """``--target``, or with ``--rig`` files the rig of this process (xdist worker gwN gets rig N)."""
    rigs = config.getoption("--rig")
    if not rigs:
        return config.getoption("--target")
    worker = getattr(config, "workerinput", {}).get("workerid", "gw0")
    return f"rig:{rigs[int(worker.removeprefix('gw') or 0) % len(rigs)]}"


def run_profile(config: pytest.Config) -> profiles.Profile:
    name = config.getoption("--profile") or ("hardware" if target_spec(config).startswith("rig:")
                                             else "simulator")
    overrides = {}
    for item in config.getoption("--profile-set"):
        key, _, value = item.partition("=")
        overrides[key.strip()] = float(value)
    return profiles.load(name, **overrides)


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def runs_scenarios_here(config: pytest.Config) -> bool:
    """False in an xdist controller (its workers run them) and in a worker (nobody sees its terminal)."""
    return not is_worker(config) and not getattr(config.option, "numprocesses", None)


def run_dir(config: pytest.Config) -> str:
    """The run's lock directory (made by the xdist controller, shared by every worker)."""
    lock = config.workerinput[parallel.LOCK_KEY] if is_worker(config) else config.stash[LOCK_FILE]
    return os.path.dirname(lock)


def is_scenario(item: pytest.Item) -> bool:
    return bool(item_clauses(item))


def deviations(config: pytest.Config) -> dict[str, str]:
    """``--deviations``, read and checked once (``preflight.load_deviations``) at configure time."""
    key = collector.DEVIATIONS
    if key not in config.stash:
        path = config.getoption("--deviations")
        try:
            config.stash[key] = preflight.load_deviations(path, config.stash[collector.CATALOGUE]) if path else {}
        except preflight.PreflightError as exc:
            raise pytest.UsageError(str(exc)) from None
    return config.stash[key]


def clause_levels(config: pytest.Config) -> dict[str, str]:
    return {c.id: c.level for c in config.stash[collector.CATALOGUE]}

