"""The numbered source of ranked spans (`locate.Span`, from any locator or spectrum) within a
character budget, best first: what the request shows of the code most likely to need the change.

A span shorter than its limit (`locate.MAX_SPAN_LINES` unless the span sets one) is shown
whole; a longer one shows its first line and its focus lines, in one run of lines when they lie
close enough, else `FOCUS_RADIUS` lines either side of each; one that fits in neither way within
what the budget has left is skipped for the next.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.agent.locate import MAX_SPAN_LINES, Span

FOCUS_RADIUS = 3  # lines shown before and after each focus line of a long function


def _shown_lines(span: Span, total: int, wide: bool = True) -> list[int]:
    """The line numbers of `span` to show: all of a short one (under its `limit`); of a long
    one its first line and the lines around its focus lines, else its first `limit`. Around
    the focus, when `wide`, one run of `limit` lines holding all its focus lines (`_wide`): a
    fix of a long function often changes the sibling branches of the line a spectrum points
    at, which ran under the passing tests too and so score lower; otherwise, and when the
    focus lines lie further apart, `FOCUS_RADIUS` lines either side of each."""
    end = min(span.end, total)
    limit = span.limit or MAX_SPAN_LINES
    if end - span.start < limit or not span.focus:
        return list(range(span.start, min(end, span.start + limit - 1) + 1))
    around = _wide(span, end, limit) if wide else None
    if around is not None:
        return around
    shown = {span.start}
    for line in span.focus:
        lo, hi = max(span.start, line - FOCUS_RADIUS), min(end, line + FOCUS_RADIUS)
        shown.update(range(lo, hi + 1))
    return sorted(shown)


def _wide(span: Span, end: int, limit: int) -> list[int] | None:
    """The first line of `span` and a run of `limit` - 1 lines of it (ending by `end`) centred
    on its focus lines, or None when those lie further apart than that."""
    inside = [n for n in span.focus if span.start < n <= end]
    if not inside:
        return None
    low, high = min(inside), max(inside)
    room = limit - 1
    if high - low + 1 > room:
        return None
    lo = max(span.start + 1, low - (room - (high - low + 1)) // 2)
    lo = max(span.start + 1, min(lo, end - room + 1))
    return [span.start, *range(lo, min(end, lo + room - 1) + 1)]


def render(repo: Path, found: list[Span], chars: int) -> str:
    """The numbered source of the spans, best first, within `chars` characters (whole spans;
    a long function shows its first `MAX_SPAN_LINES` lines, or its limit's worth around its
    focus lines when that fits, else a few either side of each: `_shown_lines`)."""
    parts: list[str] = []
    used = 0
    shown: set[tuple[str, int]] = set()
    for span in found:
        if (span.path, span.start) in shown:
            continue
        try:
            text = (repo / span.path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        # The wide view of a long function when it fits, else its focus lines' windows.
        views = [_shown_lines(span, len(text)), _shown_lines(span, len(text), wide=False)]
        blocks = [_block(span, text, numbers) for numbers in views if numbers]
        block = next((b for b in blocks if used + len(b) <= chars), "")
        if not block:  # past the file's end (it names no line of it), or over the budget
            continue
        parts.append(block)
        used += len(block) + 1
        shown.add((span.path, span.start))
    return "\n".join(parts)


def _block(span: Span, text: list[str], numbers: list[int]) -> str:
    """The lines `numbers` of `text` (the file of `span`), numbered, under a header naming the
    span; a gap in the numbers shows as `...`."""
    body = "\n".join(
        ("  ...\n" if i and n != numbers[i - 1] + 1 else "") + f"{n:>5}| {text[n - 1]}"
        for i, n in enumerate(numbers)
    )
    return f"--- {span.path} lines {span.start}-{numbers[-1]} ({span.name})\n{body}"
