"""A benchmark's ``--baseline`` run imports the baseline tree's code, not this checkout's: with the
top-level layout, this checkout's editable install would otherwise answer ``kube32.reference``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); import _tree; _tree.from_environment(); "
         "import kube32.reference.scheduler.scheduler as s, kube32.spec.constants as c; print(s.__file__); print(c.__file__)")


def where(env: dict) -> list[Path]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(REPO / "benchmarks")], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=60, check=True)
    return [Path(line).resolve() for line in done.stdout.split()]


def test_a_baseline_tree_is_what_a_benchmark_imports(tmp_path):
    for folder in ("spec", "features", "reference", "hardware_harness"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "KUBE32_TREE"}
    assert all(path.is_relative_to(REPO) for path in where(env))          # no baseline: this checkout
    assert all(path.is_relative_to(tmp_path) for path in where({**env, "KUBE32_TREE": str(tmp_path)}))
