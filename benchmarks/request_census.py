"""Where a conformance run's requests go: per area, scenario, step and route (a pytest plugin).

    pytest --pyargs kube32.conformance.bind -p no:labgrid -p benchmarks.request_census \
        --target http://127.0.0.1:6443 --census /tmp/census.json
    python -m benchmarks.request_census /tmp/census.json        # the biggest consumers

Every request the runner's ``ApiClient`` sends (scenario steps, fake kubelets, clock jumps,
cleanup) is counted under the step it was sent in ("setup"/"teardown" outside steps).
"""

from __future__ import annotations

import collections
import json
import sys
import threading

import pytest

from kube32.conformance.client import ApiClient
from tests.proxy import route

_where = threading.local()
_counts: collections.Counter = collections.Counter()
_lock = threading.Lock()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--census", default=None, help="write request counts per area/scenario/step/route here")


def pytest_configure(config: pytest.Config) -> None:
    original = ApiClient.request

    def counted(self, method, path, **kw):
        where = getattr(_where, "at", ("-", "-", "setup"))
        with _lock:
            _counts[(*where, route(method, path))] += 1
        return original(self, method, path, **kw)

    ApiClient.request = counted


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    area = str(item.path).rsplit("/features/", 1)[-1].split("/", 1)[0] if "/features/" in str(item.path) else "-"
    _where.at = (area, item.name, "setup")


def pytest_bdd_before_step(request, feature, scenario, step, step_func) -> None:
    area, name, _ = getattr(_where, "at", ("-", request.node.name, ""))
    _where.at = (area, name, f"{step.keyword} {step.name}")


def pytest_runtest_teardown(item: pytest.Item) -> None:
    area, name, _ = getattr(_where, "at", ("-", item.name, ""))
    _where.at = (area, name, "teardown")


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = session.config.getoption("--census")
    if out:
        rows = [{"area": a, "scenario": s, "step": st, "route": r, "n": n} for (a, s, st, r), n in _counts.items()]
        with open(out, "w") as fh:
            json.dump(rows, fh)


def summary(rows: list[dict], top: int = 25) -> str:
    total = sum(r["n"] for r in rows)
    lines = [f"{total} requests"]
    for key in ("area", "route", "step", "scenario"):
        c: collections.Counter = collections.Counter()
        for r in rows:
            c[r[key] if key != "step" else _generic(r["step"])] += r["n"]
        lines.append(f"-- by {key}")
        lines += [f"{n:7} {k}" for k, n in c.most_common(top)]
    return "\n".join(lines)


def _generic(step: str) -> str:
    """Steps with their quoted values blanked, so one pattern counts once."""
    import re

    return re.sub(r'"[^"]*"', '"…"', re.sub(r"\b\d+(\.\d+)?\b", "N", step))


if __name__ == "__main__":
    with open(sys.argv[1]) as fh:
        print(summary(json.load(fh), int(sys.argv[2]) if len(sys.argv) > 2 else 25))
