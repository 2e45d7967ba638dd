"""The circuit breaker and the transient backoff: pure decisions over the run's history.

The breaker is CLOSED while another attempt is worth making and OPEN when the loop must stop:
the same failure `threshold` times in a row, a second oscillation (A-B-A), two attempts in a row
that changed nothing, attempts or budget spent, a diff grown too large, or a permanent error.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from tenacity import wait_exponential_jitter

from fixbot.core.failure import ErrorClass
from fixbot.core.models import Attempt, BreakerState, Phase
from fixbot.core.settings import Settings

BACKOFF_CAP_S = 60.0
OSCILLATIONS_TO_OPEN = 2

# The starts of the reasons the breaker itself trips on (`decide`), read by `tripped`.
TRIPS = (
    "two attempts in a row changed nothing",
    "the same failure occurred",
    "the failure oscillates",
)


class Usage(BaseModel):
    """What the run has spent: fix attempts (`Attempt.is_fix`), tokens, USD (None if unknown),
    wall seconds, and diff lines since the start."""

    fix_attempts: int = 0
    tokens: int = 0
    cost_usd: float | None = 0.0
    elapsed_s: float = 0.0
    diff_lines: int = 0


class Limits(BaseModel):
    """The budget, from Settings; None means unlimited."""

    max_attempts: int
    threshold: int
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    max_duration_s: float | None = None
    max_diff_lines: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        """The budget a run's settings give."""
        return cls(
            max_attempts=settings.max_attempts,
            threshold=settings.circuit_breaker,
            max_tokens=settings.max_tokens_per_run,
            max_cost_usd=settings.max_cost_usd,
            max_duration_s=settings.max_duration,
            max_diff_lines=settings.max_diff_lines,
        )


class Decision(BaseModel):
    """The breaker's verdict; `oscillation` tells the next fixer it went back to an old failure."""

    state: BreakerState
    reason: str | None = None
    oscillation: bool = False


def failing_signatures(attempts: Sequence[Attempt]) -> list[str | None]:
    """The signature of each finished check in order (None for a passing check)."""
    return [None if a.passed else a.signature for a in attempts if a.done]


def is_oscillation(signatures: Sequence[str | None]) -> bool:
    """True when the last signature occurred before, with a different one since (A-B-A)."""
    if len(signatures) < 3 or signatures[-1] is None:
        return False
    last = signatures[-1]
    earlier = list(signatures[:-1])
    if last not in earlier or earlier[-1] == last:
        return False
    since = earlier[len(earlier) - 1 - earlier[::-1].index(last) + 1 :]
    return any(s != last for s in since)


def repeats(signatures: Sequence[str | None]) -> int:
    """How many times in a row the last failing signature occurred (0 when the last passed)."""
    if not signatures or signatures[-1] is None:
        return 0
    count = 0
    for sig in reversed(signatures):
        if sig != signatures[-1]:
            break
        count += 1
    return count


def oscillations(attempts: Sequence[Attempt]) -> list[int]:
    """The numbers of the finished, failing attempts the breaker judged (the initial check and
    FIX attempts) whose failure was an oscillation (A-B-A) of the failures before them."""
    return [
        a.number
        for i, a in enumerate(attempts)
        if a.done
        and not a.passed
        and a.phase in (Phase.CHECK, Phase.FIX)
        and is_oscillation(failing_signatures(attempts[: i + 1]))
    ]


def model_budget_spent(usage: Usage, limits: Limits) -> str | None:
    """Why the model budget (tokens or USD) is spent, or None while some is left."""
    if limits.max_tokens is not None and usage.tokens >= limits.max_tokens:
        return f"token budget spent ({usage.tokens} of {limits.max_tokens} tokens)"
    cost = usage.cost_usd
    if limits.max_cost_usd is not None and cost is not None and cost >= limits.max_cost_usd:
        return f"cost budget spent (${cost:.4f} of ${limits.max_cost_usd:.2f})"
    return None


def not_a_fix(attempt: Attempt, max_diff_lines: int | None) -> str | None:
    """Why the tree of `attempt` is no fix at all, so never the best attempt to keep: its diff
    since the start is over `max_diff_lines` (the limit that opens the breaker, see `decide`).
    None when it may compete on its failure counts."""
    if max_diff_lines is not None and attempt.diff_lines > max_diff_lines:
        return f"its diff of {attempt.diff_lines} lines is over the limit ({max_diff_lines})"
    return None


def _budget_reason(usage: Usage, limits: Limits) -> str | None:
    if usage.fix_attempts >= limits.max_attempts:
        return f"all {limits.max_attempts} fix attempts were used"
    if spent := model_budget_spent(usage, limits):
        return spent
    if limits.max_duration_s is not None and usage.elapsed_s >= limits.max_duration_s:
        return f"time budget spent ({usage.elapsed_s:.0f} s of {limits.max_duration_s:.0f} s)"
    if limits.max_diff_lines is not None and usage.diff_lines > limits.max_diff_lines:
        return (
            f"the diff grew to {usage.diff_lines} lines (limit {limits.max_diff_lines}): "
            "a fix that rewrites this much is not a fix"
        )
    return None


def _no_change_twice(attempts: Sequence[Attempt]) -> bool:
    fixes = [a for a in attempts if a.is_fix]
    return len(fixes) >= 2 and not fixes[-1].files_changed and not fixes[-2].files_changed


def _crashes(attempts: Sequence[Attempt]) -> str:
    """The fix commands' failures behind the last attempt that changed nothing, as the end of
    the breaker's reason ("" when none failed): a crash is the cause, not "changed nothing"."""
    fixes = [a for a in attempts if a.is_fix]
    lines = list(dict.fromkeys(fixes[-1].fix_problems if fixes else []))
    return ": the fix commands failed: " + "; ".join(lines) if lines else ""


def decide(
    attempts: Sequence[Attempt], usage: Usage, limits: Limits, oscillations: int
) -> Decision:
    """Decide whether the loop may make another fix attempt after the last finished check.

    `attempts` is the run's history (the last one finished and failing); `oscillations` counts the
    oscillations seen before the last check. Returns OPEN with a reason the report can show.
    """
    last = attempts[-1]
    sigs = failing_signatures(attempts)
    oscillating = is_oscillation(sigs)
    spent = limits.max_duration_s is not None and usage.elapsed_s >= limits.max_duration_s
    checks = [
        (last.fix_error is not None, f"the fixer failed: {last.fix_error}"),
        (  # a check cut short by the budget is no transient failure: say which limit stopped it
            spent and last.timed_out,
            f"time budget spent ({usage.elapsed_s:.0f} s of {limits.max_duration_s or 0:.0f} s, "
            "max-duration): the last check was stopped when it ran out",
        ),
        (
            last.error_class is ErrorClass.PERMANENT,
            f"permanent error ({last.category}): no code change can fix it",
        ),
        (
            last.error_class is ErrorClass.TRANSIENT,
            f"the failure stayed transient ({last.category}) after "
            f"{last.transient_retries} re-runs: retry later, no code change was tried",
        ),
        (_no_change_twice(attempts), TRIPS[0] + _crashes(attempts)),
        (
            repeats(sigs) >= limits.threshold,
            f"{TRIPS[1]} {repeats(sigs)} times in a row",
        ),
        (
            oscillating and oscillations + 1 >= OSCILLATIONS_TO_OPEN,
            f"{TRIPS[2]}: fixes keep bringing back an earlier failure",
        ),
    ]
    for hit, reason in checks:
        if hit:
            return Decision(state=BreakerState.OPEN, reason=reason, oscillation=oscillating)
    budget = _budget_reason(usage, limits)
    if budget:
        return Decision(state=BreakerState.OPEN, reason=budget, oscillation=oscillating)
    return Decision(state=BreakerState.CLOSED, oscillation=oscillating)


def tripped(reason: str | None) -> bool:
    """True when `reason` (a `Decision.reason`) is the breaker's own: no change twice, the same
    failure repeated, an oscillation; not a fixer's error, a permanent or transient failure or a
    spent budget, which end the run without the breaker having counted anything."""
    return bool(reason) and str(reason).startswith(TRIPS)


def backoff_wait(initial_s: float) -> wait_exponential_jitter:
    """Tenacity wait for transient re-runs: `initial_s` doubling per retry, plus up to
    `initial_s` of random jitter, capped at 60 s."""
    return wait_exponential_jitter(
        multiplier=initial_s, max=BACKOFF_CAP_S, exp_base=2, jitter=initial_s
    )
