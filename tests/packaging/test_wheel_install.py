"""The built wheel, installed into a fresh venv beside a user's own ``spec`` and ``reference`` packages:
it adds one import name, ``kube32``, and the console script, and its runner passes the job area.

The venv gets the wheel alone (``--no-deps``); its dependencies come from the environment running
this test through a ``.pth`` line, which adds their directory to ``sys.path`` without running that
environment's own ``.pth`` files (so an editable install of the toolkit there stays invisible).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # about a minute: a wheel build and one area of the suite

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("kube32", "spec", "features", "reference", "hardware_harness", "setup.py", "pyproject.toml", "README.md")


def run(*args: object, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the sources (the build leaves nothing in the work tree)."""
    tmp = tmp_path_factory.mktemp("build")
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, tmp / "src" / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, tmp / "src" / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", tmp / "src")
    (built,) = (tmp / "dist").glob("*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> tuple[Path, set[str], set[str]]:
    """(venv, names the wheel added to site-packages, names it added to bin)."""
    venv = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    before_site, before_bin = set(os.listdir(site)), set(os.listdir(venv / "bin"))
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel)
    added_site = set(os.listdir(site)) - before_site
    added_bin = set(os.listdir(venv / "bin")) - before_bin
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_outer_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")
    return venv, added_site, added_bin


@pytest.fixture(scope="module")
def user_project(tmp_path_factory) -> Path:
    """A user's implementation tree with its own top-level ``spec`` and ``reference`` packages."""
    root = tmp_path_factory.mktemp("user")
    for name in ("spec", "reference"):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(f'OWNER = "user"\nNAME = "{name}"\n')
    return root


def user_env(user_project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "KUBE32_", "PYTEST_"))}
    env["PYTHONPATH"] = str(user_project)   # the user's packages come first on sys.path
    return env


# One test, not three: under xdist, tests sharing a module fixture may land on different workers and
# build the wheel twice.
def test_the_wheel_installs_one_import_name_and_its_runner_passes_beside_user_packages(wheel, venv, user_project,
                                                                                      tmp_path):
    path, added_site, added_bin = venv
    names = zipfile.ZipFile(wheel).namelist()
    for wanted in ("kube32/spec/clauses/scheduler.yaml", "kube32/spec/profiles/shared.yaml",
                   "kube32/spec/schemas/pod.json", "kube32/reference/machinery/k8s_descriptors.binpb", "kube32/harness/rig.py",
                   "kube32/conformance/reports/templates/index.html.j2"):
        assert wanted in names, f"{wanted} missing from {wheel.name}"
    assert any(n.startswith("kube32/features/") and n.endswith(".feature") for n in names), "no features"
    version = metadata.version("kube32-conformance")
    assert added_site == {"kube32", f"kube32_conformance-{version}.dist-info"}
    assert added_bin == {"kube32-conformance"}

    env = user_env(user_project)
    code = ("import spec, reference, kube32.spec.catalogue, kube32.reference.app, kube32.conformance.plugin;"
            "print(spec.OWNER, reference.OWNER, kube32.__file__)")
    out = run(path / "bin" / "python", "-c", code, cwd=user_project, env=env).stdout.split()
    assert out[:2] == ["user", "user"]
    assert Path(out[2]).is_relative_to(path), out[2]   # the wheel's kube32, not the work tree's

    script = path / "bin" / "kube32-conformance"
    assert run(script, "--version", env=env).stdout.split() == ["kube32-conformance", version]
    report = tmp_path / "report"
    done = run(script, "run", "--area", "job", "-q", "--report", report, cwd=user_project, env=env, timeout=600)
    assert not re.search(r"\d+ warnings?\b", done.stdout), done.stdout[-3000:]   # none of ours
    clauses = json.loads((report / "clauses.json").read_text())["clauses"]
    job = [c["status"] for c in clauses if c["id"].startswith("JOB-")]
    assert "passed" in job and set(job) <= {"passed", "reference-only"}, job   # the run's exit status was 0 too
