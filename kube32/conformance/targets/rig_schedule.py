"""The xdist scheduler of a run whose workers share one rig (rig_jobs.py): imported by the xdist
controller only, so no run imports xdist before pytest has loaded it as a plugin."""

from __future__ import annotations

import json
import os

from xdist.scheduler import LoadScheduling

from kube32.conformance.targets.rig_jobs import ALONE_FILE


class SerialTail(LoadScheduling):
    """xdist's load scheduling, except that the scenarios of the serial phase (``alone.json``) are
    held back until every other one has been handed out; then all go to the worker that asks next,
    and every worker is told to stop after what it has, so the serial worker runs them alone once
    the others have ended (and given up their boards)."""

    def __init__(self, config, log=None, run_dir: str = "") -> None:
        super().__init__(config, log)
        self.run_dir = run_dir
        self.tail: list[int] = []

    @property
    def tests_finished(self) -> bool:
        return not self.tail and super().tests_finished

    def schedule(self) -> None:
        if self.collection is not None or not self._check_nodes_have_same_collection():
            return super().schedule()
        with open(os.path.join(self.run_dir, ALONE_FILE), encoding="utf-8") as fh:
            alone = set(json.load(fh))
        collection = next(iter(self.node2collection.values()))
        self.tail = [i for i, nodeid in enumerate(collection) if nodeid in alone]
        if not self.tail:
            return super().schedule()
        self.collection = collection
        self.pending[:] = [i for i in range(len(collection)) if i not in set(self.tail)]
        if self.maxschedchunk is None:
            self.maxschedchunk = len(collection)
        # as LoadScheduling: two consecutive scenarios per worker (parallel.order pairs them), or
        # one each round-robin when there are fewer
        if len(self.pending) < 2 * len(self.nodes):
            for i in range(len(self.pending)):
                self._send_tests(self.nodes[i % len(self.nodes)], 1)
        else:
            for node in self.nodes:
                self._send_tests(node, 2)
        if not self.pending:
            self._send_tail(self.nodes[0])

    def check_schedule(self, node, duration: float = 0) -> None:
        if node.shutting_down:
            return
        if self.tail and not self.pending:
            self._send_tail(node)
            return
        super().check_schedule(node, duration)

    def _send_tail(self, node) -> None:
        self.pending[:], self.tail = self.tail, []
        self._send_tests(node, len(self.pending))
        for each in self.nodes:
            each.shutdown()
