"""The ending of a run: escalation (`Escalate`: the breaker opens, the best attempt is kept),
the outcome and its report (`Succeed`, or a `SetupError`), the report of a run stopped by an
error. `fixbot.run.executor.Run` calls them; they call `fixbot.run.outcome`,
`fixbot.run.reflect` and the analyst, with the context the run builds (`RunParts.context`)."""

from __future__ import annotations

from fixbot.core.models import BreakerState, OutcomeKind
from fixbot.run import outcome, reflect
from fixbot.run.outcome import best_snapshot
from fixbot.run.phases.base import RunParts


def escalate(run: RunParts, reason: str, analyze: bool) -> None:
    """Open the breaker, keep the best attempt (in the working directory too), make the
    recovery plan or ask for an analysis, record the outcome."""
    run.state.breaker = BreakerState.OPEN
    run.state.breaker_reason = reason
    limit = run.settings.max_diff_lines
    run.state.best_snapshot = best_snapshot(run.state.attempts, limit)
    outcome.keep_best(run.repo, run.state, limit)
    last = run.state.attempts[-1]
    failure = None if last.passed else run.checker.failure_of(last)
    reason = reflect.recover(
        run.state, failure, run.settings, run.request.in_action, run.events, reason
    )
    analyst, last = run.agents.analyst, run.state.attempts[-1]
    if analyze and analyst is not None:
        run.progress.phase(last.number, run.settings.max_attempts, "escalation analysis")
        result = analyst.analyze(run.context(last, reason=reason))
        run.state.add_usage(result.tokens, result.cost_usd, result.cost_known)
        last.add_calls(result.calls, run.redactor.redact)
        run.state.analysis = run.redactor.redact(result.summary) if not result.error else None
    finish(run, OutcomeKind.ESCALATED, reason)


def finish(run: RunParts, kind: OutcomeKind, reason: str) -> None:
    """Record the outcome and write the report (the loop saves the state)."""
    run.events.emit("outcome", None, outcome=kind.value, reason=reason, kept=run.state.kept)
    run.state.elapsed_s = run.deadline.elapsed()  # the report shows the wall time up to now
    outcome.finish(
        run.state,
        kind,
        reason,
        settings=run.settings,
        state_dir=run.state_dir,
        redactor=run.redactor,
        repo=run.repo,
    )


def report_error(run: RunParts, reason: str) -> None:
    """Write the report of a run stopped mid-way by an error (a rejected key, a refused
    connection: exit 2), so `report.md` describes this run; the state itself records no
    outcome, so the same command continues once the problem is fixed."""
    stopped = run.state.model_copy(deep=True)
    stopped.notes = [
        *stopped.notes,
        "the state is saved: fix the problem above and run the same command to continue",
    ]
    outcome.finish(
        stopped,
        OutcomeKind.ERROR,
        reason,
        settings=run.settings,
        state_dir=run.state_dir,
        redactor=run.redactor,
    )
