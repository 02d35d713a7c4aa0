"""The manual clock's deadline-driven jumps change nothing visible: the whole feature suite against
the in-process reference gives every clause the same verdict when every tick runs
(KUBE32_CLOCK_JUMPS=tick) as when ticks that can change nothing are skipped (the default)."""

from __future__ import annotations

import pytest

from tests.conftest import FEATURES, run_features, statuses


@pytest.mark.slow
def test_the_suite_gives_the_same_verdicts_tick_by_tick(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBE32_FEATURES", str(FEATURES))
    runs = {}
    for mode in ("deadline", "tick"):
        monkeypatch.setenv("KUBE32_CLOCK_JUMPS", mode)
        runs[mode] = statuses(run_features(pytester, tmp_path / mode, "--target", "reference")[1])
    assert runs["deadline"] == runs["tick"]
    assert "failed" not in runs["deadline"].values() and "error" not in runs["deadline"].values()
