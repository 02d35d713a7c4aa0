"""Runner errors, split by who broke: the target (a clause FAILED) or the harness (an ERROR).

``TargetBroke`` subclasses ``AssertionError`` so pytest and the reports count it as a failure of
the target; ``HarnessError`` (network down, target would not start, a board crashed or vanished)
is reported as ``error``, never as a clause failure.
"""

from __future__ import annotations


class TargetBroke(AssertionError):
    """The target answered in a way the contract forbids."""


class ApiStatusError(TargetBroke):
    """A non-2xx answer where the step needed success. Carries the Status the target sent."""

    def __init__(self, method: str, path: str, code: int, status: dict | str) -> None:
        self.method, self.path, self.code = method, path, code
        self.status = status if isinstance(status, dict) else {"message": status}
        self.reason = self.status.get("reason", "")
        super().__init__(f"{method} {path} -> {code} {self.reason}: {self.status.get('message', '')}")


class SchemaViolation(TargetBroke):
    """An object the target returned does not match the kube32 JSON Schemas."""


class HarnessError(Exception):
    """The harness, the network or a board broke; no verdict on the target's clauses."""


class TargetUnavailable(HarnessError):
    pass


class CapabilityMissing(HarnessError):
    """A step needs something this target cannot do (e.g. restart); the scenario is disabled."""
