"""The hunks of a verified diff, parsed with `unidiff` (no hand-written diff parser).

Pure. A `Change` is one hunk of `git diff` with its leading and trailing context trimmed: the
lines `old_start..old_end` of the old file (the pull request's head) are replaced by
`new_lines`. A pure insertion keeps one context line as its anchor, because a review comment
(and a suggestion) must sit on at least one existing line. Used for the evidence fixbot replies
in a review thread (the hunk that addressed it) and for `on-success: suggest` (one suggestion
per hunk).
"""

from __future__ import annotations

from pydantic import BaseModel
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, Line, PatchedFile, PatchSet

MAX_SHOWN_LINES = 60  # lines of a hunk quoted in a thread reply


class Change(BaseModel):
    """One hunk of the diff: `path` (the new path), the replaced old lines `old_start..old_end`
    (1-based, inclusive; `old_end < old_start` only for an empty old file), the lines that
    replace them (`new_lines`, without line ends), and the hunk as `git diff` printed it
    (`text`, hunk header included) after its file's header (`header`: the extended header
    lines and `---`/`+++`, as `git apply` wants them). `whole_file` marks a file added,
    removed, renamed or binary: such a change cannot be a suggestion."""

    path: str
    old_start: int
    old_end: int
    new_lines: list[str]
    text: str
    header: str = ""
    whole_file: bool = False

    @property
    def patch(self) -> str:
        """This hunk as a patch `git apply` takes (its file's header, then the hunk)."""
        return f"{self.header}{self.text}".rstrip("\n")


def _value(line: str) -> str:
    return line.rstrip("\n").removesuffix("\r")


def _trimmed(path: str, hunk: Hunk, whole_file: bool, header: str) -> Change:
    """`hunk` as a `Change`, its leading and trailing context cut (`_kept`)."""
    lines = list(hunk)
    first, last = _kept(lines)
    part = lines[first : last + 1]
    old = [line.source_line_no for line in part if line.source_line_no is not None]
    start = old[0] if old else hunk.source_start
    return Change(
        path=path,
        old_start=start,
        old_end=old[-1] if old else start - 1,
        new_lines=[_value(line.value) for line in part if not line.is_removed],
        text=str(hunk),
        header=header,
        whole_file=whole_file,
    )


def _kept(lines: list[Line]) -> tuple[int, int]:
    """The first and last index of a hunk's `lines` to keep: its changed lines, with one
    context line as the anchor of a pure insertion (before it, else after it)."""
    changed = [i for i, line in enumerate(lines) if not line.is_context]
    first, last = (changed[0], changed[-1]) if changed else (0, len(lines) - 1)
    if any(lines[i].is_removed for i in range(first, last + 1)):
        return first, last
    if first > 0:  # a pure insertion: anchor on the context line before
        return first - 1, last
    if last + 1 < len(lines):  # ... or after
        return first, last + 1
    return first, last


def _path(patched: PatchedFile) -> str:
    return str(patched.path)


def _header(patched: PatchedFile) -> str:
    info = str(patched.patch_info or "")
    return f"{info}--- {patched.source_file}\n+++ {patched.target_file}\n"


def changes(diff: str) -> list[Change]:
    """Every hunk of the unified `diff` (`git diff` output), in order.

    Raises ValueError when `diff` is not a unified diff.
    """
    try:
        patch = PatchSet(diff)
    except UnidiffParseError as exc:
        raise ValueError(f"not a unified diff: {exc}") from exc
    found: list[Change] = []
    for patched in patch:
        whole = (
            patched.is_added_file
            or patched.is_removed_file
            or patched.is_rename
            or patched.is_binary_file
        )
        if patched.is_binary_file or not len(patched):
            found.append(
                Change(
                    path=_path(patched),
                    old_start=1,
                    old_end=0,
                    new_lines=[],
                    text=str(patched),
                    whole_file=True,
                )
            )
            continue
        header = _header(patched)
        found.extend(_trimmed(_path(patched), hunk, whole, header) for hunk in patched)
    return found


def nearest(found: list[Change], path: str, line: int | None) -> Change | None:
    """The hunk of `path` that covers `line` of the old file, else the closest one; None when
    `path` has no hunk."""
    own = [c for c in found if c.path == path]
    if not own:
        return None
    if line is None:
        return own[0]
    return min(
        own,
        key=lambda c: (
            0
            if c.old_start <= line <= c.old_end
            else min(abs(line - c.old_start), abs(line - c.old_end))
        ),
    )


def fence(text: str, info: str = "") -> str:
    """`text` in a Markdown code fence longer than any backtick run inside it (CommonMark)."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def shown(change: Change, limit: int = MAX_SHOWN_LINES) -> str:
    """The hunk's text, at most `limit` lines (then a line saying how many were left out)."""
    lines = change.text.rstrip("\n").splitlines()
    if len(lines) <= limit:
        return "\n".join(lines)
    return "\n".join([*lines[:limit], f"... {len(lines) - limit} more line(s) in the commit"])
