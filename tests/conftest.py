"""Shared fixtures of the toolkit's own tests."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# the load tests (minutes, heavy on CPU) run only in `tox -e load`
collect_ignore_glob = [] if os.environ.get("KUBE32_LOAD") else ["load/*"]

# Stored objects are frozen in every store the tests make, here and in the servers they start
# (the environment is inherited): a change in place raises where it is made (reference.store.frozen).
os.environ.setdefault("KUBE32_FROZEN_STORE", "1")


@pytest.fixture(autouse=True)
def _stored_objects_stay_unchanged():
    """A stored object changed in place fails the test that did it, even where the code that did it
    caught the exception (a controller pass, the API's 500 handler)."""
    from kube32.reference.store import frozen

    before = len(frozen.BREACHES)
    yield
    breaches = frozen.BREACHES[before:]
    del frozen.BREACHES[before:]
    assert not breaches, f"stored objects were changed in place: {breaches}"



def pytest_configure(config):
    # A shell's background job (`cmd &` without job control) starts with SIGINT ignored, and a child
    # inherits an ignored signal (Python then installs no KeyboardInterrupt): the tests that stop a
    # command with Ctrl-C (rig virtual, an interrupted run) need it to reach the child as a terminal's
    # would, so this process (and each xdist worker) starts its children with SIGINT's default.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except ValueError:      # not the main thread: leave it
            pass


REPO = Path(__file__).resolve().parent.parent
FEATURES = REPO / "features"


def run_features(pytester, report_dir: Path, *args: str, plugins=()):
    """Run the feature suite in-process through the real plugin; (pytest result, clauses.json)."""
    import json

    from kube32.conformance.commands.run import UNUSED_PLUGINS

    # as `kube32-conformance run` does: pytester restores sys.modules after each run, so a plugin it
    # loads (labgrid, hypothesis, schemathesis) would be imported again by every run
    result = pytester.runpytest_inprocess("--pyargs", "kube32.conformance.bind",
                                          *(a for name in UNUSED_PLUGINS for a in ("-p", f"no:{name}")),
                                          "-q", "--report", str(report_dir), *args, plugins=list(plugins))
    return result, json.loads((report_dir / "clauses.json").read_text())


def statuses(doc: dict) -> dict[str, str]:
    """clause id -> clause status of a clauses.json document."""
    return {row["id"]: row["status"] for row in doc["clauses"]}


def feature_dir(tmp_path: Path, monkeypatch, name: str, text: str) -> Path:
    """A features directory holding one feature file, made the one the runner reads."""
    root = tmp_path / "features"
    root.mkdir()
    (root / name).write_text(text)
    monkeypatch.setenv("KUBE32_FEATURES", str(root))
    return root
