"""The areas explore can search: each brings rules (operations, as Gherkin steps of the suite) and
checks (Then steps carrying the oracle's value, where the document decides it).

An area is a class with ``NAME``, ``TIME_FREE`` (its rules make sense on a real clock), a
``Rules`` mixin for the state machine, and hooks the machine calls around every step:
``allows(case, intent)`` (may the step run now), ``before(case, intent)`` (what must be known
before the step runs) and ``after(case, intent, before) -> list[Check]``. ``deadlines(case)`` lists (moment, check interval) pairs the time rule
aims at.
"""

from __future__ import annotations

import importlib

NAMES = ("scheduler", "node_lifecycle", "endpoints", "workloads", "deployment")
ALIASES: dict[str, str] = {}    # a suite area name explored by another area's rules


def load(name: str):
    module = importlib.import_module(f"{__name__}.{ALIASES.get(name, name)}")
    return module.AREA


class Area:
    NAME = ""
    TIME_FREE = False
    NEEDS = ()               # other areas whose rules this one needs (nodes to run on)

    class Rules:
        pass

    def allows(self, case, intent: dict) -> bool:
        """Whether the step may run now: a step whose outcome would turn on when each side's
        controllers acted (not on what the document decides) waits for a state both sides agree on."""
        return True

    def before(self, case, intent: dict) -> object:
        return None

    def after(self, case, intent: dict, before: object) -> list:
        return []

    def deadlines(self, case) -> list[tuple[float, float]]:
        return []
