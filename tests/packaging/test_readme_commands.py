"""The README's two set-up commands, as written: the main job runs verbatim in a fresh copy of the
checkout, and the test command is the one `.ci/run` runs (CI runs it on a clean clone)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # a venv, the toolkit and its dependencies installed, then a run

REPO = Path(__file__).resolve().parents[2]


def readme_block(marker: str) -> list[str]:
    text = (REPO / "README.md").read_text()
    block = re.search(rf"<!-- walkthrough:{marker} -->\s*```bash\n(.*?)```", text, re.S)
    assert block, f"README has no walkthrough:{marker} block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_test_command_is_what_ci_runs():
    [command] = readme_block("test")
    ci = [line for line in (REPO / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == [command]


def test_the_readme_main_job_runs_verbatim_in_a_fresh_copy(tmp_path):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the git checkout to copy its tracked files")
    copy = tmp_path / "clone"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True)
    for name in filter(None, files.stdout.split("\0")):
        src, dst = REPO / name, copy / name
        if not src.exists() and not src.is_symlink():      # removed in the work tree, not yet committed
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            dst.symlink_to(os.readlink(src))
        else:
            shutil.copy2(src, dst)
    [command] = readme_block("run")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "KUBE32_", "PYTEST_", "VIRTUAL_ENV"))}
    done = subprocess.run(["bash", "-c", command], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    clauses = json.loads((copy / "reports" / "clauses.json").read_text())
    document = clauses["summary"]["document"]["clauses"]
    assert document["failed"] == document["error"] == 0 and document["passed"] > 100, clauses["summary"]
