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
(``@needs-restart``) or the clock is manual (every scenario moves it); from its first node on
otherwise, as the features' node names (node-a …) are cluster-wide. As tagged scenarios come last,
they make a serial phase at the end of the run. The tags are the declaration; ``clauses --check``
(steplint) fails a scenario that uses a step needing a capability without its tag.
"""

from __future__ import annotations

import fcntl
import os

from pytest_bdd.scenario import scenario_wrapper_template_registry

from kube32.conformance import estimate
from kube32.conformance.suite import NEEDS_PREFIX
from kube32.conformance.targets.base import EXCLUSIVE_NODES, RESTART

ALONE_NEEDS = frozenset({EXCLUSIVE_NODES, RESTART})
LOCK_KEY = "kube32_lock"          # workerinput: the run's lock file (made by the controller)


def runs_alone(tags) -> bool:
    """Must this scenario have a shared target to itself (it needs the whole node set or a restart)?"""
    return any(t.startswith(NEEDS_PREFIX) and t[len(NEEDS_PREFIX):] in ALONE_NEEDS for t in tags)


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


def item_seconds(item, profile) -> float:
    """Estimated real-clock seconds of a collected scenario (its Examples row filled in), as
    pytest-bdd's own ``--generate-missing`` finds a test's scenario."""
    template = scenario_wrapper_template_registry.get(getattr(item, "obj", None))
    if template is None:
        return 0.0
    example = getattr(item, "callspec", None) and item.callspec.params.get("_pytest_bdd_example")
    steps = template.render(example).steps if example else template.steps
    return estimate.scenario_seconds([(s.type, s.name, s.line_number) for s in steps], profile)


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
