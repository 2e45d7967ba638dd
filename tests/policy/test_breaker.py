"""The circuit breaker and the transient backoff (pure, no sleeping)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from fixbot.core.failure import ErrorClass
from fixbot.core.models import Attempt, BreakerState, Phase
from fixbot.policy.breaker import (
    Limits,
    Usage,
    backoff_wait,
    decide,
    is_oscillation,
    oscillations,
    repeats,
)

LIMITS = Limits(max_attempts=5, threshold=3)


def check(
    number: int, signature: str | None, files: list[str] | None = None, **kw: object
) -> Attempt:
    """A finished attempt whose check failed with `signature` (None: passed)."""
    return Attempt(
        number=number,
        phase=Phase.CHECK if number == 0 else Phase.FIX,
        done=True,
        passed=signature is None,
        signature=signature,
        error_class=None if signature is None else ErrorClass.FIXABLE,
        files_changed=files if files is not None else (["a.py"] if number else []),
        **kw,
    )


def test_closed_while_progressing() -> None:
    attempts = [check(0, "A"), check(1, "B")]
    assert decide(attempts, Usage(fix_attempts=1), LIMITS, 0).state is BreakerState.CLOSED


def test_opens_on_the_same_failure_threshold_times() -> None:
    attempts = [check(0, "A"), check(1, "A")]
    assert decide(attempts, Usage(fix_attempts=1), LIMITS, 0).state is BreakerState.CLOSED
    attempts.append(check(2, "A"))
    decision = decide(attempts, Usage(fix_attempts=2), LIMITS, 0)
    assert decision.state is BreakerState.OPEN
    assert "3 times in a row" in (decision.reason or "")


def test_oscillation_is_told_first_then_opens() -> None:
    attempts = [check(0, "A"), check(1, "B"), check(2, "A")]
    first = decide(attempts, Usage(fix_attempts=2), LIMITS, oscillations=0)
    assert first.state is BreakerState.CLOSED and first.oscillation
    second = decide([*attempts, check(3, "B")], Usage(fix_attempts=3), LIMITS, oscillations=1)
    assert second.state is BreakerState.OPEN and "oscillates" in (second.reason or "")


def test_is_oscillation_needs_a_different_failure_between() -> None:
    assert is_oscillation(["A", "B", "A"])
    assert not is_oscillation(["A", "A", "A"])
    assert not is_oscillation(["A", "B", "C"])
    assert not is_oscillation(["A", "B", None])
    assert repeats(["B", "A", "A"]) == 2


def test_oscillations_are_derived_from_the_judged_failures_in_order() -> None:
    attempts = [check(0, "A"), check(1, "B"), check(2, "A"), check(3, "B"), check(4, None)]
    assert oscillations(attempts) == [2, 3]
    # A failing review fix is undone, not judged by the breaker: never an oscillation.
    review = check(2, "A").model_copy(update={"phase": Phase.REVIEW})
    assert oscillations([check(0, "A"), check(1, None), review]) == []


def test_only_fix_attempts_count_as_changing_nothing() -> None:
    initial = check(0, "A")  # the initial check never changes anything: not an attempt
    assert decide([initial, check(1, "B", files=[])], Usage(), LIMITS, 0).state is (
        BreakerState.CLOSED
    )


def test_opens_after_two_attempts_that_change_nothing() -> None:
    attempts = [check(0, "A"), check(1, "B", files=[]), check(2, "C", files=[])]
    decision = decide(attempts, Usage(fix_attempts=2), LIMITS, 0)
    assert decision.state is BreakerState.OPEN and "changed nothing" in (decision.reason or "")


def test_opens_on_permanent_error_and_fixer_error() -> None:
    permanent = check(0, "A")
    permanent.error_class, permanent.category = ErrorClass.PERMANENT, "auth"
    assert "permanent error (auth)" in (decide([permanent], Usage(), LIMITS, 0).reason or "")
    broken = check(1, "A", fix_error="model authentication failed: set OPENAI_API_KEY")
    assert "OPENAI_API_KEY" in (decide([check(0, "A"), broken], Usage(), LIMITS, 0).reason or "")


def test_budgets_open_the_breaker() -> None:
    attempts = [check(0, "A"), check(1, "B")]
    limits = Limits(
        max_attempts=5,
        threshold=3,
        max_tokens=1000,
        max_cost_usd=0.5,
        max_duration_s=60,
        max_diff_lines=10,
    )
    cases = {
        "fix attempts": Usage(fix_attempts=5),
        "token budget": Usage(fix_attempts=1, tokens=1000),
        "cost budget": Usage(fix_attempts=1, cost_usd=0.51),
        "time budget": Usage(fix_attempts=1, elapsed_s=61),
        "diff grew": Usage(fix_attempts=1, diff_lines=11),
    }
    for words, usage in cases.items():
        decision = decide(attempts, usage, limits, 0)
        assert decision.state is BreakerState.OPEN, words
        assert words in (decision.reason or ""), (words, decision.reason)
    unknown_cost = Usage(fix_attempts=1, cost_usd=None)
    assert decide(attempts, unknown_cost, limits, 0).state is BreakerState.CLOSED


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    random.seed(7)
    wait = backoff_wait(1.0)
    delays = [wait(SimpleNamespace(attempt_number=n)) for n in range(1, 10)]  # type: ignore[arg-type]
    for n, delay in enumerate(delays[:5], start=1):
        base = 2 ** (n - 1)
        assert base <= delay <= base + 1.0, (n, delay)
    assert max(delays) == 60.0  # the cap
    jittered = {round(wait(SimpleNamespace(attempt_number=2)), 6) for _ in range(20)}  # type: ignore[arg-type]
    assert len(jittered) > 1  # jitter actually varies


def test_a_failure_still_transient_after_its_reruns_opens() -> None:
    flaky = check(0, "A", transient_retries=3)
    flaky.error_class, flaky.category = ErrorClass.TRANSIENT, "network"
    decision = decide([flaky], Usage(), LIMITS, 0)
    assert decision.state is BreakerState.OPEN
    assert "stayed transient (network) after 3 re-runs" in (decision.reason or "")
