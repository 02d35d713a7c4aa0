"""``run --rig FILE --jobs N``: one rig's node boards shared out over pytest-xdist workers.

Who owns what. The features name the nodes a rig's boards play (``node-a``, ``node-b``: the rig
file's ``node_name`` s they declare, the *played* names). A rig with more node boards than that
has room for several scenarios at once: worker 0 plays the played names with their own boards,
worker ``i`` with the ``i``-th group of the other boards (``assign``), renaming the feature names
to its boards' node names (naming.py's Renamer, through ``RigTarget.own_names``); node names no
board has stay the runner's fake kubelets on the rig's control plane, renamed as on a shared URL
target. Each worker opens only its boards' serial ports, and worker 0 the control plane's too: it
resets the control plane and publishes the API URL (``RunDir``), the others wait for it before
resetting their boards; a crash of the control plane that worker 0 sees is written down for the
others, whose scenarios then end as an error too (``RunDir.crashes``). A scenario beside others is fenced to its nodes (context.py): its board
nodes carry the fence label while it runs (kubelets/board.py), so the one scheduler never puts its
pods on another worker's boards.

Serial phase. Scenarios that must have the target to themselves (parallel.py: a control-plane
restart, or the whole node set counted) need every board. They are held back by the scheduler
(``rig_schedule.SerialTail``) until every other scenario has been handed out, then all go to one worker while
the others are told to stop: as each stops it closes its ports and gives up its boards' locks
(``RunDir.claim``), and the serial worker takes the boards over (``RigTarget._adopt_all``) before
its first such scenario. One process owns a port at any time; no worker ever waits for a port
while another waits for it. The run-wide turns of a shared URL (parallel.Turn) are not used: the
serial worker would hold the turn while it waits for the boards of a worker that waits for a turn
before its last scenario (``RigTarget.separate_by_boards``).
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from kube32.conformance import naming

ALONE_FILE = "alone.json"     # in the run's lock directory: nodeids of the serial phase (workers write it)
URL_FILE = "api-url"          # worker 0 writes the control plane's API URL (or "failed: why") here
CRASH_FILE = "control-plane-crashes"   # worker 0: one JSON line per crash its control-plane console saw


def played_names(rig_nodes, declared) -> list[str]:
    """The rig's node names the scenarios play (``declared``: node names, from naming.declared)."""
    wanted = set(declared)
    return sorted(n for n in rig_nodes if n in wanted)


def slots(rig_nodes, played) -> int:
    """How many scenarios the rig's node boards have room for at once."""
    played = list(played)
    if not played:
        return 1 << 16   # no scenario plays a board: only the control plane is shared
    return 1 + (len(set(rig_nodes)) - len(played)) // len(played)


def assign(rig_nodes, played, workers: int) -> list[dict[str, str]]:
    """Per worker: played (feature) node name -> the node name of the board that plays it there.
    Worker 0 plays them with their own boards; the others get disjoint groups of the rest, in
    name order (so the features' name order is kept within a scenario)."""
    played = sorted(played)
    rest = sorted(set(rig_nodes) - set(played))
    out = [{n: n for n in played}]
    for i in range(1, workers):
        group = rest[(i - 1) * len(played):i * len(played)]
        if len(group) < len(played):
            raise ValueError(f"{len(set(rig_nodes))} node boards have room for {len(out)} workers, not {workers}")
        out.append(dict(zip(played, group, strict=True)))
    return out


@dataclass
class RigShare:
    """This worker's part of a rig the run's workers share."""

    worker: int                      # 0 owns the control plane's port
    workers: int
    run_dir: str                     # the run's lock directory (every worker sees the same)
    names: dict[str, str] = field(default_factory=dict)   # played name -> this worker's board node name


class RunDir:
    """The run's shared directory: board locks (a process holds a board's lock while its port is
    open) and the control plane's URL, published by worker 0."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.held: dict[str, int] = {}

    def claim(self, board: str) -> None:
        """Wait until no other process holds ``board``, then hold it."""
        if board not in self.held:
            fd = os.open(os.path.join(self.path, f"board-{board}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self.held[board] = fd

    def release_all(self) -> None:
        for fd in self.held.values():
            os.close(fd)        # closing the descriptor releases the lock
        self.held = {}

    def publish_url(self, text: str) -> None:
        tmp = os.path.join(self.path, URL_FILE + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, os.path.join(self.path, URL_FILE))

    def wait_url(self, timeout: float) -> str:
        """The control plane's API URL once worker 0 has started it; raises RuntimeError with its
        problem, or after ``timeout`` seconds."""
        path = os.path.join(self.path, URL_FILE)
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the control plane was not started by worker 0 within {timeout:g} s")
            time.sleep(0.1)
        text = Path(path).read_text(encoding="utf-8")
        if text.startswith("failed: "):
            raise RuntimeError(f"worker 0 could not start the control plane: {text[len('failed: '):]}")
        return text

    def publish_crash(self, board: str, kind: str, reason: str, text: str, t: float) -> None:
        """Worker 0 tells the others of a control-plane crash (they have no port to see it on)."""
        line = json.dumps({"board": board, "kind": kind, "reason": reason, "text": text, "t": t})
        with open(os.path.join(self.path, CRASH_FILE), "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    def crashes(self) -> list[dict]:
        try:
            text = Path(self.path, CRASH_FILE).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.endswith("}")]


def write_alone(run_dir: str, nodeids: list[str]) -> None:
    """Every worker writes the same list after collecting (before the scheduler reads it)."""
    tmp = os.path.join(run_dir, f"{ALONE_FILE}.{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(nodeids, fh)
    os.replace(tmp, os.path.join(run_dir, ALONE_FILE))


def rig_node_names(rig_path: str) -> list[str]:
    from kube32.harness.errors import HarnessError
    from kube32.harness.rig_file import load_rig

    try:
        specs = load_rig(rig_path).board_specs()
    except HarnessError as exc:     # a bad rig file: its one-line message
        raise ValueError(str(exc).splitlines()[0]) from None
    return [s.node_name for s in specs if s.role == "node" and s.node_name]


def declared_in(texts) -> list[str]:
    """Node names quoted in step texts (naming.declared without tables, which the CLI does not have)."""
    return naming.declared(SimpleNamespace(name=t, datatable=None) for t in texts)


def workers_for(rig_path: str, texts, jobs: int) -> int:
    """How many workers ``--jobs`` gets on this rig: no more than its node boards have room for."""
    nodes = rig_node_names(rig_path)
    return max(1, min(jobs, slots(nodes, played_names(nodes, declared_in(texts)))))


def share(rig_path: str, texts, worker: int, workers: int, run_dir: str) -> RigShare:
    """Worker ``worker``'s part of the rig (``texts``: the step texts of every collected scenario)."""
    nodes = rig_node_names(rig_path)
    return RigShare(worker, workers, run_dir, assign(nodes, played_names(nodes, declared_in(texts)), workers)[worker])
