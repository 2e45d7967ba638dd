"""Divergence: attempts that keep making the failure worse than the best tree seen so far.

Pure. Counts are failing tests plus errors of each finished check, in order (index 0 is the
initial check; None where the runner printed no counts). Two consecutive attempts with more
problems than the best before them diverge: the engine restores the best tree, tells the next
attempt, and a second divergence opens the circuit breaker with the reason "diverging".
"""

from __future__ import annotations

from collections.abc import Sequence

REASON = "diverging: fix attempts kept making the failure worse than the best tree so far"


def best_index(counts: Sequence[int | None]) -> int | None:
    """The index with the fewest problems (the earliest on ties), or None when none is known."""
    known = [(c, i) for i, c in enumerate(counts) if c is not None]
    return min(known)[1] if known else None


def diverged(counts: Sequence[int | None], since: int = 0) -> bool:
    """True when the last two counts, both at index >= `since` (after the last restore), are
    each higher than the best count before them."""
    if len(counts) < 3 or len(counts) - 2 < max(since, 1):
        return False
    earlier = [c for c in counts[:-2] if c is not None]
    last_two = counts[-2:]
    if not earlier or any(c is None for c in last_two):
        return False
    best = min(earlier)
    return all(c is not None and c > best for c in last_two)
