"""The fault registry of the sensitivity suite.

A fault is a small monkeypatch of the in-process reference, applied only inside the tests, that
makes the reference get one documented rule wrong. Each names the clauses whose scenarios must
then FAIL. Product code has no fault flags: faults patch module attributes.

    @fault("tie-break-descending", breaks=["SCHED-TIE-BREAK"])
    def _(mp):
        mp.setattr(plugins.score, "tie_break", lambda names: max(names))
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable

import pytest

from tests.sensitivity import faults as _faults_pkg


@dataclasses.dataclass(frozen=True)
class Fault:
    name: str
    breaks: tuple[str, ...]
    apply: Callable[[pytest.MonkeyPatch], None]
    module: str


FAULTS: dict[str, Fault] = {}


def fault(name: str, breaks: list[str]):
    if not breaks:
        raise ValueError(f"fault {name!r} must name the clauses it breaks")

    def register(fn: Callable[[pytest.MonkeyPatch], None]):
        if name in FAULTS:
            raise ValueError(f"two faults are named {name!r} ({FAULTS[name].module}, {fn.__module__})")
        FAULTS[name] = Fault(name, tuple(breaks), fn, fn.__module__)
        return fn

    return register


def load_all() -> dict[str, Fault]:
    for module in pkgutil.iter_modules(_faults_pkg.__path__):
        importlib.import_module(f"{_faults_pkg.__name__}.{module.name}")
    return FAULTS
