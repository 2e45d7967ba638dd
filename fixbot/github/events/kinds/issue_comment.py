"""`issue_comment`: a `/fixbot` command on a pull request (`fixbot.github.events.commands`),
answered once the commenter's permission is known. Comments on issues, edited or deleted
comments, comments by bots and comments without a command are ignored quietly.
"""

from __future__ import annotations

from fixbot.github.events.commands.comment import parse as parse_command
from fixbot.github.events.data import Comment, Event, actor_of
from fixbot.github.events.decision import Intent, IntentKind, Options, refuse
from fixbot.github.events.kinds.base import EventKind, Payload


def parse(event: Event, payload: Payload) -> Event:
    """The comment and the issue (or pull request) number; no branch until the pull request
    is fetched (`Event.with_pull_request`)."""
    issue, raw = payload["issue"], payload["comment"]
    comment = Comment(
        id=int(raw["id"]), body=str(raw.get("body") or ""), author=actor_of(raw.get("user"))
    )
    return event.model_copy(
        update={
            "comment_issue": int(issue["number"]),
            "on_pull_request": bool(issue.get("pull_request")),
            "comment": comment,
            "branch": None,
            "sha": None,
        }
    )


def decide(_kind: EventKind, event: Event, _options: Options) -> Intent:
    """The command, after the commenter's permission (`ask_permission`)."""
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


KIND = EventKind(
    name="issue_comment", parse=parse, decide=decide, threads=True, history=True, asked=True
)
