"""After a verified push: reply in each review thread the fix addressed, with the commit and
the hunk that addressed it, then resolve it (the intersection rule of
`fixbot.github.events.threads.resolvable`; one batched GraphQL mutation per batch).
"""

from __future__ import annotations

from pathlib import Path

from fixbot.core.models import OutcomeKind, ReviewThread
from fixbot.github.api.context import Context, Finished
from fixbot.github.events import threads
from fixbot.github.events.data import Event
from fixbot.github.events.threads import LeftOut
from fixbot.github.publish import hunks, render
from fixbot.process import git


def address_threads(
    ctx: Context,
    event: Event,
    data: render.Report,
    result: Finished,
    left_out: list[LeftOut],
    base: str | None = None,
) -> render.Report:
    """Reply in and resolve the threads the intersection rule allows, once the fix is pushed
    to the pull request's own branch; record every thread's fate in `data.threads`.

    The files fixbot touched are those changed from `base` (the run's start sha by default;
    the branch's new tip when the fix was replayed onto it, so a human's files never count) to
    the pushed commit.
    """
    given = result.threads
    if not given:
        if left_out:
            return data.model_copy(update={"threads": threads.report([], [], None, left_out)})
        return data
    sha, branch = data.outcome.commit_sha, data.links.branch
    if data.outcome.outcome is not OutcomeKind.FIXED or not sha or branch != event.branch:
        note = "no fix was pushed to this pull request's branch, so no thread was resolved"
        return data.model_copy(update={"threads": threads.report(given, [], note, left_out)})
    start = base or result.state.start_sha
    touched = git.changed_files(ctx.repo, start, sha)
    targets = threads.resolvable(given, result.state.attempts, touched)
    replies = thread_replies(ctx.repo, start, sha, targets, data.links.commit_url)
    done, why = resolve_all(ctx, targets, replies)
    return data.model_copy(update={"threads": threads.report(given, done, why, left_out)})


def thread_replies(
    root: Path, start: str, sha: str, targets: list[ReviewThread], commit_url: str | None
) -> dict[str, str]:
    """Each target thread's reply (by thread id): the commit `sha` and, as evidence, the hunk
    of `start..sha` on the thread's file nearest its line."""
    found = hunks.changes(git.run(root, "diff", "--no-color", "--no-ext-diff", start, sha))
    replies = {}
    for thread in targets:
        change = hunks.nearest(found, thread.path, thread.line)
        evidence = hunks.fence(hunks.shown(change), "diff") if change else None
        replies[thread.id] = threads.reply_text(sha, commit_url, evidence)
    return replies


def resolve_all(
    ctx: Context, targets: list[ReviewThread], reply: str | dict[str, str]
) -> tuple[list[ReviewThread], str | None]:
    """Reply in each of `targets` (`reply`, or a reply per thread id), then resolve it, in
    batches; return the resolved ones and, when GitHub refused part of it, why."""
    if not targets:
        return [], None
    result, why = ctx.graphql().resolve_and_reply([t.id for t in targets], reply)
    resolved = set(result.resolved)
    unanswered = [t for t in targets if t.id in resolved and t.id not in result.replied]
    if unanswered and why is None:
        why = f"{len(unanswered)} resolved thread(s) got no reply"
    return [t for t in targets if t.id in resolved], why
