"""A target that stopped answering is named at once.

Each process that runs scenarios keeps one ``Reachability``. A scenario that ends in an ``error``
because the target could not be reached (``errors.TargetUnavailable``, after the client's bounded
retries) counts; any other ending resets the count. After ``GONE_AFTER`` such scenarios in a row
the target is taken for gone: every later scenario of that process is an ``error`` at once, "not
run", with the cause (``errors.TargetGone``), instead of each spending the client's retries and
cleanup on a dead address. The report is written as usual, with those scenarios in it.
"""

from __future__ import annotations

from kube32.conformance import errors

GONE_AFTER = 3          # consecutive scenarios that could not reach the target
NOT_RUN = "not run"     # how a TargetGone message starts (the terminal prints one line for all of them)


def not_run(status: str, message: str) -> bool:
    """A scenario's record says it was not run because the target had stopped answering."""
    return status == "error" and message.startswith(f"{errors.TargetGone.__name__}: {NOT_RUN}")


class Reachability:
    def __init__(self, target: str) -> None:
        self.target = target
        self.lost_in_a_row = 0
        self.cause: str | None = None       # the first lost connection of the current streak
        self.gone = False

    def scenario_ended(self, verdict: str | None, exc: BaseException | None) -> None:
        if verdict is None:
            return
        if isinstance(exc, errors.TargetGone):
            return
        if verdict == "error" and isinstance(exc, errors.TargetUnavailable) \
                and not isinstance(exc, (errors.TlsRefused, errors.AuthRefused)):
            self.lost_in_a_row += 1
            self.cause = self.cause or str(exc)
            self.gone = self.lost_in_a_row >= GONE_AFTER
        elif verdict != "error":
            self.lost_in_a_row, self.cause = 0, None

    def check(self) -> None:
        """Before a scenario: raises ``TargetGone`` once the target is taken for gone."""
        if self.gone:
            raise errors.TargetGone(f"{NOT_RUN}: target {self.target} stopped answering "
                                    f"({self.lost_in_a_row} scenarios in a row could not reach it): {self.cause}")
