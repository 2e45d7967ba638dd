"""The Action with no `check-command`: on a failed `workflow_run`, the failed job's own steps
(the workflow file at the run's head, the job and step the jobs API says failed) are the set-up
(the steps before) and the check (the failed step); otherwise, and when that step cannot be
found, the same inference as `fixbot run` (`fixbot.run.zeroconf`). The plan is printed in the
log before anything runs, and the report's notes say which step is reproduced.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from fixbot.core.errors import ConfigError, GitError
from fixbot.core.settings import Settings
from fixbot.github.events.data import Event
from fixbot.github.failedjobs import FailedStep
from fixbot.infer import workflow as workflows
from fixbot.infer.files import WORKFLOWS
from fixbot.infer.inference import infer, missing_tools
from fixbot.infer.plan import Inferred, Plan
from fixbot.process import git
from fixbot.run import zeroconf
from fixbot.ui import workflow


def failed_plan(clone: Path, event: Event, failed: FailedStep) -> tuple[Plan | None, str]:
    """The plan reproducing `failed` from the workflow file at the run's head sha in fixbot's
    clone, and a note when it cannot (the file or step not found)."""
    path = f"{WORKFLOWS}/{event.run_workflow}"
    try:
        text = git.run(clone, "show", f"{event.sha}:{path}")
    except GitError as exc:
        return None, f"the failed run's workflow {path} was not read at {event.sha} ({exc})"
    plan = workflows.at_failure({path: text}, path, failed.job, failed.step, failed.number)
    if plan is None or plan.check is None:
        why = "; ".join(plan.unresolved) if plan else "not found"
        return None, f"step `{failed.step}` of job `{failed.job}` in {path}: {why}"
    return plan, ""


def settle(
    settings: Settings,
    event: Event,
    failed: FailedStep | None,
    clone: Path,
    where: Path,
    out: TextIO,
) -> tuple[Settings, list[str], str]:
    """`settings` with an inferred check where none was given, the notes for the report, and
    where the check came from (for the commit; empty when it was given). Raises `ConfigError`
    when no check can be inferred or a tool it needs is missing here."""
    if settings.check:
        return settings, [], ""
    notes: list[str] = []
    plan = _failed_step_plan(event, failed, clone, notes)
    if plan is not None and plan.check is not None:
        settings = _reproducing(settings, plan, plan.check, where)
        notes.append(
            f"the check reproduces the failed step: `{plan.check.command}` ({plan.check.origin})"
        )
    else:
        settings, plan = zeroconf.resolve(settings, where)
        assert plan is not None and plan.check is not None  # resolve raises otherwise
        notes.append(f"the check was inferred: `{plan.check.command}` ({plan.check.origin})")
    for line in plan.lines():
        out.write(workflow.plain_line(f"fixbot: {line}") + "\n")
    return settings, notes, str(plan.check.origin)


def _failed_step_plan(
    event: Event, failed: FailedStep | None, clone: Path, notes: list[str]
) -> Plan | None:
    """The plan that reproduces the failed step of the event's workflow run, or None (why
    noted in `notes` when the step was known)."""
    if failed is None or not event.run_workflow or not event.sha:
        return None
    plan, note = failed_plan(clone, event, failed)
    if note:
        notes.append(f"{note}: the check was inferred as for a pull request")
    return plan


def _reproducing(settings: Settings, plan: Plan, check: Inferred, where: Path) -> Settings:
    """`settings` with `plan`'s check and set-up, and fix commands inferred in `where` unless
    given (and `infer_fixes`). Raises `ConfigError` when a tool the plan needs is missing."""
    if problems := missing_tools(plan):
        raise ConfigError(problems)
    fixes = settings.fix_commands or (
        [f.command for f in infer(where).fixes] if settings.infer_fixes else []
    )
    update = {"check": check.command, "setup": plan.setup_command(), "fix_commands": fixes}
    return settings.model_copy(update=update)
