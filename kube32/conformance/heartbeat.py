"""A sign of life during long waits on a real clock: "waiting for <step>: 120/330 s".

A real-time scenario may wait minutes for a taint or an eviction; without this the terminal says
nothing until it ends. Lines are plain text (no escape codes), one every ``every`` seconds; waits
shorter than that pass silently.
"""

from __future__ import annotations

from collections.abc import Callable


class Heartbeat:
    def __init__(self, write: Callable[[str], None], every: float = 30.0) -> None:
        self.write = write
        self.every = every
        self.what = "time to pass"          # the plugin sets the running step's text

    def wait_until(self, clock, deadline: float) -> None:
        """``clock.advance_to(deadline)`` in slices, saying how far it has got after each."""
        start = clock.now()
        total = deadline - start
        beat = start
        while beat < deadline:
            beat = min(deadline, beat + self.every)
            clock.advance_to(beat)
            if beat < deadline:
                self.write(f"waiting for {self.what}: {beat - start:.0f}/{total:.0f} s")
