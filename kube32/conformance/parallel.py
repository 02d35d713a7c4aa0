"""``run --jobs N``: scenarios in pytest-xdist workers, one merged report.

Order. Every worker sorts its collection the same way (``order``), and xdist's load scheduling with
``--maxschedchunk 1`` hands scenarios out in that order, one to each worker that frees up: longest
first by the duration estimate (estimate.py), so a real-time run lasts about as long as its longest
scenarios, not their sum. A worker always holds the scenario it will run next (xdist needs it for
fixture teardown), so each worker's first two are a long one and a short one. Scenarios that must
have the target to themselves come last.

Alone. Targets each worker starts for itself (reference, process, process:real) share nothing. On a
target the workers share (a URL: the target's ``shared`` is true) every scenario holds the run's
lock file (``flock``, ``Turn``): shared while it works in its own namespace, exclusively while it
must be alone — from its start when it owns the whole node set (``@needs-exclusive-nodes``: node
counts in FailedScheduling, where the scheduler puts a pod), restarts the control plane
(``@needs-restart``) or the clock is manual (every scenario moves it). The others register their
nodes under names of their own (naming.py: node names are cluster-wide) and are fenced to them
(context.py), so they run side by side; where they cannot be renamed (``--node-credentials``) they
are alone from their first node on. As tagged scenarios come last, they make a serial phase at the
end of the run. The tags are the declaration; ``clauses --check``
(steplint) fails a scenario that uses a step needing a capability without its tag.
"""

from __future__ import annotations

import fcntl
import os
import re

from pytest_bdd.scenario import scenario_wrapper_template_registry

from kube32.conformance import estimate
from kube32.conformance.suite import NEEDS_PREFIX
from kube32.conformance.targets.base import EXCLUSIVE_NODES, RESTART

ALONE_NEEDS = frozenset({EXCLUSIVE_NODES, RESTART})
# --jobs auto: a worker's start (interpreter, pytest, plugins, collecting the features) costs about
# the CPU of 25 manual-clock scenarios, so a worker is worth its start from ~60 scenarios on
AUTO_SCENARIOS_PER_WORKER = 60
LOCK_KEY = "kube32_lock"          # workerinput: the run's lock file (made by the controller)


# What a scenario reads that counts every node of the cluster (FailedScheduling messages "0/2 nodes
# are available: ...", which change, and so start a new event, whenever any node comes or goes)
COUNTS_EVERY_NODE = re.compile(r'FailedScheduling|nodes are available|PodScheduled condition of pod "[^"]*" says')


def own_manual_target(target: str) -> bool:
    """Does every worker start a target of its own that runs on a manual clock (``reference``,
    ``process[@START]``)? Its scenarios then share nothing with another worker's, and take CPU,
    not waiting: what ``--jobs auto`` spreads over the cores."""
    return target == "reference" or target.partition("@")[0] in ("process", "process:manual")


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def auto_jobs(scenarios: int) -> int:
    """``--jobs auto`` for a target of each worker's own on a manual clock: one worker per usable
    core, as long as each gets AUTO_SCENARIOS_PER_WORKER scenarios (a few scenarios run faster in
    this process than in workers that must start first)."""
    return max(1, min(usable_cores(), scenarios // AUTO_SCENARIOS_PER_WORKER))


def runs_alone(tags, text: str | None = None) -> bool:
    """Must this scenario have a shared target to itself? When it restarts the control plane, or
    it owns the whole node set (``@needs-exclusive-nodes``) and — where its ``text`` (step lines and
    tables) is known — reads something that counts every node. A tagged scenario that does not
    runs fenced to nodes of its own instead (context.py), which is all the scheduler and the
    controllers then see of the node set."""
    tags = set(tags)
    if NEEDS_PREFIX + RESTART in tags:
        return True
    return NEEDS_PREFIX + EXCLUSIVE_NODES in tags and (text is None or bool(COUNTS_EVERY_NODE.search(text)))


def item_text(item) -> str:
    """A collected scenario's step lines and table cells, one text."""
    lines = []
    for s in item_steps(item):
        lines += [s.name, *("|".join(row) for row in (s.datatable.raw() if s.datatable else []))]
    return "\n".join(lines)


def item_runs_alone(item) -> bool:
    return runs_alone((m.name for m in item.iter_markers()), item_text(item))


def order(items: list, seconds, alone, workers: int) -> list:
    """``items`` in the order xdist hands them out: the ones that run alone last; the others longest
    first, except that each worker's second scenario (positions 1, 3, … of the first ``2 * workers``)
    is one of the shortest, so no long scenario waits behind another on a worker."""
    together = sorted((i for i in items if not alone(i)), key=seconds, reverse=True)
    last = [i for i in items if alone(i)]
    pairs = min(workers, len(together) // 2)
    long, short = together[:pairs], together[len(together) - pairs:][::-1]
    head = [i for pair in zip(long, short, strict=True) for i in pair]
    return head + together[pairs:len(together) - pairs] + last


def item_steps(item) -> list:
    """The steps of a collected scenario (pytest-bdd ``Step``s, its Examples row filled in), found as
    pytest-bdd's own ``--generate-missing`` finds a test's scenario."""
    template = scenario_wrapper_template_registry.get(getattr(item, "obj", None))
    if template is None:
        return []
    example = getattr(item, "callspec", None) and item.callspec.params.get("_pytest_bdd_example")
    return template.render(example).steps if example else template.steps


def item_seconds(item, profile) -> float:
    """Estimated real-clock seconds of a collected scenario."""
    steps = item_steps(item)
    return estimate.scenario_seconds([(s.type, s.name, s.line_number) for s in steps], profile) if steps else 0.0


def shares_nodes(target, item) -> bool:
    """Does this scenario run beside others (``run --jobs N``) on a target they share, with node
    names of its own (naming.py)? Not when it must be alone, nor when nodes speak with their own
    credentials (--node-credentials: files named after the features' nodes)."""
    return bool(getattr(target, "shared", False)) and not item_runs_alone(item) \
        and not getattr(target, "node_credentials", None)


class Turn:
    """The run's lock file, held for one scenario on a shared target: shared while the scenario
    touches only its own namespace, exclusively once it must be alone (``alone``)."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self.exclusive = False

    def share(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_SH)

    def alone(self) -> None:
        """Wait until no other scenario holds the lock (a shared hold is given up first, so two
        scenarios asking at once cannot deadlock)."""
        if not self.exclusive:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
            self.exclusive = True

    def close(self) -> None:
        os.close(self.fd)            # closing the descriptor releases the lock
