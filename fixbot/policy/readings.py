"""What the rows of `fixbot.policy.rules` read of a run's state, and the ending steps they build.

Pure functions of a `RunState` (and the executor's `Observation`), no I/O: the last attempt and
whether it is verified red (`_failed`, one the breaker judges) or green (`_green`), whether the
open review threads are due, the breaker's `counts` and `usage`, the attempts that had the best
tree `restores`d after them, and the `Escalate` (`escalation`: whether the analyst is asked) and
`Succeed` (`success`: PASSED or FIXED) a row returns. Used by `fixbot.policy.rules` alone; moved
out of it to keep the table and its rows apart from what they read.
"""

from __future__ import annotations

from fixbot.core.failure import ErrorClass
from fixbot.core.models import Attempt, OutcomeKind, Phase
from fixbot.policy import breaker
from fixbot.policy.state import RunState
from fixbot.policy.steps import Escalate, Observation, Succeed


def usage(state: RunState, seen: Observation) -> breaker.Usage:
    """What the run has spent: its fix attempts, model usage, wall time and diff size."""
    return breaker.Usage(
        fix_attempts=len(state.fix_attempts),
        tokens=state.tokens,
        cost_usd=state.cost_usd if state.cost_known else None,
        elapsed_s=seen.elapsed_s,
        diff_lines=state.attempts[-1].diff_lines if state.attempts else 0,
    )


def _last(state: RunState) -> Attempt:
    return state.attempts[-1]


def _failed(state: RunState) -> bool:
    """The last attempt is verified, red, and one the breaker judges (the check or a FIX)."""
    last = _last(state)
    return last.done and not last.passed and last.phase in (Phase.CHECK, Phase.FIX)


def _green(state: RunState) -> bool:
    return _last(state).done and bool(_last(state).passed)


def _threads_due(state: RunState, seen: Observation) -> bool:
    done = any(a.phase is Phase.THREADS for a in state.attempts)
    return _green(state) and seen.threads > 0 and not done


def counts(state: RunState) -> list[int | None]:
    """Failing tests plus errors of every verified check the breaker judges (the initial check
    and the FIX attempts), in order; 0 for a green check, None where no counts were printed."""
    return [0 if a.passed else a.counts.problems for a in _judged(state)]


def _judged(state: RunState) -> list[Attempt]:
    """The verified initial check and FIX attempts; they come first, so index == number."""
    return [a for a in state.attempts if a.done and a.phase in (Phase.CHECK, Phase.FIX)]


def restores(state: RunState) -> list[Attempt]:
    """The attempts that diverged and had the best tree restored after them."""
    return [a for a in state.attempts if a.restored_to is not None]


def escalation(state: RunState, seen: Observation, reason: str) -> Escalate:
    """Escalate for `reason`; ask the analyst once, while the model budget lasts, when code could
    fix the failure (a failure code cannot fix gets the deterministic recovery plan instead),
    no diagnosis of the same failure already explains it, and the fixer did not just end with an
    error (the model refused or failed the request: the same model would not analyse either)."""
    spent = breaker.model_budget_spent(usage(state, seen), seen.limits)
    last = _last(state)
    explained = any(a.diagnosis and a.signature == last.signature for a in state.attempts)
    code = last.error_class not in (ErrorClass.PERMANENT, ErrorClass.TRANSIENT)
    wanted = seen.analyst and state.analysis is None and spent is None
    refused = state.attempts[-1].fix_error is not None
    return Escalate(reason, analyze=wanted and code and not explained and not refused)


def success(state: RunState, note: str | None = None) -> Succeed:
    """PASSED when no kept attempt changed a file, else FIXED after n fix attempts."""
    kept = [a for a in state.fix_attempts if a.files_changed and not a.undone]
    if not kept:
        return Succeed(OutcomeKind.PASSED, "the check passes; nothing was changed", note)
    n = len(state.fix_attempts)
    reason = f"the check passes after {n} fix attempt{'s' * (n != 1)}"
    return Succeed(OutcomeKind.FIXED, reason, note)
