"""Helpers for running the conformance suite against a short-timeout virtual rig (CI).

``short_rig(workdir, ...)`` starts a VirtualRig (one control-plane board, node boards node-a and
node-b, all behind RFC2217 servers on 127.0.0.1) whose control plane runs the hardware profile with
the ``SHORT`` overrides and whose kubelets renew on the same numbers; ``run_suite`` runs the
feature suite against it with ``--target rig:<rig.yaml>`` and the same numbers via ``--profile-set``
in a pytest subprocess, and returns its exit code, output, clauses.json document and report dir.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kube32.conformance.commands.run import UNUSED_PLUGINS
from kube32.conformance.targets.rig import BoardFailure
from kube32.harness.virtual.virtual_rig import VirtualRig
from kube32.spec import profiles

# Short timing for CI; the control plane, the kubelets and the runner all get these numbers.
SHORT = {
    "lease_duration": 2.0,
    "lease_renew_interval": 0.5,
    "noexecute_delay": 2.0,
    "default_toleration_seconds": 3.0,
    "lifecycle_check_interval": 0.25,
    "reconcile_interval": 0.5,
    "deployment_interval": 0.5,
    "workload_interval": 0.5,
}
NODES = ("node-a", "node-b")
TIMEOUTS = {"boot": 5, "ready": 8}


def short_rig(workdir: Path, *, node_firmware: dict | None = None, prefix: str = "",
              timeouts: dict | None = None, nodes: tuple[str, ...] = NODES, timing: dict | None = SHORT) -> VirtualRig:
    """``timing``: the hardware profile's overrides (None: the hardware profile as a real bench has it)."""
    hardware = profiles.load("hardware", **(timing or {}))
    return VirtualRig(
        workdir,
        nodes,
        transport="rfc2217",
        profile="hardware",
        overrides=timing,
        lease_interval=hardware.lease_renew_interval,
        lease_duration=hardware.lease_duration,
        node_firmware=node_firmware,
        timeouts=timeouts or TIMEOUTS,
        prefix=prefix,
    )


def profile_args(timing: dict | None = SHORT) -> list[str]:
    out = ["--profile", "hardware"]
    for key, value in (timing or {}).items():
        out += ["--profile-set", f"{key}={value:g}"]
    return out


@dataclasses.dataclass
class SuiteRun:
    returncode: int
    output: str
    doc: dict          # clauses.json
    report: Path


def run_suite(rig_path: Path, report: Path, *selection: str, features: Path | None = None,
              timeout: float = 240) -> SuiteRun:
    """Run the suite in a pytest subprocess against the rig (``features`` replaces the feature dir)."""
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    if features is not None:
        env["KUBE32_FEATURES"] = str(features)
    report.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "kube32.conformance.bind",
           *[arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")], "-q", "--target", f"rig:{rig_path}", *profile_args(), "--report", str(report), *selection]
    proc = subprocess.run(cmd, cwd=report, env=env, capture_output=True, text=True, timeout=timeout)
    doc_path = report / "clauses.json"
    doc = json.loads(doc_path.read_text()) if doc_path.exists() else {}
    return SuiteRun(proc.returncode, proc.stdout + proc.stderr, doc, report)


def crash_is_seen(target, vrig: VirtualRig, match: str, within: float) -> None:
    """Panic the control-plane board inside a scenario and poll the target's health check until it
    raises the crash as a ``BoardFailure`` matching ``match`` (``within`` bounds the wait)."""
    target.begin_scenario()
    vrig.board(vrig.cp_board).panic("StoreProhibited")
    deadline = time.monotonic() + within
    with pytest.raises(BoardFailure, match=match):
        while time.monotonic() < deadline:
            target.check_health()
            time.sleep(0.05)
    target.end_scenario()


def scenario_results(doc: dict) -> dict[str, dict]:
    """scenario name -> its entry in clauses.json (first one seen)."""
    out: dict[str, dict] = {}
    for clause in doc.get("clauses", []):
        for s in clause["scenarios"]:
            out.setdefault(s["name"], s)
    return out
