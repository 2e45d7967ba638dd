"""After a failed attempt: record its diagnosis, or the recovery plan of a failure code cannot fix.

The executor (`fixbot.run.engine`) calls these with the run's state and its agents; the decisions
themselves (`fixbot.core.diagnosis`) are pure.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fixbot.core.budget import Deadline
from fixbot.core.diagnosis import RecoveryPlan
from fixbot.core.failure import Failure
from fixbot.core.models import Attempt, FixContext, ReviewResult
from fixbot.core.roles import Diagnoser
from fixbot.core.settings import Settings
from fixbot.policy.recovery import recovery_plan
from fixbot.policy.state import RunState
from fixbot.run.eventlog import LOG_FILE, EventLog
from fixbot.security.redact import Redactor


def standing_diagnosis(state: RunState, attempt: Attempt) -> bool:
    """Let the earlier diagnosis of `attempt`'s failure (same signature) stand, marked
    `repeated` ("the attempt did not change the failure"); False when there is none."""
    earlier = next(
        (a.diagnosis for a in state.attempts if a.diagnosis and a.signature == attempt.signature),
        None,
    )
    if earlier is None:
        return False
    attempt.diagnosis = earlier.model_copy(update={"repeated": True})
    return True


def ask(
    state: RunState,
    attempt: Attempt,
    diagnoser: Diagnoser,
    ctx: FixContext,
    redact: Callable[[str], str],
) -> None:
    """One diagnostic call for `attempt` (its failure in `ctx`); the usage joins the run's
    totals. No diagnosis (malformed, no budget, a model error) is recorded and noted."""
    result = diagnoser.diagnose(ctx, attempt.summary)
    state.add_usage(result.tokens, result.cost_usd, result.cost_usd is not None)
    attempt.add_calls(result.calls, redact)
    if result.diagnosis is not None:
        attempt.diagnosis = result.diagnosis.redacted(redact)
        return
    problem = redact(result.problem or "no diagnosis was given")
    attempt.diagnosis_problem = problem
    state.notes.append(f"attempt {attempt.number}: {problem}")


def summary(attempt: Attempt) -> str:
    """One progress line for `attempt`'s diagnosis (or why there is none)."""
    d = attempt.diagnosis
    if d is None:
        return f"no diagnosis: {attempt.diagnosis_problem}"
    same = "; the attempt did not change the failure" if d.repeated else ""
    cause = d.root_cause
    return f"diagnosis: {cause.category.value} ({cause.confidence:.1f}) {cause.description}{same}"


def fix_event(attempt: Attempt) -> dict[str, Any]:
    """The fields of the `fix` (or `threads`) event for `attempt` once its fixer reported."""
    return {
        "phase": attempt.phase.value,
        "fixer": attempt.fixer,
        "files_changed": attempt.files_changed,
        "tokens": attempt.tokens,
        "error": attempt.fix_error,
        "sources": attempt.sources,
        "duration_ms": round(attempt.fix_duration_s * 1000),
    }


def diagnosis_event(attempt: Attempt) -> dict[str, Any]:
    """The fields of the `diagnosis` event for `attempt`."""
    d = attempt.diagnosis
    return {
        "category": d.root_cause.category.value if d else None,
        "confidence": d.root_cause.confidence if d else None,
        "repeated": d.repeated if d else False,
        "problem": attempt.diagnosis_problem,
    }


def event_log(state_dir: Path, state: RunState, redactor: Redactor, deadline: Deadline) -> EventLog:
    """The run's event log, `<state_dir>/log.jsonl`, its times counted from the run's start
    (`deadline`'s, a resumed run's earlier time included)."""
    path = state_dir / LOG_FILE
    return EventLog(path, state.run_id, clock=deadline, redact=redactor.redact)


def review_event(result: ReviewResult) -> dict[str, Any]:
    """The fields of the `review` event."""
    return {
        "findings": len(result.findings),
        "blocking": len(result.blocking),
        "error": result.error,
    }


def recover(
    state: RunState,
    failure: Failure | None,
    settings: Settings,
    in_action: bool,
    events: EventLog,
    reason: str,
) -> str:
    """For a failure code cannot fix: record the recovery plan (no model call), log it and
    return `reason` with its chosen action; else `reason` as it is."""
    last = state.attempts[-1]
    found = plan(state, last, failure, settings, in_action)
    if found is None:
        return reason
    others = [s.action for s in found.alternatives]
    events.emit("recovery", last.number, chosen=found.chosen.action, others=others)
    return f"{reason}; {found.chosen.action}"


def plan(
    state: RunState, attempt: Attempt, failure: Failure | None, settings: Settings, in_action: bool
) -> RecoveryPlan | None:
    """Record and return the recovery plan for `attempt`'s failure when code cannot fix it (a
    missing program, credentials, a timeout, ...): pure, no model call. `in_action` names the
    Action's inputs instead of the CLI flags."""
    if failure is None:
        return None
    measured = attempt.check_duration_s / (attempt.transient_retries + 1)
    found = recovery_plan(failure, settings.timeout, in_action=in_action, measured_s=measured)
    state.recovery = found
    return found
