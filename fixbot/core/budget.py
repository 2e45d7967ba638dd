"""The run's wall-time budget: one `Deadline` per run, and the rule by which it bounds each
command and model call.

The engine builds the deadline once, from `max-duration` and the time a resumed run already
spent (`RunState.elapsed_s`); the launcher (every project command), the model calls (each
request's timeout), the checker (no re-run past it) and the event log (its `elapsed_ms`) all
read that one value, so a resumed run keeps the budget the workflow gave the whole run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

MIN_COMMAND_S = 1.0


def capped_timeout(timeout_s: float, left_s: float | None) -> float:
    """A command's timeout (seconds) capped by `left_s`, the seconds left under `max-duration`
    (None: no wall-time budget), never below `MIN_COMMAND_S`.

    The workflow's budget bounds every command: a pull request's `.fixbot.toml` may set the
    check's `timeout`, never let one check run past the time the workflow gave the whole run.
    """
    if left_s is None:
        return timeout_s
    return max(MIN_COMMAND_S, min(timeout_s, left_s))


@dataclass(frozen=True)
class Deadline:
    """The run's wall-time budget.

    `limit_s`: `max-duration` in seconds (None: no budget). `started`: the `time.monotonic()`
    reading at which the run began, counted across resumed processes (a resumed run that had
    spent 100 s starts 100 s in the past). Times are `time.monotonic` seconds, this process's
    clock.
    """

    limit_s: float | None
    started: float

    @classmethod
    def start(cls, limit_s: float | None, spent_s: float = 0.0) -> Deadline:
        """The deadline of a run with budget `limit_s` that has already spent `spent_s`
        seconds (0 for a new run), starting now."""
        return cls(limit_s, time.monotonic() - spent_s)

    @property
    def ends(self) -> float | None:
        """When the budget ends (`time.monotonic` seconds), None without one."""
        return None if self.limit_s is None else self.started + self.limit_s

    def elapsed(self) -> float:
        """Seconds the run has taken so far, resumed processes included."""
        return time.monotonic() - self.started

    def left(self) -> float | None:
        """Seconds left (negative once past), None without a budget."""
        ends = self.ends
        return None if ends is None else ends - time.monotonic()

    def spent(self) -> bool:
        """True once the budget is used up."""
        left = self.left()
        return left is not None and left <= 0

    def cap(self, timeout_s: float) -> float:
        """`timeout_s` capped by the time left (see `capped_timeout`)."""
        return capped_timeout(timeout_s, self.left())
