"""Talking on the pull request: command replies, reactions, and the run's place in the history.

Thin I/O around the pure modules `commands` (parser, answers and texts) and `memory` (the
history): the `Desk` a command asks about the pull request,
reactions on the command comment (eyes when accepted, rocket when the run ends fixed or
passing, confused when it escalates or is refused), replies, the "already running" and daily
limit refusals, and the `running` record a retry writes before it starts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fixbot.core.errors import GitHubError
from fixbot.core.models import OutcomeKind
from fixbot.github.api.context import Context
from fixbot.github.events.data import Event
from fixbot.github.publish import memory, render
from fixbot.github.publish.memory import Conversation

ACTIVE = ("queued", "in_progress", "waiting", "requested", "pending")
FINE = (OutcomeKind.FIXED, OutcomeKind.PASSED)


def react(ctx: Context, event: Event, content: str) -> None:
    """React with `content` on the command comment; a refusal is a note, not a failure."""
    if event.comment is None or not event.comment.id:
        return
    try:
        ctx.rest().react(event.comment.id, content)
    except GitHubError as exc:
        ctx.notes.append(f"no {content} reaction on the comment: {exc}")


def reply(ctx: Context, event: Event, text: str) -> None:
    """Answer on the pull request (or issue) the event is about."""
    number = event.comment_issue or (event.pull_request.number if event.pull_request else None)
    if number is not None:
        ctx.rest().comment(number, text)


def react_to_outcome(ctx: Context, event: Event, outcome: OutcomeKind) -> None:
    """Rocket when the retry ended fixed or passing, confused otherwise."""
    react(ctx, event, "rocket" if outcome in FINE else "confused")


@dataclass(frozen=True)
class Desk:
    """What a comment command may ask of pull request `number` (`commands.base.Desk`)."""

    ctx: Context
    number: int

    def last_report(self) -> str | None:
        """The visible text of the last report in fixbot's status comment, None when none."""
        found = self.ctx.rest().status_comment(self.number, self.ctx.login())
        if found is None:
            return None
        return memory.strip(found[1]).removeprefix(render.STATUS_MARKER).strip()


def open_history(ctx: Context, number: int, max_runs: int) -> tuple[Conversation, str | None]:
    """Read the history of PR `number`; return it with a refusal reason when a run of this
    pull request is still in progress or `max_runs` runs started in the last 24 hours."""
    talk = Conversation()
    found = ctx.rest().status_comment(number, ctx.login())
    if found is not None:
        try:
            talk.history = memory.decode(found[1])
        except ValueError as exc:
            ctx.notes.append(f"{exc}; this run starts a new history")
    busy = memory.running(talk.history, ctx.run_id)
    if busy is not None and ctx.rest().run_status(busy.run) in ACTIVE:
        return talk, (
            f"fixbot is already running on this pull request (run {busy.run}); "
            "wait for it to finish, then comment again"
        )
    if memory.runs_since(talk.history, time.time()) >= max_runs:
        return talk, (
            f"fixbot already ran {max_runs} times on this pull request in the last 24 hours "
            "(`max-runs-per-day`); try again later"
        )
    return talk, None


def begin(ctx: Context, talk: Conversation, kind: str, number: int | None, write: bool) -> None:
    """Add this run to the history as `running`; with `write`, record it in the status
    comment now, so a second command sees it (the body says fixbot is running)."""
    talk.record = memory.RunRecord(run=ctx.run_id, at=int(time.time()), kind=kind)
    if not write or number is None:
        return
    block = memory.encode(memory.add(talk.history, talk.record))
    body = (
        f"{render.STATUS_MARKER}\n### ⏳ fixbot is running\n\n"
        f"Started by a `/fixbot retry` comment; follow it in {ctx.run_url}\n\n{block}\n"
    )
    ctx.rest().upsert_status_comment(number, body, create=True, login=ctx.login())
