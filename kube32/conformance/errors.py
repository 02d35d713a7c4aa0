"""Runner errors, split by who broke: the target (a clause FAILED) or the harness (an ERROR).

``TargetBroke`` subclasses ``AssertionError`` so pytest and the reports count it as a failure of
the target; ``HarnessError`` (network down, target would not start, a board crashed or vanished)
is reported as ``error``, never as a clause failure.
"""

from __future__ import annotations

import json


class TargetBroke(AssertionError):
    """The target answered in a way the contract forbids."""


class ApiStatusError(TargetBroke):
    """A non-2xx answer where the step needed success. Carries the Status the target sent."""

    def __init__(self, method: str, path: str, code: int, status: dict | str) -> None:
        self.method, self.path, self.code = method, path, code
        self.status = status if isinstance(status, dict) else {"message": status}
        self.reason = self.status.get("reason", "")
        super().__init__(f"{method} {path} -> {code} {self.reason}: {json.dumps(self.status.get('message', ''))}")


class Unmet(TargetBroke):
    """A Then step's expectation the target did not meet: ``expected`` (what the step checks),
    ``actual`` (the last thing the runner saw, in full), ``clock`` (target-clock epoch when the
    check gave up) and ``waited`` (real seconds it polled or held). Reads as ``"expected: actual"``."""

    def __init__(self, expected: str, actual: str, clock: float | None = None, waited: float = 0.0) -> None:
        self.expected, self.actual, self.clock, self.waited = expected, actual, clock, waited
        super().__init__(f"{expected}: {actual}")


class SchemaViolation(TargetBroke):
    """An object the target returned does not match the kube32 JSON Schemas."""


class HarnessError(Exception):
    """The harness, the network or a board broke; no verdict on the target's clauses."""


class TargetUnavailable(HarnessError):
    """The target could not be asked: refused or lost connections, timeouts, 502/503/504 (after the
    client's bounded retries; see ``client.ApiClient``)."""


class TargetGone(TargetUnavailable):
    """Not run: earlier scenarios in a row could not reach the target (``reachability.py``)."""


class TlsRefused(TargetUnavailable):
    """The TLS handshake with the target failed (certificate, protocol)."""


class AuthRefused(TargetUnavailable):
    """The target refused the runner's credentials (401)."""


class ClockUnknown(HarnessError):
    """The runner cannot tell whether the target's clock is manual (and will not guess)."""


class CleanupFailed(HarnessError):
    """What a scenario created could not be removed; later scenarios on a shared target may be affected."""


class CapabilityMissing(HarnessError):
    """A step needs something this target cannot do (e.g. restart); the scenario is disabled."""
