"""Pull request review threads: which ones the model sees, and which ones fixbot may resolve.

All pure. The intersection rule (README.md, "Review threads"): a thread is resolved only when it was
in scope (given to the model), a verified attempt of the thread phase claimed it, and the pushed
diff touched its file. fixbot never resolves a thread it did not address.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from pydantic import BaseModel, Field

from fixbot.core.models import Attempt, Phase, ReviewThread
from fixbot.github.events.permission import Level, allows

REPLY_MARKER = "<!-- fixbot:thread-reply -->"


class ThreadNode(BaseModel):
    """A review thread as GitHub lists it, before the scope filter.

    Source: the `PullRequestReviewThread` object,
    https://docs.github.com/en/graphql/reference/objects#pullrequestreviewthread
    """

    thread: ReviewThread
    resolved: bool
    outdated: bool
    bot: bool = False  # the opening comment's author is a bot (GraphQL `Bot`)


class LeftOut(BaseModel):
    """An open thread the model was not given, and why (shown in the summary, never its body)."""

    thread: ReviewThread
    reason: str


class Scope(BaseModel):
    """The threads given to the model (`threads`) and the open ones left out (`left_out`)."""

    threads: list[ReviewThread] = Field(default_factory=list)
    left_out: list[LeftOut] = Field(default_factory=list)


class ThreadsReport(BaseModel):
    """The threads of one run for the status comment and the summary.

    `resolved`: replied to and resolved; `open`: given to the model but left open; `left_out`:
    open threads the model was never given, with the reason; `note`: why nothing was resolved,
    when a reason applies (for example the fix went to another branch).
    """

    resolved: list[ReviewThread] = Field(default_factory=list)
    open: list[ReviewThread] = Field(default_factory=list)
    left_out: list[LeftOut] = Field(default_factory=list)
    note: str | None = None


ANY_AUTHOR = "any"
TRUSTED = Level.WRITE  # write, maintain or admin


def bot_name(login: str) -> str:
    """A bot's login without the `[bot]` suffix REST adds and GraphQL leaves out."""
    return login.lower().removesuffix("[bot]")


def _author_reason(
    node: ThreadNode, level_of: Callable[[str], Level] | None, bots: Collection[str]
) -> str | None:
    """Why the thread's author keeps it out of scope, or None when they may reach the model."""
    author = node.thread.author
    if node.bot or author.endswith("[bot]"):
        if bot_name(author) in {bot_name(b) for b in bots}:
            return None
        return f"author @{author} is a bot not listed in `thread-bots`"
    if level_of is None:
        return None
    level = level_of(author)
    if allows(level, TRUSTED):
        return None
    return f"author has {level.value} access (write, maintain or admin needed)"


def scope(
    nodes: Iterable[ThreadNode],
    limit: int,
    level_of: Callable[[str], Level] | None,
    bots: Collection[str] = (),
) -> Scope:
    """Split a pull request's threads: in scope are the first `limit` that are unresolved, not
    outdated, and opened by someone with write, maintain or admin permission (`level_of`, asked
    only for those; None means `thread-authors: any`), bots only when listed in `bots`.

    Resolved threads are dropped; every other thread left out is listed with its reason.
    """
    found = Scope()
    for node in nodes:
        if node.resolved:
            continue
        reason = "outdated: the code it was on has changed" if node.outdated else None
        reason = reason or _author_reason(node, level_of, bots)
        if reason is None and len(found.threads) >= max(limit, 0):
            reason = f"over the limit of {limit} threads per run (`max-threads`)"
        if reason is None:
            found.threads.append(node.thread)
        else:
            found.left_out.append(LeftOut(thread=node.thread, reason=reason))
    return found


def in_scope(nodes: Iterable[ThreadNode], limit: int) -> list[ReviewThread]:
    """The first `limit` threads that are neither resolved nor outdated, in GitHub's order."""
    kept = [n.thread for n in nodes if not n.resolved and not n.outdated]
    return kept[: max(limit, 0)]


def claimed_ids(attempts: Iterable[Attempt]) -> set[str]:
    """Thread ids claimed by finished, not undone, not failed attempts of the thread phase."""
    return {
        thread_id
        for a in attempts
        if a.phase is Phase.THREADS and a.done and not a.undone and a.passed is not False
        for thread_id in a.resolved_thread_ids
    }


def resolvable(
    threads: Sequence[ReviewThread],
    attempts: Iterable[Attempt],
    touched_files: Collection[str],
) -> list[ReviewThread]:
    """The intersection rule: in scope AND claimed AND its file touched by the pushed diff.

    `threads` are the in-scope threads given to the model; `touched_files` the repository-
    relative POSIX paths the pushed diff changed (both sides of a rename).
    """
    claimed = claimed_ids(attempts)
    touched = set(touched_files)
    return [t for t in threads if t.id in claimed and t.path in touched]


def report(
    threads: Sequence[ReviewThread],
    resolved: Sequence[ReviewThread],
    note: str | None = None,
    left_out: Sequence[LeftOut] = (),
) -> ThreadsReport:
    """Split the in-scope `threads` into resolved and left open; carry the `left_out` ones."""
    done = {t.id for t in resolved}
    return ThreadsReport(
        resolved=[t for t in threads if t.id in done],
        open=[t for t in threads if t.id not in done],
        left_out=list(left_out),
        note=note,
    )


def reply_text(sha: str, commit_url: str | None, hunk: str | None = None) -> str:
    """The reply fixbot posts in a thread before it resolves it: the commit `sha` and, as
    evidence, `hunk` (the fenced diff hunk of the thread's file that addressed it)."""
    where = f"[`{sha[:12]}`]({commit_url})" if commit_url else f"`{sha}`"
    evidence = f"\n\nThe change:\n\n{hunk}" if hunk else ""
    return (
        f"{REPLY_MARKER}\nfixbot addressed this in {where}; the check passes with it.{evidence}"
        "\n\nThe thread is resolved: unresolve it if the change is not what you asked for."
    )
