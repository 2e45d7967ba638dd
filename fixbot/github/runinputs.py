"""What a fix run in the Action is given besides the branch: its settings (`run_settings`: the
branch's configuration as fixbot's clone has it, the workflow's inputs and `FIXBOT_*` variables,
what zero configuration inferred) and the pull request's review threads in scope
(`review_threads`). Read once fixbot's clone is on the branch to fix, before the engine runs.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.core.config import load_settings
from fixbot.core.errors import GitHubError
from fixbot.core.settings import Settings
from fixbot.core.values import ThreadAuthors
from fixbot.github import inferred
from fixbot.github.api.context import Context
from fixbot.github.events import threads
from fixbot.github.events.data import Event
from fixbot.github.events.kinds.base import EventKind
from fixbot.github.failedjobs import FailedStep
from fixbot.ui import workflow


def run_settings(
    ctx: Context, event: Event, failed: FailedStep | None, fixbot: Path, *, retry: bool
) -> tuple[Settings, str]:
    """The run's settings: the branch's configuration as fixbot's clone `fixbot` has it (the
    workspace is the commands'), the workflow's inputs and `FIXBOT_*` variables, and what
    zero configuration inferred (`inferred.settle`, whose origin is returned); a retry
    (`retry`) starts with a fresh breaker and budget. The warnings are shown and kept in the
    notes. Raises `ConfigError`."""
    warnings: list[str] = []
    where = (fixbot / ctx.inputs.working_directory).resolve()
    settings = load_settings(where, {}, ctx.settings_variables, action=True, warnings=warnings)
    if retry:
        settings = settings.model_copy(update={"resume": False})
    settings, inferred_notes, origin = inferred.settle(
        settings, event, failed, fixbot, where, ctx.out
    )
    ctx.notes.extend(inferred_notes)
    for warning in warnings:
        workflow.warning(warning, ctx.out)
    ctx.notes.extend(warnings)
    ctx.fail_on_escalation = settings.fail_on_escalation
    return settings, origin


def review_threads(
    ctx: Context, event: Event, kind: EventKind, settings: Settings
) -> threads.Scope:
    """The review threads of a same-repository pull request, split into those in scope (up to
    `max-threads`) and those left out with the reason; none for an event whose `kind` has no
    threads.

    A refusal (missing `pull-requests: read`, a permission lookup that fails) is a note: the
    check is fixed without threads.
    """
    pr = event.pull_request
    if not kind.threads or pr is None or event.fork or settings.max_threads <= 0:
        return threads.Scope()
    owner, name = event.repository.split("/", 1)
    level_of = None if settings.thread_authors is ThreadAuthors.ANY else ctx.permissions().level
    try:
        nodes = ctx.graphql().fetch_nodes(owner, name, pr.number)
        found = threads.scope(nodes, settings.max_threads, level_of, settings.thread_bots)
    except GitHubError as exc:
        ctx.notes.append(f"review threads were not read: {exc}")
        return threads.Scope()
    ctx.out.write(
        f"fixbot: {len(found.threads)} open review thread(s) given to the model, "
        f"{len(found.left_out)} left out\n"
    )
    return found
