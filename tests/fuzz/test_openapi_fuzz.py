"""Schemathesis against the OpenAPI the reference serves: generated requests for every operation
of every group version, checked for 5xx answers and for responses that break the served schema.

The default run fuzzes a small sample (one example per operation of the core and apps documents);
``tox -e fuzz`` sets ``KUBE32_FUZZ_EXAMPLES`` and ``KUBE32_FUZZ_DOCUMENTS=all``. Each document's
counts are printed for the record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from integration_helpers import Serve  # noqa: E402

HERE = Path(__file__).resolve().parent
EXAMPLES = int(os.environ.get("KUBE32_FUZZ_EXAMPLES", "1"))
ALL_DOCUMENTS = ["api/v1", "apis/apps/v1", "apis/batch/v1", "apis/coordination.k8s.io/v1", "apis/discovery.k8s.io/v1"]
DOCUMENTS = ALL_DOCUMENTS if os.environ.get("KUBE32_FUZZ_DOCUMENTS") == "all" else ALL_DOCUMENTS[:2]
CHECKS = "not_a_server_error,response_schema_conformance"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("fuzz")
    srv = Serve("--clock", "manual", data_dir=str(base / "data"), log_path=base / "serve.log").start()
    yield srv
    srv.stop()


@pytest.mark.timeout(3600)            # tox -e fuzz: many examples of the core document take long
@pytest.mark.parametrize("document", DOCUMENTS)
def test_no_5xx_and_no_schema_violations(server, document, tmp_path):
    report = tmp_path / "report.json"
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "fuzz_hooks", "PYTHONPATH": str(HERE)}
    cmd = [sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/openapi/v3/{document}",
           "--url", server.url, "-c", CHECKS, "-n", str(EXAMPLES), "--phases", "examples,fuzzing",
           "--generation-deterministic", "--request-timeout", "30", "--report-json-path", str(report),
           "--suppress-health-check", "all", "--no-color"]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    assert report.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    doc = json.loads(report.read_text())
    cases = doc["test_cases"]
    print(f"fuzz {document}: {cases['generated']} requests, {len(doc['failures'])} failures, "
          f"{sum(e['count'] for e in doc['errors'])} errors")
    assert doc["failures"] == [] and doc["errors"] == [], result.stdout[-6000:]
    assert cases["generated"] > 0
