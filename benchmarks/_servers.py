"""Start a reference server from any source tree, so a benchmark can put today's code and an older
commit side by side in one run (``--baseline REF`` checks REF out in a temporary worktree)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def tree(ref: str | None):
    """The source tree to run: this checkout (None) or ``ref`` in a temporary git worktree."""
    if ref is None:
        yield ROOT
        return
    path = tempfile.mkdtemp(prefix="kube32-baseline-")
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", path, ref],
                   check=True, capture_output=True)
    try:
        yield Path(path)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", path], capture_output=True)
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def beside(ref: str | None, script: str, *args: str):
    """``script`` run on commit ``ref`` at the same time as the caller's own run (its imports from
    REF's tree: ``KUBE32_TREE``; its heading names REF: ``KUBE32_REF``); yields the process, its
    output piped (read it after your own), or None without a ``ref``."""
    if ref is None:
        yield None
        return
    with tree(ref) as source:
        yield subprocess.Popen([sys.executable, script, *args], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "KUBE32_TREE": str(source), "KUBE32_REF": f"baseline {ref}"})


def side_by_side(lines: list[str], other: subprocess.Popen | None) -> int:
    """Print this run's figures under its heading, then the ``beside`` run's; its exit status."""
    print(f"{os.environ.get('KUBE32_REF', 'this checkout')}  (load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    print("\n".join("  " + line for line in lines), flush=True)
    if other is None:
        return 0
    print(other.communicate()[0], end="")
    return other.returncode


@contextlib.contextmanager
def server(source: Path, *args: str, data_dir: str | None = None, own_session: bool = False,
           tls_dir: str | None = None):
    """``kube32-conformance serve`` from ``source`` on a free port; yields (url, pid). ``tls_dir``:
    over https with ``--tls-self-signed tls_dir`` (its ``ca.crt`` verifies the server).

    ``own_session``: the server runs in a session of its own, as a daemon would. Where the kernel
    groups CPU time by session (``/proc/sys/kernel/sched_autogroup_enabled``, on here), ``nice``
    does not reach across sessions: each busy session gets an equal share, and a server in the
    benchmark's session splits that one share with the load clients."""
    port = free_port()
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import _tree; _tree.use(sys.argv[2]); "
            "from kube32.conformance.cli import main; sys.exit(main(sys.argv[3:]))")
    cmd = [sys.executable, "-c", code, str(Path(__file__).resolve().parent), str(source), "serve",
           "--listen", f"127.0.0.1:{port}", *args]
    if data_dir:
        cmd += ["--data-dir", data_dir]
    if tls_dir:
        cmd += ["--tls-self-signed", tls_dir]
    env = {**os.environ, "PYTHONPATH": str(source)}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, cwd=str(source), env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=own_session)
        yield from _running(proc, log, f"{'https' if tls_dir else 'http'}://127.0.0.1:{port}", source)


def _running(proc, log, url: str, source: Path):
    unverified = ssl._create_unverified_context()       # loopback readiness probe only
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/version", timeout=2, context=unverified).read()
                break
            except OSError as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise SystemExit(f"server from {source} did not start:\n{log.read().decode()[-2000:]}") from exc
                time.sleep(0.2)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def pin(pid: int, cpus: set[int]) -> None:
    """Keep every thread of process ``pid`` on ``cpus`` (threads it starts later inherit it)."""
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), cpus)


def cpus(text: str | None) -> set[int] | None:
    """``"0"``, ``"0,1"``, ``"0-1"`` -> a set of CPU numbers (None stays None)."""
    if not text:
        return None
    out: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_share(seconds: float = 1.0) -> float:
    """How much of one core a busy process gets on this machine right now (1.0: a whole core; on a
    2-core machine that other work keeps busy, much less). Spins for ``seconds`` of wall time."""
    t0, c0 = time.monotonic(), time.process_time()
    while time.monotonic() - t0 < seconds:
        sum(range(1000))
    return (time.process_time() - c0) / (time.monotonic() - t0)


def run_queue_wait(pid: int | str = "self") -> float:
    """Seconds the threads of process ``pid`` have spent runnable but waiting for a CPU (taken by
    other processes: ``/proc/PID/task/*/schedstat``, second field); threads that ended are not counted."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
