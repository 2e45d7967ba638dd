"""The run's wall-time budget as it bounds each command: one pure rule."""

from __future__ import annotations

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
