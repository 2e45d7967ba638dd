"""`pull_request_review` and `pull_request_review_comment`: a reviewer asked; address the
pull request's review threads (the check first: green, the threads alone; red, fix the check,
then the threads), once the reviewer's permission is known.

Answered: reviews submitted as `changes_requested` or `commented`, new review comments, by
people or by bots listed in `thread-bots`; never fixbot's own replies.
"""

from __future__ import annotations

from collections.abc import Collection

from fixbot.github.events.data import Comment, Event, actor_of, pull_request_of
from fixbot.github.events.decision import Intent, IntentKind, Options, refuse
from fixbot.github.events.kinds.base import EventKind, Payload
from fixbot.github.events.threads import REPLY_MARKER, bot_name

REVIEW_STATES = ("changes_requested", "commented")
REVIEW_NAME = "pull_request_review"


def parse_review(event: Event, payload: Payload) -> Event:
    """The pull request, and the review as the event's comment (with its state)."""
    review = payload["review"]
    comment = Comment(
        body=str(review.get("body") or ""),
        author=actor_of(review.get("user")),
        state=str(review.get("state") or "").lower(),
    )
    pr = pull_request_of(payload["pull_request"], event.repository)
    return event.with_pull_request(pr).model_copy(update={"comment": comment})


def parse_review_comment(event: Event, payload: Payload) -> Event:
    """The pull request, and the review comment as the event's comment."""
    raw = payload["comment"]
    comment = Comment(body=str(raw.get("body") or ""), author=actor_of(raw.get("user")))
    pr = pull_request_of(payload["pull_request"], event.repository)
    return event.with_pull_request(pr).model_copy(update={"comment": comment})


def decide(kind: EventKind, event: Event, options: Options) -> Intent:
    """Address the threads, after the reviewer's permission (`ask_permission`)."""
    problem = _problem(event, options.bots)
    if problem:
        return refuse(problem, quiet=True)
    verdict = kind.gate(event, options)
    if not verdict.allowed:
        return refuse(verdict.reason)
    assert event.comment is not None  # `_problem` found it
    return Intent(
        kind=IntentKind.THREADS,
        patch_only=verdict.patch_only,
        ask_permission=event.comment.author.login,
    )


def _problem(event: Event, bots: Collection[str]) -> str | None:
    comment = event.comment
    if comment is None:
        return "the review event carries no review"
    if event.name == REVIEW_NAME:
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


REVIEW = EventKind(
    name=REVIEW_NAME,
    parse=parse_review,
    decide=decide,
    threads=True,
    history=True,
    asked=True,
    fork_safe=True,
)
REVIEW_COMMENT = EventKind(
    name="pull_request_review_comment",
    parse=parse_review_comment,
    decide=decide,
    threads=True,
    history=True,
    asked=True,
    fork_safe=True,
)
KIND = (REVIEW, REVIEW_COMMENT)
