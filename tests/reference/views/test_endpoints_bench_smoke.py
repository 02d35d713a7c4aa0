"""benchmarks/endpoints_bench.py still runs (tiny sizes; the numbers are not judged here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "endpoints_bench.py"


def test_benchmark_script_runs(capsys):
    spec = importlib.util.spec_from_file_location("endpoints_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--services", "4", "--pods", "12", "--rounds", "3"]) == 0
    out = capsys.readouterr().out
    for label in ("service GET", "endpoints GET", "slices by service", "service LIST", "slices LIST"):
        assert label in out, out
    assert "worst single-Service ratio" in out
