"""The Action's end: its report (`bare` for an outcome reached without a run) and what the step
leaves of it (`finish`): the log line, an error annotation, the job summary, the step outputs
(action.yml `outputs:`), an escalation's annotations read from the last check log, and the exit
code.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.core.models import Outcome, OutcomeKind
from fixbot.github.api import checkout
from fixbot.github.api.context import Context
from fixbot.github.publish import render
from fixbot.process.boundedlog import read_tail
from fixbot.run.outcome import state_dir_of
from fixbot.ui import workflow


def bare(ctx: Context, kind: OutcomeKind, reason: str) -> render.Report:
    """The report of an outcome reached without a run (a refusal, an error): `kind` and
    `reason`, with the run's notes and its page."""
    return render.Report(
        outcome=Outcome(outcome=kind, reason=reason),
        notes=ctx.notes,
        links=render.Links(run_url=ctx.run_url),
    )


def finish(ctx: Context, data: render.Report) -> int:
    """Leave the report `data` in the step (log line, annotations, job summary, step outputs)
    and return the exit code: 0 for passed, fixed and refused, and for escalated with
    `fail-on-escalation: false`; 1 for escalated; 2 for errors."""
    out = data.outcome
    ctx.out.write(workflow.plain_line(f"fixbot: {out.outcome.value}: {out.reason}") + "\n")
    if out.outcome is OutcomeKind.ERROR:
        workflow.error(out.reason, ctx.out, title="fixbot")
    if out.outcome is OutcomeKind.ESCALATED:
        _annotate(ctx, out)
    if summary := ctx.github.step_summary:
        workflow.write_summary(
            Path(summary), render.summary(data), f"See the run log: {ctx.run_url}"
        )
    if output := ctx.github.output:
        workflow.write_outputs(Path(output), outputs(out))
    if out.outcome is OutcomeKind.ESCALATED and not ctx.fail_on_escalation:
        return 0
    return out.exit_code


def outputs(outcome: Outcome) -> dict[str, str]:
    """The step outputs (action.yml `outputs:`), empty strings where unknown."""
    cost = "" if outcome.cost_usd is None else f"{outcome.cost_usd:.6f}"
    return {
        "outcome": outcome.outcome.value,
        "reason": outcome.reason,
        "attempts": str(outcome.attempts),
        "commit-sha": outcome.commit_sha or "",
        "pr-url": outcome.pr_url or "",
        "report-path": outcome.report_path or "",
        "cost-usd": cost,
    }


def _annotate(ctx: Context, outcome: Outcome) -> None:
    if not outcome.report_path:
        return
    state_log = _last_log(state_dir_of(Path(outcome.report_path)))
    if state_log is None:
        return
    text = read_tail(state_log, 200_000)  # bounded read, whatever the log's size
    for note in workflow.find_annotations(text, checkout.tracked_files(ctx.repo)):
        workflow.annotate(note, ctx.out)


def _last_log(state_dir: Path) -> Path | None:
    logs = sorted((state_dir / "attempts").glob("*/check.log"))
    return logs[-1] if logs else None
