"""The fault registry of the sensitivity suite.

A fault is a small monkeypatch of the in-process reference, applied only inside the tests, that
makes the reference get one documented rule wrong. Each names the clauses whose scenarios must
then FAIL, at document level unless it says ``level="reference"`` (it breaks only one of our readings).
Product code has no fault flags: faults patch module attributes.

    @fault("tie-break-descending", breaks=["SCHED-TIE-BREAK"])
    def _(mp):
        mp.setattr(plugins.score, "tie_break", lambda names: max(names))

A fair variant plays another reasonable implementation: it follows the document, but reads it
another way where the document is silent. The clauses it names must PASS at document level, those
in ``cannot_tell`` (unobservable under that reading) must be reported disabled, not failed, and
(proving the variant is live) those in ``differs`` must fail at reference level:

    @fair("were-not-ready-wording", passes=["SCHED-FILTER-STATUS-PRESENT"], differs=[...])
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
    level: str = "document"          # the level at which ``breaks`` must fail
    passes: tuple[str, ...] = ()     # fair variants: must pass at document level
    differs: tuple[str, ...] = ()    # fair variants: must fail at reference level
    cannot_tell: tuple[str, ...] = ()  # fair variants: the runner must say it cannot judge them
    args: tuple[str, ...] = ()       # runner options of the run that shows it (e.g. the hardware profile)

    @property
    def fair(self) -> bool:
        return bool(self.passes)

    @property
    def clauses(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.breaks + self.passes + self.differs + self.cannot_tell))


FAULTS: dict[str, Fault] = {}


def _register(name: str, **fields):
    def register(fn: Callable[[pytest.MonkeyPatch], None]):
        if name in FAULTS:
            raise ValueError(f"two faults are named {name!r} ({FAULTS[name].module}, {fn.__module__})")
        FAULTS[name] = Fault(name, apply=fn, module=fn.__module__, **fields)
        return fn

    return register


def fault(name: str, breaks: list[str], level: str = "document", args: tuple[str, ...] = ()):
    if not breaks:
        raise ValueError(f"fault {name!r} must name the clauses it breaks")
    if level not in ("document", "reference"):
        raise ValueError(f"fault {name!r}: level is document or reference, not {level!r}")
    return _register(name, breaks=tuple(breaks), level=level, args=tuple(args))


def fair(name: str, passes: list[str], differs: list[str] = (), cannot_tell: list[str] = ()):
    if not passes:
        raise ValueError(f"fair variant {name!r} must name the clauses that must still pass")
    return _register(name, breaks=(), passes=tuple(passes), differs=tuple(differs), cannot_tell=tuple(cannot_tell))


def load_all() -> dict[str, Fault]:
    for module in pkgutil.iter_modules(_faults_pkg.__path__):
        importlib.import_module(f"{_faults_pkg.__name__}.{module.name}")
    return FAULTS
