"""A hardware (or virtual) rig as a conformance target: ``--target rig:FILE`` / ``run --rig FILE``.

Adapts ``kube32.harness.rig.Rig``:

- ``start`` resets every board and waits for the API and the real kubelets. Real time only.
- Nodes: a feature node whose name is a node board's ``node_name`` is played by that board
  (``node_driver`` -> ``kubelets.board.BoardNode``); other names are fake kubelets on the rig's
  control plane. The rig's own boards are not foreign nodes: a scenario that needs the whole node
  set gets the boards it does not play parked (held in reset, Node deleted) for its duration.
- Logs: each scenario gets a console mark; ``scenario_logs()`` is every board's timestamped console
  text since ``begin_scenario`` (frozen at ``end_scenario``).
- Health: ``check_health()`` raises ``BoardFailure`` (an ERROR, not a clause failure) for a crash
  (panic, abort, brownout, watchdog abort, unexpected reboot) or a serial disconnect seen since the
  scenario began, once per event. The plugin calls it after every step and when a step fails; time
  steps call it while they wait (``RigClock``); ``final_health_check`` drains every console after the
  last step so a crash in the last step is not missed. ``begin_scenario`` resets boards that crashed,
  reopens ports that dropped and releases boards left held, so the next scenario starts clean.
"""

from __future__ import annotations

import threading
import time

from kube32.conformance import errors, naming
from kube32.conformance.suite import NEEDS_PREFIX
from kube32.conformance.targets import base
from kube32.conformance.targets.http import HttpTarget
from kube32.conformance.targets.rig_jobs import RigShare, RunDir
from kube32.harness.board_console import Mark
from kube32.harness.errors import HarnessError as RigHarnessError
from kube32.harness.rig import Rig, RigMark
from kube32.harness.rig_file import load_rig
from kube32.spec import profiles
from kube32.spec.profiles import Profile

HEALTH_POLL = 0.1   # seconds between board checks while a time step waits
URL_PATIENCE = 300.0  # seconds (besides boot + ready) a worker waits for worker 0's control plane (flashing)
NEEDS_EXCLUSIVE = NEEDS_PREFIX + base.EXCLUSIVE_NODES
TAIL_LINES = 20


class BoardFailure(errors.HarnessError):
    """A board crashed or its serial port went away during a scenario: no verdict on the target."""

    def __init__(self, board: str, what: str, text: str = "", backtrace: str | None = None,
                 console: str = "") -> None:
        self.board, self.what, self.text, self.backtrace, self.console = board, what, text, backtrace, console
        parts = [f"board {board} {what} during the scenario"]
        if backtrace:
            parts.append(backtrace)
        if text:
            parts.append("--- crash text ---\n" + text)
        if console:
            parts.append("--- last console lines ---\n" + console)
        super().__init__("\n".join(parts))


class RigClock(base.RealTargetClock):
    """Wall time, waited in small slices so a board crash ends a time step as it happens."""

    def __init__(self, target: RigTarget) -> None:
        self.target = target

    def advance_to(self, t: float) -> None:
        while True:
            self.target.check_health()
            delay = t - time.time()
            if delay <= 0:
                return
            time.sleep(min(delay, HEALTH_POLL))


class RigTarget(HttpTarget):
    name = "rig"
    shared = False   # one rig per runner process (xdist worker): its serial ports are that process's

    def __init__(self, rig_file: str, profile: Profile, log_dir: str | None = None, token: str | None = None,
                 access=None, share: RigShare | None = None) -> None:
        self.rig_file = rig_file
        self.share = share      # run --jobs N on this one rig: this worker's boards (rig_jobs.py)
        self.run_dir = RunDir(share.run_dir) if share is not None else None
        try:
            boards = self._own_boards(load_rig(rig_file)) if share is not None else None
            for board in sorted(boards or ()):
                self.run_dir.claim(board)
            self.rig = Rig.open(rig_file, log_dir=log_dir, boards=boards)
        except RigHarnessError as exc:   # a bad rig file or a port that does not open: no scenario can run
            if self.run_dir is not None:
                self.run_dir.release_all()
            raise errors.TargetUnavailable(str(exc).splitlines()[0]) from None
        if share is not None:
            self.shared = True   # the workers share the control plane: scenarios get node names of their own
            self.separate_by_boards = True   # and no run-wide turns: the serial phase waits for the boards
        profile = self.rig_profile(profile)
        self._mark = None
        self.last_logs: dict[str, str] = {}
        self.held: set[str] = set()          # boards a scenario holds in reset
        self.lost: dict[str, str] = {}       # board -> why it cannot be used (port gone for good)
        self._reported: set[tuple[str, int]] = set()
        self._scenario_open = False
        super().__init__("", profile, token=token, access=access)   # the runner's credentials (--kubeconfig)

    def _own_boards(self, rf) -> list[str]:
        """The boards this worker opens: those playing its node names, and worker 0 the control plane."""
        specs = rf.board_specs()
        by_node = {s.node_name: s.name for s in specs if s.role == "node" and s.node_name}
        boards = [by_node[n] for n in self.share.names.values()]
        if self.share.worker == 0:
            boards += [s.name for s in specs if s.role == "control-plane"]
        return boards

    def own_names(self, names, scenario_id: str) -> dict[str, str]:
        """A scenario beside others (context.py): the played names become this worker's boards'
        node names, every other name the scenario's own (naming.py)."""
        own = naming.own_names(names, scenario_id)
        return {n: (self.share.names.get(n) if self.share else None) or own[n] for n in names}

    def rig_profile(self, given: Profile) -> Profile:
        """The rig file's timing (``profile`` + ``profile_set``) unless the runner was given other
        timing than its rig default (the hardware profile as it is): explicit runner flags win."""
        if given != profiles.load("hardware"):
            return given
        rf = self.rig.rig_file
        return profiles.load(rf.profile, **rf.profile_set)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self.rig.flash_all()   # the rig file's flash: images, before the first scenario
            self.url = self.rig.start(keep_going=True, api_url=self._published_url())
            if self.share is not None and self.share.worker == 0:
                self.run_dir.publish_url(self.url)
                self._tell_of_crashes()
        except BaseException as exc:
            if self.share is not None and self.share.worker == 0:
                self.run_dir.publish_url(f"failed: {str(exc).splitlines()[0] if str(exc) else repr(exc)}")
            self.stop()            # no scenario will use the rig: ports and labgrid places back now
            if isinstance(exc, RigHarnessError):   # esptool failed, the control plane never came up:
                raise errors.HarnessError(f"rig {self.rig_file}: {str(exc).splitlines()[0]}") from None
            raise                                  # every scenario is an error saying so, none a failure
        for board, exc in self.rig.failed.items():   # scenarios that use it will say so; the rest run
            self.lost[board] = f"did not come up at the start of the run: {exc}"
        self.api.base_url = self.url.rstrip("/")
        super().start()
        self.clock = RigClock(self)

    def _tell_of_crashes(self) -> None:
        """Worker 0, while the rig is shared: every control-plane crash its console sees, written
        down for the workers without that port (a thread; it ends with the run)."""
        console = self.rig.consoles[self.rig.control_plane]
        told = len(console.crashes)
        self._telling = threading.Event()

        def tell() -> None:
            nonlocal told
            while not self._telling.wait(HEALTH_POLL):
                for rec in console.crashes[told:]:
                    c = rec.crash
                    self.run_dir.publish_crash(rec.board, c.kind, c.reason, c.text, rec.t)
                    told += 1

        threading.Thread(target=tell, name="rig-crash-notice", daemon=True).start()

    def _published_url(self) -> str | None:
        """A worker other than 0: the API URL once worker 0 has started the control plane."""
        if self.share is None or self.share.worker == 0:
            return None
        t = self.rig.timeouts
        try:
            return self.run_dir.wait_url(URL_PATIENCE + t.boot + t.ready)
        except RuntimeError as exc:
            raise RigHarnessError(str(exc)) from None

    def _extra_capabilities(self) -> set[str]:
        return {base.RESTART, base.REAL_KUBELET}

    def ready_timeout(self) -> float:
        """How long a board gets to (re)join as a Ready node."""
        return self.rig.timeouts.ready + self.profile.lease_renew_interval

    def begin_scenario(self) -> None:
        self._recover()
        self._mark = self.rig.mark()
        self._reported = set()
        self.last_logs = {}
        self.parked = set()
        self._scenario_open = True
        super().begin_scenario()
        # the rig's own node boards are not foreign: the runner parks the ones a scenario does not play
        own = set(self.rig.node_boards)
        self.foreign_nodes = [n for n in self.foreign_nodes if n not in own]
        if not self.foreign_nodes:
            self.capabilities = self.capabilities | {base.EXCLUSIVE_NODES}

    def prepare_scenario(self, ctx) -> None:
        """A scenario that owns the node set gets the rig's node boards out of its way: each is held in
        reset and its Node deleted (no scheduler or DaemonSet sees it) until the scenario plays it
        (``unpark_board``) or ends (released, it boots and registers again)."""
        if self.share is not None and not ctx.fence_labels:
            self._adopt_all()    # the serial phase: the other workers have stopped (rig_jobs.py)
        if NEEDS_EXCLUSIVE not in ctx.tags or ctx.fence_labels:   # fenced: the other nodes are not its
            return
        for node, board in sorted(self.rig.node_boards.items()):
            if board not in self.lost and board not in self.held:
                self.rig.note("harness: parked for a scenario that owns the node set (held, Node deleted)",
                              [board])
                self.hold_board(board)
                self.parked.add(board)
            try:
                self.api.delete("Node", node)
            except errors.ApiStatusError as exc:
                if exc.code != 404:
                    raise

    def _adopt_all(self) -> None:
        """Take over the boards the other workers had (each as soon as its worker has let go)."""
        others = sorted(set(self.rig.specs) - set(self.rig.consoles))
        if not others:
            return
        for board in others:
            self.run_dir.claim(board)
        try:
            self.rig.adopt(others)
        except RigHarnessError as exc:
            raise self._failure_from(exc, others[0]) from exc
        mark = self.rig.mark()
        self._mark = RigMark({**mark.marks, **self._mark.marks}, self._mark.t)
        self.rig.note("harness: taken over for the serial phase (its worker has stopped)", others)

    def unpark_board(self, board: str) -> None:
        """A parked board the scenario plays after all: release it and wait for its kubelet."""
        if board in self.parked:
            self.parked.discard(board)
            self.release_board(board)

    def end_scenario(self) -> None:
        try:
            self._release_held()
            super().end_scenario()
        finally:
            self._scenario_open = False
            if self._mark is not None:
                self.last_logs = self.rig.scenario_logs(self._mark)

    def stop(self) -> None:
        if getattr(self, "_telling", None) is not None:
            self._telling.set()
        try:
            self.rig.close()
        finally:
            if self.run_dir is not None:
                self.run_dir.release_all()   # after the ports: the serial worker may take the boards

    # -- nodes ----------------------------------------------------------------------------------
    def node_driver(self, name: str, ctx, lease_duration: float | None = None):
        """The BoardNode playing ``name`` when a node board has that node_name, else None (fake kubelet)."""
        board = self.rig.node_boards.get(name)
        if board is None:
            return None
        if board in self.lost:
            raise BoardFailure(board, f"is unusable ({self.lost[board]})", console=self._tail(board))
        from kube32.conformance.kubelets.board import BoardNode

        return BoardNode(self, name, board, ctx, lease_duration=lease_duration)

    def note(self, text: str) -> None:
        """A marker in every board's console log (the plugin writes each step here)."""
        self.rig.note(text)

    def hold_board(self, board: str) -> None:
        """Hold a board (or the board of a node) in reset (EN low, port open): its kubelet goes silent."""
        board = self.rig.board_of(board)
        self.rig.note("harness: hold in reset (EN low)", [board])
        self._rig_call(board, lambda: self.rig.hold(board))
        self.held.add(board)

    def release_board(self, board: str) -> None:
        """Release a held board (or the board of a node) and wait for its kubelet-ready line."""
        board = self.rig.board_of(board)
        self.rig.note("harness: release (EN high)", [board])
        self._rig_call(board, lambda: self.rig.release(board))
        self.held.discard(board)

    # compatibility with the first rig driver's names
    hold = hold_board
    release = release_board

    def _release_held(self) -> None:
        """Release every board a scenario held, all at once, then wait for each kubelet."""
        boards = sorted(self.held)
        for board in boards:
            self.rig.note("harness: release (EN high)", [board])
        # a board that did not come back stays held: the next scenario's recovery resets it
        self.held = set(self.rig.release_all(boards))

    def restart_control_plane(self) -> None:
        board = self.rig.control_plane
        self.rig.note("harness: reset the control plane", [board])
        url = self._rig_call(board, self.rig.restart_control_plane)
        self.url = url
        self.api.base_url = url.rstrip("/")

    def _rig_call(self, board: str, fn):
        try:
            return fn()
        except RigHarnessError as exc:
            failure = self._failure_from(exc, board)
            raise failure from exc

    # -- logs -----------------------------------------------------------------------------------
    def scenario_logs(self) -> dict[str, str]:
        """board -> timestamped console text of the current (or, after end_scenario, last) scenario."""
        if self._scenario_open and self._mark is not None:
            return self.rig.scenario_logs(self._mark)
        return dict(self.last_logs)

    def _tail(self, board: str, n: int = TAIL_LINES) -> str:
        return "\n".join(self.rig.consoles[board].tail(n))

    # -- health ---------------------------------------------------------------------------------
    def check_health(self) -> None:
        """Raise BoardFailure for the first crash or disconnect since the scenario began (once each)."""
        if self._mark is None:
            return
        for board, records in self.rig.crashes_since(self._mark).items():
            if board in self.lost:
                continue   # known broken; the scenarios that use it error through node_driver
            for rec in records:
                key = (board, rec.index)
                if key in self._reported:
                    continue
                self._reported.add(key)
                self.rig.consoles[board].acknowledge_crashes()
                crash = rec.crash
                backtrace = "\n".join([crash.backtrace, *rec.decoded]) if crash.backtrace else None
                raise BoardFailure(board, f"crashed ({crash.kind}: {crash.reason})", crash.text, backtrace,
                                   self._tail(board))
        if self.run_dir is not None and self.rig.control_plane not in self.rig.consoles:
            for n, rec in enumerate(self.run_dir.crashes()):   # seen by worker 0, which has its port
                if rec["t"] >= self._mark.t and (rec["board"], -2 - n) not in self._reported:
                    self._reported.add((rec["board"], -2 - n))
                    raise BoardFailure(rec["board"], f"crashed ({rec['kind']}: {rec['reason']}; seen by the "
                                       "worker that has its port)", rec["text"])
        for board, console in self.rig.consoles.items():
            gone = console.disconnected
            if gone is not None and board not in self.lost and (board, -1) not in self._reported:
                self._reported.add((board, -1))
                raise BoardFailure(board, f"lost its serial port {console.url} ({gone})", console=self._tail(board))

    def final_health_check(self) -> None:
        """After the last step, before the verdict: drain every board's console (bytes in flight,
        crash blocks still printing), then raise the first crash, unexpected reboot or disconnect
        of the scenario. Nothing a board did during the scenario escapes its verdict."""
        if self._mark is None:
            return
        self.rig.drain()
        self.check_health()

    def _failure_from(self, exc: RigHarnessError, board: str) -> BoardFailure:
        try:
            self.check_health()
        except BoardFailure as failure:
            return failure
        return BoardFailure(board, f"did not do what the harness asked: {exc}", console=self._tail(board))

    def _recover(self) -> None:
        """Before a scenario: reopen dropped ports, reset boards that crashed, release held ones."""
        since = self._mark
        crashes = self.rig.crashes_since(since) if since is not None else {}
        crashed = set(crashes)
        for board, records in crashes.items():
            self._await_crash_reboot(board, records[-1].index)
        for board, console in self.rig.consoles.items():
            if console.disconnected is not None or not console.is_open:
                # a replugged USB board needs a moment to come back; a board lost before gets one try
                problem = self._reopen(console, 0.0 if board in self.lost else self.rig.timeouts.boot)
                if problem:
                    self.lost[board] = problem
                    continue
                self.lost.pop(board, None)
                crashed.add(board)   # unknown state: reset it
            console.acknowledge_crashes()
        for board in sorted(crashed | self.held):
            if board in self.lost:
                continue
            ok = self._try(lambda b=board: self._restart_board(b))
            if not ok:
                self.lost[board] = f"did not come back after a reset: {self._tail(board, 3)}"
        self.held = set()
        for console in self.rig.consoles.values():
            console.acknowledge_crashes()

    def _await_crash_reboot(self, board: str, index: int) -> None:
        """Let a crashed board finish its own reboot before resetting it, so its ROM banner is not
        mistaken for the one our reset asks for (the next unexpected reboot would go unnoticed)."""
        console = self.rig.consoles[board]
        if board in self.lost or console.disconnected is not None:
            return
        console.acknowledge_crashes()
        try:
            console.expect(r"rst:0x[0-9a-fA-F]+ \(", self.rig.timeouts.boot, since=Mark(board, index, 0.0))
        except RigHarnessError:
            pass   # it hung after the crash (CPU halted): our reset wakes it
        console.acknowledge_crashes()

    @staticmethod
    def _reopen(console, patience: float) -> str | None:
        """Reopen a dropped port, retrying for ``patience`` seconds; the problem, or None when open."""
        deadline = time.monotonic() + patience
        while True:
            try:
                console.reopen()
                return None
            except RigHarnessError as exc:
                if time.monotonic() >= deadline:
                    return f"its serial port cannot be reopened: {str(exc).splitlines()[0]}"
            time.sleep(0.2)

    def _restart_board(self, board: str) -> None:
        if board == self.rig.control_plane:
            self.restart_control_plane()
        elif board in self.held:
            self.rig.release(board)
        else:
            self.rig.reset(board)

    @staticmethod
    def _try(fn) -> bool:
        try:
            fn()
            return True
        except (RigHarnessError, errors.HarnessError):
            return False

    def scenario_where(self) -> dict:
        """Which rig and which boards the scenario ran on (the report's ``where``; several rigs run at once)."""
        places = sorted(f"{ref.place}@{ref.coordinator}" for ref in self.rig.places)
        return {"rig": self.rig_file, "boards": sorted(self.rig.consoles),
                **({"labgrid": places} if places else {})}

    def describe(self) -> dict:
        return {**super().describe(), "rig_file": self.rig_file,
                "boards": {name: spec.port.url for name, spec in self.rig.specs.items()}}
