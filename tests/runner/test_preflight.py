"""Checks before running (``kube32-conformance run``): one line each, a distinct exit status per
class, "did you mean" for near names, and the report directory untouched."""

from __future__ import annotations

import argparse

import pytest

from kube32.conformance import cli, preflight
from tests.runner.faultproxy import FaultProxy


@pytest.fixture
def proxy(reference):
    p = FaultProxy(reference.url).start()
    yield p
    p.stop()


@pytest.fixture
def report(tmp_path):
    """An existing report directory with an earlier run's file: preflight must leave it as it is."""
    d = tmp_path / "report"
    d.mkdir()
    (d / "clauses.json").write_text("{earlier run}")
    return d


def run(capsys, report, *args) -> tuple[int, str]:
    code = cli.main(["run", "--report", str(report), *args])
    captured = capsys.readouterr()
    assert captured.out == "", captured.out
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err               # one line, no traceback
    assert sorted(p.name for p in report.iterdir()) == ["clauses.json"]
    assert (report / "clauses.json").read_text() == "{earlier run}"
    return code, lines[0]


def test_an_unreachable_target(capsys, report, proxy):
    proxy.stop()
    code, line = run(capsys, report, "--target", proxy.url)
    assert code == preflight.UNREACHABLE == 10
    assert line.startswith(f"target {proxy.url} is unreachable: GET /version: connection failed")


def test_a_target_answering_502(capsys, report, proxy):
    proxy.fault(status=502)
    code, line = run(capsys, report, "--target", proxy.url)
    assert code == preflight.UNREACHABLE
    assert "502 BadGateway" in line and "3 attempts" in line


def test_tls_refused(capsys, report, proxy):
    code, line = run(capsys, report, "--target", proxy.url.replace("http:", "https:"))
    assert code == preflight.TLS == 11
    assert "TLS with https://127.0.0.1" in line


def test_credentials_refused(capsys, report, proxy):
    proxy.require_token = "s3cret"
    code, line = run(capsys, report, "--target", proxy.url)
    assert code == preflight.CREDENTIALS == 12
    assert "credentials were refused (401); check --token" in line
    args = argparse.Namespace(target=proxy.url, token="s3cret", request_timeout=None, rig=None)
    assert preflight.target(args) is None


@pytest.mark.parametrize(("text", "why"), [
    (None, "no such file"),
    ("- clause: [SCHED-TIE-BREAK\n", "not valid YAML (line 2)"),
    ("clause: SCHED-TIE-BREAK\n", "expected a list of {clause, reason} entries"),
    ("- clause: SCHED-TIE-BREAK\n", "entry 1 needs a clause and a reason"),
    ("- clause: SCHED-TIE-BRAEK\n  reason: ours differs\n",
     "entry 1 names an unknown clause SCHED-TIE-BRAEK; did you mean SCHED-TIE-BREAK?"),
], ids=["missing", "not-yaml", "not-a-list", "no-reason", "unknown-clause"])
def test_deviations_file(capsys, report, tmp_path, text, why):
    path = tmp_path / "deviations.yaml"
    if text is not None:
        path.write_text(text)
    code, line = run(capsys, report, "--deviations", str(path))
    assert code == preflight.DEVIATIONS == 13
    assert line.startswith(f"--deviations {path}: {why}"), line


@pytest.mark.parametrize(("args", "line"), [
    (["--area", "schedular"], "--area schedular: no such area; did you mean scheduler?"),
    (["--clause", "SCHED-TIEBREAK"], "--clause SCHED-TIEBREAK: matches no clause; did you mean SCHED-TIE-BREAK?"),
    (["--clause", "sched-tie-break"], "--clause sched-tie-break: matches no clause; did you mean SCHED-TIE-BREAK?"),
    (["--area", "job", "--clause", "SCHED-*"], "--area job --clause SCHED-*: no scenario of the features is selected"),
    (["--area", "job", "--tags", "needs-restart and not needs-restart"], "no scenario of the features is selected"),
], ids=["area", "clause", "clause-case", "disjoint", "tags"])
def test_a_selection_that_matches_nothing(capsys, report, args, line):
    code, got = run(capsys, report, *args)
    assert code == preflight.SELECTION == 14
    assert got.startswith(line) or line in got, got


def test_a_clock_the_target_cannot_have(capsys, report):
    code, line = run(capsys, report, "--clock", "real")
    assert code == preflight.USAGE == 2
    assert "use --target process:real" in line


@pytest.mark.parametrize(("target", "says"), [
    ("127.0.0.1:6443", "did you mean http://127.0.0.1:6443 or https://127.0.0.1:6443?"),
    ("http://", "names no host"),
    ("https://h:x", "not a valid URL"),
    ("process@abc", "epoch seconds"),
    ("refrence", "unknown target 'refrence'"),
])
def test_a_target_name_the_runner_does_not_know(capsys, report, target, says):
    """Named before anything runs, with the usage status; the earlier report stays as it was."""
    code, line = run(capsys, report, "--target", target)
    assert code == preflight.USAGE and line.startswith("--target ") and says in line


def test_a_features_directory_that_is_not_there(capsys, report, tmp_path):
    code, line = run(capsys, report, "--features", str(tmp_path / "nope"))
    assert code == preflight.USAGE and line.endswith("nope: no such directory")


def test_a_missing_rig_file(capsys, report, tmp_path):
    code, line = run(capsys, report, "--rig", str(tmp_path / "rig.yaml"))
    assert code == preflight.USAGE == 2        # as `rig check` says it (tests/harness/test_rig_cli.py)
    assert "rig.yaml" in line


def test_plain_pytest_refuses_bad_files_and_selections_before_running(pytester, tmp_path):
    """Without the CLI the plugin's own checks make them pytest usage errors (exit 4), not INTERNALERRORs."""
    for args, message in ((["--deviations", str(tmp_path / "nope.yaml")], "no such file"),
                          (["--area", "schedular"], "did you mean scheduler?")):
        result = pytester.runpytest_inprocess("--pyargs", "kube32.conformance.bind", "-p", "no:cacheprovider",
                                              "--report", str(tmp_path / "r"), *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert message in result.stderr.str()
        assert not (tmp_path / "r").exists()


def test_exit_statuses_are_distinct_and_in_the_help(capsys):
    assert len(set(preflight.EXIT_STATUSES)) == len(preflight.EXIT_STATUSES)
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    text = capsys.readouterr().out
    for code, meaning in preflight.EXIT_STATUSES.items():
        assert f"{code:3}  {meaning}" in text
