"""`on-success: suggest`: the verified fix as one pull-request review with suggestion blocks.

Pure. Each hunk of the fix (`fixbot.github.publish.hunks.Change`) becomes one review comment
whose body is a ```` ```suggestion ```` block holding the lines that replace the commented
ones: `line` is the last replaced line of the pull request's head, `start_line` the first when
there are several, both on the `RIGHT` side; an empty block deletes them. A maintainer applies
them with "Commit suggestions"
(https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/reviewing-changes-in-pull-requests/incorporating-feedback-in-your-pull-request).

A review comment may only sit on lines of the pull request's diff, `start_line` and `line` in
the same hunk (https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request,
`comments[].line`: "the line of the blob in the pull request diff"). A hunk of the fix outside
those lines, and a whole-file change (a file added, removed, renamed or binary), goes into the
review body as a patch for `git apply` instead.
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from fixbot.github.publish.hunks import Change, fence

BODY_LIMIT = 65_536  # characters of a review or comment body
Ranges = dict[str, list[tuple[int, int]]]  # path -> (first, last) RIGHT-side lines of each hunk


class ReviewComment(BaseModel):
    """One comment of the review, as `POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews`
    takes it in `comments[]` (1-based line numbers of the head's file)."""

    path: str
    body: str
    line: int
    side: str = "RIGHT"
    start_line: int | None = None
    start_side: str | None = None

    def payload(self) -> dict[str, str | int]:
        """The JSON object GitHub takes (no null fields)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Review(BaseModel):
    """The review: its `body`, one suggestion per commentable hunk, and the hunks put into the
    body as a patch (`in_body`)."""

    body: str
    comments: list[ReviewComment] = Field(default_factory=list)
    in_body: list[Change] = Field(default_factory=list)


def commentable(files: list[tuple[str, str | None]]) -> Ranges:
    """The RIGHT-side line ranges of each file of the pull request's diff, from the
    `(filename, patch)` pairs of `GET /repos/{owner}/{repo}/pulls/{pull_number}/files` (GitHub
    leaves `patch` out for large or binary files: none of their lines can be commented on)."""
    found: Ranges = {}
    for name, patch in files:
        if not patch:
            continue
        try:
            parsed = PatchSet(f"--- a/{name}\n+++ b/{name}\n{patch.rstrip()}\n")
        except UnidiffParseError:
            continue
        for patched in parsed:
            found[name] = [
                (h.target_start, h.target_start + max(h.target_length, 1) - 1) for h in patched
            ]
    return found


def _fits(change: Change, ranges: Ranges) -> bool:
    if change.whole_file or change.old_end < change.old_start:
        return False
    return any(
        first <= change.old_start and change.old_end <= last
        for first, last in ranges.get(change.path, [])
    )


def suggestion(change: Change) -> ReviewComment:
    """The review comment suggesting `change` (see the module docstring)."""
    text = "\n".join(change.new_lines)
    block = fence(text, "suggestion") if change.new_lines else "```suggestion\n```"
    body = f"fixbot's verified fix for these lines:\n\n{block}\n"
    multi = change.old_end > change.old_start
    return ReviewComment(
        path=change.path,
        body=body,
        line=change.old_end,
        start_line=change.old_start if multi else None,
        start_side="RIGHT" if multi else None,
    )


def review(changes: list[Change], ranges: Ranges, summary: str, run_url: str) -> Review:
    """The review of the fix `changes` on a pull request whose diff has `ranges`; `summary`
    opens the body (what fixbot fixed). Bounded to `BODY_LIMIT` characters."""
    comments = [suggestion(c) for c in changes if _fits(c, ranges)]
    rest = [c for c in changes if not _fits(c, ranges)]
    lines = [summary, ""]
    if comments:
        lines.append(
            f"{len(comments)} suggestion(s) below: apply them with **Commit suggestions** "
            "(add them to a batch to make one commit)."
        )
    if rest:
        patch = "\n".join(c.patch for c in rest)
        lines += [
            "",
            f"{len(rest)} change(s) fall outside the lines GitHub lets a review comment on; "
            "apply them with `git apply`:",
            "",
            fence(patch, "diff"),
        ]
    body = "\n".join(lines) + "\n"
    if len(body) > BODY_LIMIT:
        tail = f"\n\n… truncated: the whole fix is in the [job summary]({run_url}).\n"
        body = body[: BODY_LIMIT - len(tail)] + tail
    return Review(body=body, comments=comments, in_body=rest)
