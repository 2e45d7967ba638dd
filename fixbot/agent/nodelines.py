"""The lines a node check's failing run executed, from the coverage `fixbot.agent.nodecov` reads:
V8's own (offsets made lines) or, for a script V8 ran transformed or a runner's report, its
`Lines` (`fixbot.agent.runnercov`). A line ran when the innermost range holding it ran
(`ran_lines`): a branch not taken inside a function that ran did not. What
`fixbot.agent.literals` narrows an over-common quoted phrase to (`locate.Ranked`).
"""

from __future__ import annotations

import re
from pathlib import Path

from fixbot.agent.nodecov import Function, Lines, line_of, ran_as_on_disk, ranked_script
from fixbot.core.repofiles import regular_text


def executed(
    repo: Path,
    coverage: dict[str, list[Function]],
    tests: list[str],
    mapped: dict[str, Lines] | None = None,
) -> dict[str, frozenset[int]]:
    """path -> the lines the run executed (`ran_lines`) of each script `rank` ranks, those V8
    ran transformed (`mapped`) and those it ran as they read (`coverage`, offsets made lines,
    the top level left out as `nodecov.rank` leaves it); a script with none left out."""
    found: dict[str, frozenset[int]] = {}
    for path in dict.fromkeys([*(mapped or {}), *coverage]):
        text = regular_text(repo, repo / path) if ranked_script(repo, path, tests) else None
        lines = (
            None
            if text is None
            else _script_lines(text, coverage.get(path), (mapped or {}).get(path))
        )
        if lines:
            found[path] = lines
    return found


def _script_lines(
    text: str, functions: list[Function] | None, mapped: Lines | None
) -> frozenset[int]:
    """The executed lines of the script reading `text`: by its `mapped` lines when it ran
    transformed, else by its V8 `functions` when it ran as it reads, else none."""
    count = text.count("\n") + 1
    if mapped is not None:
        return ran_lines(mapped, count)
    if functions and ran_as_on_disk(text, functions):
        return ran_lines(_as_lines(text, functions), count)
    return frozenset()


def _as_lines(text: str, functions: list[Function]) -> Lines:
    """The V8 `functions` of a script that ran as `text` reads, as `Lines` (offsets made
    lines), the top level (a function covering the whole text) left out."""
    starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def lines(a: int, b: int, c: int) -> tuple[int, int, int]:
        return line_of(starts, a), line_of(starts, max(a, b - 1)), c

    inner = [
        fn for fn in functions if not (fn.ranges[0][0] == 0 and fn.ranges[0][1] >= len(text) - 1)
    ]
    return Lines(
        tuple((fn.name, *lines(*fn.ranges[0])) for fn in inner),
        tuple(lines(*r) for fn in inner for r in fn.ranges[1:]),
    )


def ran_lines(lines: Lines, count: int) -> frozenset[int]:
    """The lines 1 to `count` (the file's) of `lines` (a script's functions and blocks) the run
    executed: those whose innermost range (the fewest lines; of several as few, the most run)
    has a count above 0. A line in a block of count 0 (a branch not taken, a `throw` not
    reached) did not run, nor a line in no function (a top level's comment, a type): a
    locale's `return "Invalid input"` in the `case` that ran, not the same text in the
    `default` beside it. Ranges are cut to the file's lines (the report crossed back from the
    project's command)."""
    innermost: dict[int, tuple[int, int]] = {}  # line -> (lines in its range, -count)
    ranges = [(first, last, runs) for _, first, last, runs in lines.functions]
    for first, last, runs in [*ranges, *lines.blocks]:
        for line in range(max(1, first), min(last, count) + 1):
            innermost[line] = min(innermost.get(line, (last - first, -runs)), (last - first, -runs))
    return frozenset(line for line, (_, runs) in innermost.items() if runs < 0)
