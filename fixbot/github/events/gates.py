"""Gates: pure decisions on whether `fixbot action` may run for an event, each with its message.

A refused run has no side effects: no push, no comment, no issue; only the job summary and the
step outputs say why.
"""

from __future__ import annotations

from pydantic import BaseModel

from fixbot.github.events.data import Event

BOT_LOGIN = "github-actions[bot]"
BOT_EMAIL = "41898+github-actions[bot]@users.noreply.github.com"


class Verdict(BaseModel):
    """A gate's answer; `patch_only` means fix but only offer the result as a patch (forks)."""

    allowed: bool
    reason: str = ""
    patch_only: bool = False


ALLOW = Verdict(allowed=True)


def refuse(reason: str) -> Verdict:
    """A refusal with the message shown to the user."""
    return Verdict(allowed=False, reason=reason)


def gate_event(event: Event, allow_forks: bool, *, fork_safe: bool) -> Verdict:
    """Decide from the event alone (before anything is checked out or changed): an open pull
    request, a branch to fix, and its repository's rules for forks. What one kind of event
    must also hold (a failed run, a review's state) its kind decides (`kinds/`).

    `fork_safe`: GitHub gives a fork's run of this event no secret (the event kind's
    `fork_safe`); a fork's code never runs in any other event's job.
    """
    if event.pull_request is not None and event.pull_request.state != "open":
        pr = event.pull_request
        return refuse(f"pull request #{pr.number} is {pr.state}: nothing to fix")
    if not event.branch:
        return refuse("the event names no branch to fix (a tag push?); run fixbot on branches")
    return _gate_fork(event, allow_forks, fork_safe)


def _gate_fork(event: Event, allow_forks: bool, fork_safe: bool) -> Verdict:
    if event.head_deleted:
        number = event.pull_request.number if event.pull_request else "?"
        return refuse(
            f"the head repository of pull request #{number} was deleted (a removed fork): "
            "fixbot can neither fetch its branch safely nor push to it; nothing was done"
        )
    if not event.fork:
        return ALLOW
    if not allow_forks:
        return refuse(
            f"the code comes from the fork {event.head_repo}; fixbot does not run on forks unless "
            "`allow-forks: true` (then it only offers a patch)"
        )
    if not fork_safe:
        return refuse(
            f"the code comes from the fork {event.head_repo}, and a `{event.name}` run holds "
            "this repository's token and secrets: fixbot never runs a fork's code in such a job, "
            "even with `allow-forks: true`. Let fixbot run on the fork's `pull_request` event "
            "(GitHub gives it no secret; fixbot offers a patch), or push the branch to this "
            "repository and ask again"
        )
    return Verdict(allowed=True, patch_only=True)


def gate_head(author_email: str, subject: str) -> Verdict:
    """Refuse when fixbot itself made the head commit: its own push must not start another run.

    fixbot's commits are authored by `BOT_EMAIL` with a subject starting `fixbot:`; other
    actions also commit as github-actions[bot], so both must match.
    """
    if author_email == BOT_EMAIL and subject.startswith("fixbot:"):
        return refuse(
            "the head commit was made by fixbot itself; it does not fix its own commits "
            "(no self-triggered loops). Push a commit of your own to run it again."
        )
    return ALLOW


def gate_default_branch_push(branch: str, default_branch: str | None) -> bool:
    """True when publishing would push straight to the default branch (a PR is opened instead)."""
    return default_branch is not None and branch == default_branch
