"""The simulator's --not-ready-timeout and --eviction-timeout judged at document level, black-box: a
target started with other timeouts is judged by the values the runner is told (--profile-set), the
`process` target passes told timeouts to `serve` as those flags, and a target the runner knows
nothing about and cannot restart is not judged at all."""

from __future__ import annotations

import pytest

from kube32.conformance.targets.process import ServeProcess, serve_command
from kube32.conformance.targets.reference import EPOCH
from kube32.spec import profiles
from tests.conftest import FEATURES, run_features

CLAUSE = "NODE-SIMULATOR-TIMEOUT-FLAGS"
DOCUMENTED = ("a Lease without a duration lapses at the configured not-ready timeout",
              "a pod with the default tolerations is evicted at the configured eviction timeout")
TOLD = ("--profile-set", "not_ready_timeout=6", "--profile-set", "default_toleration_seconds=20")


def test_told_timeouts_reach_serve_as_the_simulators_flags():
    profile = profiles.load("simulator", not_ready_timeout=6, default_toleration_seconds=20)
    cmd = serve_command(0, "/data", profile, "manual", None)
    assert cmd[cmd.index("--not-ready-timeout") + 1] == "6.0"
    assert cmd[cmd.index("--eviction-timeout") + 1] == "20.0"
    # our --not-ready-timeout also moves the NoExecute delay: the profile's own 15 s is kept by --set
    assert "noexecute_delay=15.0" in cmd
    assert "--set" not in serve_command(0, "/data", profiles.load("simulator"), "manual", None)


@pytest.fixture
def serve(tmp_path):
    started = []

    def start(*flags: str) -> str:
        data = tmp_path / f"data{len(started)}"
        data.mkdir()
        proc = ServeProcess(profiles.load("simulator"), "manual", data_dir=str(data), fsync=False)
        proc.extra_args = list(flags)
        proc.start(EPOCH)
        started.append(proc)
        return proc.url
    yield start
    for proc in started:
        proc.stop()


def _document_verdicts(pytester, tmp_path, monkeypatch, url: str, *args: str) -> list[str]:
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    _, doc = run_features(pytester, tmp_path / "report", "--target", url, f"--clause={CLAUSE}", *args)
    [row] = [r for r in doc["clauses"] if r["id"] == CLAUSE]
    return [next(s["verdicts"]["document"] for s in row["scenarios"] if s["name"] == name) for name in DOCUMENTED]


def test_a_target_started_with_other_timeouts_is_judged_by_them(serve, pytester, tmp_path, monkeypatch):
    url = serve("--not-ready-timeout", "6", "--eviction-timeout", "20")
    assert _document_verdicts(pytester, tmp_path, monkeypatch, url, *TOLD) == ["passed", "passed"]


def test_a_target_that_ignores_its_timeouts_fails(serve, pytester, tmp_path, monkeypatch):
    """Told 6 s and 20 s, a target still on the document's 15 s and 300 s fails both scenarios."""
    url = serve()
    assert _document_verdicts(pytester, tmp_path, monkeypatch, url, *TOLD) == ["failed", "failed"]


def test_a_target_the_runner_knows_nothing_of_is_not_judged(serve, pytester, tmp_path, monkeypatch):
    url = serve()
    assert _document_verdicts(pytester, tmp_path, monkeypatch, url) == ["disabled", "disabled"]
