"""Faulty targets for explore's own tests and its power benchmark: a `serve` subprocess that applies
one fault before it starts, so the oracle (the in-process reference) stays clean.

Besides the sensitivity suite's faults (tests/sensitivity/faults), two planted bugs that the
features of the time they were written did not catch:

- ``planted-k-and-G-unrecognized``: the decimal suffixes k and G read as unknown (count 0);
- ``planted-pending-peripherals-not-subtracted``: a Pending pod's PSRAM, GPIO, ADC and RMT are not
  subtracted from its node (its memory, I2C and UART still are).

Run a faulty server by hand: ``python -m tests.explore.faults FAULT serve --clock manual ...``.
"""

from __future__ import annotations

import dataclasses
import sys

import pytest

from kube32.conformance.targets import process
from kube32.reference.scheduler import accounting, resources
from kube32.spec import constants, quantities
from tests.sensitivity import registry

PENDING_NOT_SUBTRACTED = (resources.PSRAM, constants.GPIO, "esp32.io/adc", "esp32.io/rmt-tx", "esp32.io/rmt-rx")
_multiplier = quantities.multiplier


@dataclasses.dataclass(frozen=True)
class Planted:
    name: str
    area: str
    apply: object
    fair: bool = False
    level: str = "document"


def _k_and_g_unrecognized(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(quantities, "multiplier", lambda suffix: None if suffix in ("k", "G") else _multiplier(suffix))


def _pending_peripherals(mp: pytest.MonkeyPatch) -> None:
    def usage(bound, node_resource_version):
        out = resources.zero()
        for pod, amounts in bound:
            if not accounting.counts_against_node(pod, node_resource_version):
                continue
            for name, value in amounts.items():
                if not (accounting.is_pending(pod) and name in PENDING_NOT_SUBTRACTED):
                    out[name] += value
        return out
    mp.setattr(accounting, "usage", usage)


PLANTED = {p.name: p for p in (
    Planted("planted-k-and-G-unrecognized", "scheduler", _k_and_g_unrecognized),
    Planted("planted-pending-peripherals-not-subtracted", "scheduler", _pending_peripherals),
)}


def every_fault() -> dict:
    """name -> an object with ``apply(mp)`` (sensitivity faults, fair variants and the planted bugs)."""
    return {**registry.load_all(), **PLANTED}


class FaultyProcessTarget(process.ProcessTarget):
    """``--target process``, the server started through this module with one fault applied."""

    def __init__(self, fault: str, profile, clock_start: float | None = None) -> None:
        if fault not in every_fault():
            raise KeyError(f"no fault named {fault!r}")
        super().__init__(profile, clock_start=clock_start)
        self.fault = fault
        self.process.launcher = [sys.executable, "-m", __name__, fault]

    def describe(self) -> dict:
        return {**super().describe(), "fault": self.fault}


def main(argv: list[str]) -> int:
    fault, rest = argv[0], argv[1:]
    mp = pytest.MonkeyPatch()
    every_fault()[fault].apply(mp)
    from kube32.conformance import cli

    return cli.main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
