"""The reference as a separate `kube32-conformance serve` process: real process, real socket,
SQLite data dir; restart = kill -9 and start again on the same data dir (the manual clock resumes
where it stopped). Scenarios share it like any HTTP target."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import requests

from kube32.conformance.errors import TargetUnavailable
from kube32.conformance.targets import base
from kube32.conformance.targets.http import HttpTarget
from kube32.spec import profiles
from kube32.spec.profiles import Profile

BOOT_TIMEOUT = 120.0   # a loaded machine starting one serve per --jobs worker at once is slow to import
LISTENING = re.compile(rb"kube32 reference listening on https?://[^\s:]+:(\d+)")   # serve's line once it listens
PORT_TAKEN = b"Address already in use"
# the simulator's timeout flags (the document's) and the profile fields they set


def serve_command(port: int, data_dir: str, profile: Profile, clock: str, clock_start: float | None,
                  fsync: bool = True, launcher: list[str] | None = None) -> list[str]:
    cmd = [*(launcher or [sys.executable, "-m", "kube32.conformance"]), "serve", "--listen", f"127.0.0.1:{port}",
           "--data-dir", data_dir, "--profile", profile.name, "--clock", clock, "--exit-with-parent"]
    if not fsync:
        cmd.append("--unsafe-no-fsync")
    if clock_start is not None:
        cmd += ["--clock-start", repr(clock_start)]
    # values the runner was told of (--profile-set) reach serve through the simulator's own flags,
    # as a user starts it; --set gives every other field, and any the flags set otherwise
    base_profile = profiles.load(profile.name)
    flags = {flag: getattr(profile, fields[0]) for flag, fields in profiles.FLAGS.items()
             if getattr(profile, fields[0]) != getattr(base_profile, fields[0])}
    for flag, value in flags.items():
        cmd += [flag, repr(value)]
    implied = profiles.flag_overrides(flags)
    for field, value in profile.as_dict().items():
        if field != "name" and implied.get(field, getattr(base_profile, field)) != value:
            cmd += ["--set", f"{field}={value}"]
    return cmd


class ServeProcess:
    """One `serve` child process on a data dir (``fsync=False``: ``--unsafe-no-fsync``). Its first
    start listens on a port the system picks (port 0: no other process can take it between a pick and
    the bind) and reads it from serve's log; restarts keep that port, the clients know it."""

    def __init__(self, profile: Profile, clock: str = "manual", data_dir: str | None = None,
                 fsync: bool = True) -> None:
        self.profile, self.clock, self.fsync = profile, clock, fsync
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="kube32-serve-")
        self._owns_dir = data_dir is None
        self.port = 0
        self.url = "http://127.0.0.1:0"      # the real one once started
        self.proc: subprocess.Popen | None = None
        self.extra_args: list[str] = []      # e.g. the simulator's --not-ready-timeout 6
        self.launcher: list[str] | None = None   # what runs "serve ..." (default: this toolkit's CLI)
        self.started = False
        self.log_path = os.path.join(self.data_dir, "serve.log")

    def start(self, clock_start: float | None = None) -> None:
        """Start the child; ready once it has said it listens and /version answers."""
        offset = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child owns it
        self.proc = subprocess.Popen(serve_command(self.port, self.data_dir, self.profile, self.clock,
                                                   clock_start, self.fsync, self.launcher) + self.extra_args,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + BOOT_TIMEOUT
        while time.monotonic() < deadline:
            said = self._log_from(offset)
            if self.proc.poll() is not None:
                taken = f" (port {self.port} is taken: a restart keeps its port)" if PORT_TAKEN in said else ""
                raise TargetUnavailable(f"serve exited with {self.proc.returncode}{taken}; log: {self.tail()}")
            listening = LISTENING.search(said)
            if listening:
                self.port = int(listening.group(1))
                self.url = f"http://127.0.0.1:{self.port}"
                try:
                    requests.get(self.url + "/version", timeout=1)
                    self.started = True
                    return
                except requests.RequestException:
                    pass
            time.sleep(0.02)
        raise TargetUnavailable(f"serve did not answer within {BOOT_TIMEOUT} s; log: {self.tail()}")

    def _log_from(self, offset: int) -> bytes:
        with open(self.log_path, "rb") as fh:
            fh.seek(offset)
            return fh.read()

    def kill(self) -> None:
        """kill -9: nothing is flushed or closed politely."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._owns_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def tail(self, n: int = 2000) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                return fh.read().decode(errors="replace")[-n:]
        except OSError:
            return "<no log>"


class ProcessTarget(HttpTarget):
    name = "process"
    shared = False   # each runner process (xdist worker) starts its own
    # The reference finishes all work inside the request that caused it (creates schedule at once,
    # clock jumps run every due tick before answering): nothing to wait for on a manual clock.
    manual_settle = 0.0

    def __init__(self, profile: Profile, clock: str = "manual", clock_start: float | None = None) -> None:
        # --unsafe-no-fsync: the data dir is thrown away after the run, and a write the server
        # acknowledged still survives the kill -9 of a restart (it is in the OS's cache, only a power
        # cut could lose it). The store's durability across power cuts has its own tests.
        self.process = ServeProcess(profile, clock, fsync=False)
        self.clock_start = clock_start        # manual clock: any epoch, fractions too (a clock phase)
        super().__init__(self.process.url, profile)

    def start(self) -> None:
        from kube32.conformance.targets.reference import EPOCH

        start = self.clock_start if self.clock_start is not None else EPOCH
        self.process.start(start if self.process.clock == "manual" else None)
        self.url = self.api.base_url = self.process.url     # the port it listens on (ServeProcess)
        try:
            super().start()
        except TargetUnavailable as exc:
            raise TargetUnavailable(f"{exc}; serve log: {self.process.tail(500)}") from None

    def _extra_capabilities(self) -> set[str]:
        return {base.RESTART}

    def restart_control_plane(self) -> None:
        now = self.clock.now() if self.clock and self.clock.manual else None
        self.process.kill()
        self.process.start(now)
        if isinstance(self.clock, base.ManualTargetClock):
            self.clock.refresh()

    def restart_with_flags(self, flags: dict[str, float]) -> None:
        """Restart ``serve`` with these simulator flags (``profiles.FLAGS``); they hold until the
        scenario ends (``end_scenario`` restarts it without them)."""
        self.process.extra_args = [arg for flag, value in flags.items() for arg in (flag, repr(float(value)))]
        self.restart_control_plane()

    def end_scenario(self) -> None:
        super().end_scenario()
        if self.process.extra_args:
            self.process.extra_args = []
            self.restart_control_plane()

    def stop(self) -> None:
        self.process.stop()

    def describe(self) -> dict:
        return {**super().describe(), "name": self.name, "kind": "serve subprocess (--unsafe-no-fsync)"}
