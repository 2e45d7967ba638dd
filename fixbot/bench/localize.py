"""Localization: does fixbot's first request to the model hold what the reference fix changes?

Pure functions over text. The targets of a reference fix (a unified diff, read with `unidiff`)
are, per source file, the lines it removes or rewrites (by their text in the broken tree) and,
for a hunk that only adds lines, the line just before the insertion. A first request localizes
a case when it names every changed file and holds the text of at least half of those lines
(`LINES_NEEDED`): the measure the issue used on real CI failures ("the file that the real fix
changes", "at least half of the changed lines"). Lines shorter than `MIN_LINE_CHARS` once
stripped (`}`, `else:`, blank) say nothing about where the fix is and are not counted.
"""

from __future__ import annotations

from pydantic import BaseModel
from unidiff.errors import UnidiffParseError
from unidiff.patch import Line, PatchSet

LINES_NEEDED = 0.5
MIN_LINE_CHARS = 6
NAIVE_LOG_CHARS = 200_000  # the naive prompt: the last 200 KB of the log (bench/bench_prompt.py)


class Targets(BaseModel):
    """What the reference fix changes: path -> the stripped texts of its target lines."""

    files: dict[str, list[str]]


class Localization(BaseModel):
    """How much of `Targets` one request holds; sizes are characters."""

    files: list[str]
    files_shown: list[str]
    lines: int
    lines_shown: int
    request_chars: int
    naive_chars: int | None = None

    @property
    def named(self) -> bool:
        """Every changed file named."""
        return set(self.files) <= set(self.files_shown)

    @property
    def localized(self) -> bool:
        """Every changed file named and at least `LINES_NEEDED` of the target lines shown; False
        for a fix with no target lines (`no_target_lines`: counted apart, never localized)."""
        return bool(self.lines) and self.named and self.lines_shown >= LINES_NEEDED * self.lines

    @property
    def no_target_lines(self) -> bool:
        """The fix has no line to show (only new files, or lines under `MIN_LINE_CHARS`): the
        case measures file naming alone and is counted apart from the localized ones."""
        return self.lines == 0


def targets(fix_patch: str) -> Targets:
    """The target lines of `fix_patch` per changed file; raises `ValueError` for a patch that
    is not a unified diff."""
    try:
        patch = PatchSet(fix_patch)
    except UnidiffParseError as exc:
        raise ValueError(f"the reference fix is not a unified diff: {exc}") from exc
    files: dict[str, list[str]] = {}
    for changed in patch:
        if changed.is_added_file:
            continue  # a new file cannot be shown before it exists
        lines = [text for hunk in changed for text in _hunk_targets(list(hunk))]
        files[changed.path] = [t for t in dict.fromkeys(lines) if len(t) >= MIN_LINE_CHARS]
    return Targets(files=files)


def _hunk_targets(body: list[Line]) -> list[str]:
    """The stripped target lines of one hunk's lines: each removed line, and the context line
    just before an added one (where an insertion goes)."""
    found = []
    for index, line in enumerate(body):
        if line.is_removed:
            found.append(line.value.strip())
        elif line.is_added and index > 0 and body[index - 1].is_context:
            found.append(body[index - 1].value.strip())
    return found


def measure(fix_patch: str, request: str, naive_chars: int | None = None) -> Localization:
    """How much of `fix_patch`'s targets the text of one request (`request`) holds."""
    found = targets(fix_patch)
    lines = [t for texts in found.files.values() for t in texts]
    return Localization(
        files=sorted(found.files),
        files_shown=sorted(p for p in found.files if p in request),
        lines=len(lines),
        lines_shown=sum(1 for t in lines if t in request),
        request_chars=len(request),
        naive_chars=naive_chars,
    )


def request_text(body: dict[str, object]) -> str:
    """The text of one chat request body: every message's content, joined by newlines."""
    messages = body.get("messages")
    items = messages if isinstance(messages, list) else []
    found = [str(m.get("content") or "") for m in items if isinstance(m, dict)]
    return "\n".join(found)


def naive_chars(log: str, named: dict[str, str]) -> int:
    """The size of the naive prompt: the last `NAIVE_LOG_CHARS` of the log plus every file the
    log names (`named`: path -> text)."""
    return len(log[-NAIVE_LOG_CHARS:]) + sum(len(p) + len(t) + 5 for p, t in named.items())
