"""From event to intent: one pure decision of what a workflow run is for.

Each event becomes one `Intent`:
- FIX: fix the check (pull_request, push, workflow_run, workflow_dispatch, schedule); on a
  same-repository pull request the in-scope review threads follow a green check;
- THREADS: a reviewer asked (pull_request_review submitted as `changes_requested` or
  `commented`, pull_request_review_comment created): check first; green, address the threads
  alone; red, fix the check, then the threads;
- COMMAND: a `/fixbot` comment on a pull request (issue_comment created);
- REFUSE: a gate said no, with the reason. `quiet` refusals (a comment that is no command, an
  edited comment, a bot) write nothing anywhere but the job summary; `reply` refusals (a
  command from someone without permission) answer on the pull request.

`decide` looks at the event alone; when the intent needs the actor's permission it names the
login in `ask_permission`, and `authorize` finishes the decision once it is known.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from pydantic import BaseModel

from fixbot.github.events.commands.base import Command
from fixbot.github.events.commands.comment import parse as parse_command
from fixbot.github.events.event import Event, EventName
from fixbot.github.events.gates import gate_event
from fixbot.github.events.permission import Level, allows
from fixbot.github.events.threads import REPLY_MARKER, bot_name

REVIEW_STATES = ("changes_requested", "commented")


class IntentKind(StrEnum):
    """What the run does."""

    FIX = "fix"
    THREADS = "threads"
    COMMAND = "command"
    REFUSE = "refuse"


class Intent(BaseModel):
    """The decision: `kind`, the refusal `reason`, fork handling, the parsed `command`, and
    the login whose permission must be checked before running (`ask_permission`)."""

    kind: IntentKind
    reason: str = ""
    patch_only: bool = False
    quiet: bool = False
    reply: bool = False
    command: Command | None = None
    ask_permission: str | None = None


def refuse(reason: str, *, quiet: bool = False, reply: bool = False) -> Intent:
    """A refusal; `quiet` ones leave no trace on GitHub, `reply` ones answer the commenter."""
    return Intent(kind=IntentKind.REFUSE, reason=reason, quiet=quiet, reply=reply)


def decide(event: Event, allow_forks: bool, bots: Collection[str] = ()) -> Intent:
    """The intent of `event` from the event alone (`bots`: the `thread-bots` logins)."""
    if event.name == EventName.ISSUE_COMMENT:
        return _comment(event)
    if event.name in (EventName.PULL_REQUEST_REVIEW, EventName.PULL_REQUEST_REVIEW_COMMENT):
        problem = _review_problem(event, bots)
        if problem:
            return refuse(problem, quiet=True)
    verdict = gate_event(event, allow_forks)
    if not verdict.allowed:
        return refuse(verdict.reason)
    if event.comment is not None:  # a review event: the reviewer's permission decides
        return Intent(
            kind=IntentKind.THREADS,
            patch_only=verdict.patch_only,
            ask_permission=event.comment.author.login,
        )
    return Intent(kind=IntentKind.FIX, patch_only=verdict.patch_only)


def _review_problem(event: Event, bots: Collection[str]) -> str | None:
    comment = event.comment
    assert comment is not None
    if event.name == EventName.PULL_REQUEST_REVIEW:
        if event.action != "submitted" or comment.state not in REVIEW_STATES:
            return (
                f"a review {event.action} as `{comment.state}` asks nothing of fixbot "
                "(it answers reviews submitted as changes requested or commented)"
            )
    elif event.action != "created":
        return f"a review comment {event.action}: fixbot only answers new review comments"
    if comment.body.startswith(REPLY_MARKER):
        return "the review comment is fixbot's own reply"
    if comment.author.bot and bot_name(comment.author.login) not in {bot_name(b) for b in bots}:
        return f"the reviewer @{comment.author.login} is a bot not listed in `thread-bots`"
    return None


def _comment(event: Event) -> Intent:
    comment = event.comment
    if not event.on_pull_request or comment is None:
        return refuse("the comment is on an issue, not a pull request: ignored", quiet=True)
    if event.action != "created":
        return refuse(f"the comment was {event.action}: only new comments count", quiet=True)
    if comment.author.bot:
        return refuse(f"the comment is by the bot @{comment.author.login}: ignored", quiet=True)
    command = parse_command(comment.body)
    if command is None:
        return refuse("the comment holds no `/fixbot` command", quiet=True)
    return Intent(kind=IntentKind.COMMAND, command=command, ask_permission=comment.author.login)


def authorize(intent: Intent, login: str, level: Level, minimum: Level) -> Intent:
    """`intent` once `login`'s permission `level` is known: refused below `minimum`.

    Commands get a polite reply; a reviewer without permission is refused without one.
    """
    if allows(level, minimum):
        return intent.model_copy(update={"ask_permission": None})
    what = "command" if intent.kind is IntentKind.COMMAND else "review"
    return refuse(
        f"@{login} has {level.value} access; a {what} needs {minimum.value} or more",
        reply=intent.kind is IntentKind.COMMAND,
    ).model_copy(update={"command": intent.command})
