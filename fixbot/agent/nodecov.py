"""The functions a failing node check runs, from V8's own coverage: no install needed.

Node writes V8's precise coverage as JSON into the folder named by `NODE_V8_COVERAGE` when each
of its processes exits (https://nodejs.org/api/cli.html#node_v8_coveragedir): per script, its
functions with byte ranges and call counts, and the blocks inside them with their own counts
(V8's block coverage: a count of 0 is a branch no test took). A node-based check (tape, mocha,
`npm test`) is re-run once with that variable set, through the run's launcher; node itself then
prints the scripts of the repository (not `node_modules`) after a marker line, which is what
crosses back in the log, one JSON line a script (`fixbot.agent.v8js`). A script the runner
transformed before running it (vitest's TypeScript and ESM transforms, ts-node's, babel's) has
offsets into the transformed code, not the file: each node process of the check preloads a hook
(`NODE_OPTIONS`) that keeps the code of every script carrying a source map, and the offsets of
such a script are mapped through its map to the file's lines (`parse_mapped`). A transformed
script with no source map is left out (`ran_as_on_disk`), its test ids and tracebacks remain;
so is every transformed script of a check that sets `NODE_OPTIONS` itself (its value replaces
the one the hook is added to).

A check that starts jest or vitest by name is asked for the runner's own coverage first
(`fixbot.agent.runnercov`); a vitest without its coverage package comes here.

A check is one process over one or more test files, so there is no per-test spectrum here: a
function holding a line the output points at (a failing test's stack trace passing through the
repository's code) ranks first, focused on that line (`_pointed_first`), then one whose name a
failing test's name spells (`nodenear.named`: "returns shallow clone" and `shallowClone`); the
others are ranked by their file's nearness to the failing test files (the same stem, as
`test/parse.js` and `lib/parse.js`; a file the test `require`s or imports, resolved as node
does, then one that file requires; any other executed file), then by its size (a small
function the test reached says more than the module's whole body). A long function is shown
around its least-run executed blocks (`Span.focus`): the paths the failing tests took that the
others rarely did.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fixbot.agent.locate import MAX_SPAN_LINES, Span
from fixbot.agent.nodenear import JS_TEST, named, nearness, normalised, required
from fixbot.agent.v8js import HOOK, PRINT, SOURCES
from fixbot.core.repofiles import regular_text, resolved

MARK = "fixbot-v8-coverage-json-follows"
MAX_SPANS = 12
# One process gives no per-test spectrum, so the functions of a file tie on its nearness and go
# by size: past `MAX_SPANS`, those of a file the failing tests require (or of their stem) are
# kept too, up to `MAX_NEAR_SPANS` in all (a bound on the work; the request's budget bounds
# what is shown), since a bundle (a UMD factory holding the whole library) has many.
NEAR = 0.8
MAX_NEAR_SPANS = 60
MAX_FOCUS = 10  # blocks a long function is shown around: the `RARE` least run, the last ones
RARE = 6
POINTED = 2.0  # the score of a run function holding a line the output points at (above nearness)


@dataclass(frozen=True)
class Function:
    """One function V8 saw in a script: its `name` ('' for an anonymous one) and `ranges`,
    (start offset, end offset, count) in characters, the first the whole function, the others
    its blocks."""

    name: str
    ranges: tuple[tuple[int, int, int], ...]


def command(check: str) -> str:
    """The shell command that re-runs `check` with V8 coverage into a temporary folder, each of
    its node processes preloading `HOOK` (added to the check's `NODE_OPTIONS`), and prints the
    repository's scripts after `MARK`, one JSON line each (`PRINT`; node missing: nothing
    after it)."""
    hook = shlex.quote(HOOK)
    return (
        "d=$(mktemp -d) && "
        f'printf %s {hook} > "$d/hook.cjs" && '
        f'(NODE_V8_COVERAGE="$d" {SOURCES}="$d" '
        'NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--require $d/hook.cjs" && '
        f"export NODE_V8_COVERAGE {SOURCES} NODE_OPTIONS && {check}) </dev/null >/dev/null 2>&1; "
        f"echo {MARK}; "
        f'command -v node >/dev/null && node -e {shlex.quote(PRINT)} "$d"; '
        'rm -rf "$d"'
    )


def _printed(output: str) -> list[dict[str, Any]]:
    """The JSON lines after `MARK` in `output` that are objects (a cut or malformed one is
    skipped alone)."""
    _, marker, rest = output.partition(MARK)
    found = []
    for line in rest.splitlines() if marker else []:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):  # a line nested deeper than Python's stack
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def parse(output: str) -> dict[str, list[Function]]:
    """path -> the functions V8 recorded in it as it reads on disk, from the command's output
    ({} when the report is missing or cut)."""
    found: dict[str, list[Function]] = {}
    for script in _printed(output):
        try:
            path, functions = str(script["path"]), script["functions"]
            found.setdefault(path, []).extend(
                Function(str(name), tuple((int(a), int(b), int(c)) for a, b, c in ranges))
                for name, ranges in functions
                if ranges
            )
        except (KeyError, TypeError, ValueError):
            continue
    return found


def parse_mapped(output: str) -> dict[str, Lines]:
    """path -> the `Lines` of the scripts V8 ran transformed, mapped to the file's lines through
    their source maps, from the command's output; a function or block reported by several
    processes (or several times by one) is counted once, its counts added."""
    functions: dict[str, dict[tuple[str, int, int], int]] = {}
    blocks: dict[str, dict[tuple[int, int], int]] = {}
    for script in _printed(output):
        try:
            path = str(script["mapped"])
            fns, bls = functions.setdefault(path, {}), blocks.setdefault(path, {})
            for name, first, last, count in script["functions"]:
                key = (str(name), int(first), int(last))
                fns[key] = fns.get(key, 0) + int(count)
            for first, last, count in script["blocks"]:
                bls[(int(first), int(last))] = bls.get((int(first), int(last)), 0) + int(count)
        except (KeyError, TypeError, ValueError):
            continue
    return {
        path: Lines(
            tuple((n, a, b, c) for (n, a, b), c in fns.items()),
            tuple((a, b, c) for (a, b), c in blocks[path].items()),
        )
        for path, fns in functions.items()
    }


@dataclass(frozen=True)
class Lines:
    """One script of a runner's report or V8's mapped one: its `functions` (name, first line,
    last line, count) and `blocks` (first line, last line, count), lines 1-based in the file on
    disk."""

    functions: tuple[tuple[str, int, int, int], ...]
    blocks: tuple[tuple[int, int, int], ...]


def rank_lines(
    repo: Path,
    coverage: dict[str, Lines],
    tests: list[str],
    pointed: Sequence[tuple[str, int]] = (),
    failing: Sequence[str] = (),
) -> list[Span]:
    """`rank` for a runner's report: its executed functions of the repository's non-test
    scripts, best first, at most `MAX_SPANS` and the near ones after them (`_best`), each
    focused on its least-run blocks."""
    found = named(_line_spans(repo, coverage, tests), failing)
    return _best(_pointed_first(found, pointed))


def _line_spans(repo: Path, coverage: dict[str, Lines], tests: list[str]) -> list[Span]:
    """The spans of the executed functions of `coverage`'s ranked scripts, scored by nearness."""
    imported = required(repo, tests)
    return [
        span
        for path, lines in coverage.items()
        if ranked_script(repo, path, tests)
        for span in _report_spans(path, lines, nearness(path, tests, imported))
    ]


def ranked_script(repo: Path, path: str, tests: Sequence[str]) -> bool:
    """Whether the report's `path` is one `rank` and `rank_lines` rank: a file inside `repo`
    (the report crosses back from the project's command) that is neither a test file by its
    path (`JS_TEST`) nor one of the failing `tests` (whatever its name: the check names it),
    whose functions would otherwise rank first, the stem of a failing test being their own."""
    root, full = repo.resolve(), resolved(repo.resolve() / path)
    inside = full is not None and full.is_relative_to(root)
    test = JS_TEST.search(path) is not None or normalised(path) in {normalised(t) for t in tests}
    return inside and not test and (repo / path).is_file()


def _report_spans(path: str, lines: Lines, near: float) -> list[Span]:
    """The spans of the executed functions of `lines` (the runner's report of `path`), scored
    `near`, each focused on its least-run blocks (`_focus_lines`); istanbul's functions are the
    script's own, its top level is none of them."""
    return [
        Span(
            path,
            first,
            last,
            name or "(anonymous)",
            near,
            _focus_lines(_inner_blocks(lines, first, last)),
        )
        for name, first, last, count in lines.functions
        if count > 0
    ]


def _inner_blocks(lines: Lines, first: int, last: int) -> list[tuple[int, int, int]]:
    """The blocks of `lines` inside the function from line `first` to `last`, but not the
    function's own whole body, as (count, first line, last line) for `_focus_lines`."""
    return [
        (c, a, b)
        for a, b, c in lines.blocks
        if first <= a and b <= last and (a, b) != (first, last)
    ]


def _pointed_first(spans: list[Span], pointed: Sequence[tuple[str, int]]) -> list[Span]:
    """`spans` with those holding a line of `pointed` (path, line: where the failing tests'
    stack traces pass through the repository's code) scored `POINTED` and focused on that line:
    the innermost such function, and each enclosing one short enough to be shown whole (which
    holds the innermost in its own lines: `_nested_dropped`)."""
    boosted: dict[int, set[int]] = {}
    for path, line in pointed:
        holding = sorted(
            (i for i, s in enumerate(spans) if s.path == path and s.start <= line <= s.end),
            key=lambda i: spans[i].end - spans[i].start,
        )
        for rank_, i in enumerate(holding):
            if rank_ == 0 or spans[i].end - spans[i].start < MAX_SPAN_LINES:
                boosted.setdefault(i, set()).add(line)
    return [
        replace(s, score=POINTED, focus=tuple(sorted({*s.focus, *boosted[i]})))
        if i in boosted
        else s
        for i, s in enumerate(spans)
    ]


def _best(spans: list[Span]) -> list[Span]:
    """The first `MAX_SPANS` of `spans` by score, then the smaller first, nested ones dropped,
    and after them the rest of those scored `NEAR` or above, `MAX_NEAR_SPANS` in all."""
    spans = _nested_dropped(
        sorted(spans, key=lambda s: (-s.score, s.end - s.start, s.path, s.start))
    )
    near = [s for s in spans[MAX_SPANS:] if s.score >= NEAR]
    return [*spans[:MAX_SPANS], *near][:MAX_NEAR_SPANS]


def line_of(starts: list[int], offset: int) -> int:
    """The 1-based line holding the character `offset`, `starts` the offsets lines start at."""
    low, high = 0, len(starts)
    while low < high:  # the last line starting at or before `offset` (1-based)
        mid = (low + high) // 2
        if starts[mid] <= offset:
            low = mid + 1
        else:
            high = mid
    return max(1, low)


def rank(
    repo: Path,
    coverage: dict[str, list[Function]],
    tests: list[str],
    pointed: Sequence[tuple[str, int]] = (),
    mapped: dict[str, Lines] | None = None,
    failing: Sequence[str] = (),
) -> list[Span]:
    """The executed functions of the repository's non-test scripts, best first (those holding a
    line the output points at, `pointed`, then nearness, then the smaller first), at most
    `MAX_SPANS` and the near ones after them (`_best`): those of the scripts V8 ran as they
    read (`coverage`; a script's top level, the whole file, left out) and those of the scripts
    it ran transformed, mapped to the files' lines through their source maps (`mapped`,
    `parse_mapped`). A function whose name the name of a failing test (`failing`, the
    output's test ids) spells ranks above nearness (`nodenear.named`).
    """
    imported = required(repo, tests)
    found = _line_spans(repo, mapped or {}, tests)
    for path, functions in coverage.items():
        if not ranked_script(repo, path, tests) or path in (mapped or {}):
            continue
        text = regular_text(repo, repo / path)
        if text is not None and ran_as_on_disk(text, functions):
            found += _executed(path, text, functions, nearness(path, tests, imported))
    return _best(_pointed_first(named(found, failing), pointed))


def transformed(repo: Path, coverage: dict[str, list[Function]]) -> list[str]:
    """The repository's scripts in `coverage` that V8 ran transformed (`ran_as_on_disk` false),
    sorted: why a check that ran the repository's code ranks none of it."""
    root = repo.resolve()
    found = []
    for path, functions in coverage.items():
        text = regular_text(root, root / path)
        if text is not None and not ran_as_on_disk(text, functions):
            found.append(path)
    return sorted(found)


def ran_as_on_disk(text: str, functions: list[Function]) -> bool:
    """Whether V8 ran the script as `text` reads: its top level (the function at offset 0) ends
    where the text does, and no range goes past it. A test runner that transforms code before
    running it (jest's babel-jest, with or without its coverage instrumentation; a TypeScript
    compiler) reports offsets into its own output, which name no line of the file on disk.
    Several processes report one script's top level once each, with the same end.

    V8 counts offsets in UTF-16 code units; node strips a leading byte-order mark, so the top
    level may end one unit short."""
    length = len(text.encode("utf-16-le")) // 2
    ends = [end for fn in functions for _, end, _ in fn.ranges]
    tops = [fn.ranges[0][1] for fn in functions if fn.ranges[0][0] == 0]
    # the top level is the longest range from offset 0: a function the file opens with
    # (`function sign(x) {` at its first byte) starts there too, and ends sooner
    return bool(tops) and length - 1 <= max(tops) <= length and max(ends) <= length


def _executed(path: str, text: str, functions: list[Function], near: float) -> list[Span]:
    """The spans of the executed `functions` of the script `path` (its `text`), scored `near`;
    the script's top level (a function covering the whole text) left out."""
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    found = []
    for fn in functions:
        start, end, count = fn.ranges[0]
        if count == 0 or (start == 0 and end >= len(text) - 1):
            continue
        first, last = line_of(starts, start), line_of(starts, max(start, end - 1))
        found.append(Span(path, first, last, fn.name or "(anonymous)", near, _focus(fn, starts)))
    return found


def _focus(fn: Function, starts: list[int]) -> tuple[int, ...]:
    """The focus lines (`_focus_lines`) of the V8 function `fn`, its offsets made lines."""
    return _focus_lines(
        [(c, line_of(starts, a), line_of(starts, max(a, b - 1))) for a, b, c in fn.ranges[1:]]
    )


def _focus_lines(blocks: list[tuple[int, int, int]]) -> tuple[int, ...]:
    """The first lines of the least-run executed `blocks` (count, first line, last line), and
    the last lines of the last executed ones (where the run returned: V8 starts a new range
    after a `return` or a `throw`), in order."""
    ran = [block for block in blocks if block[0] > 0]
    rare = [first for _, first, _ in sorted(ran)[:RARE]]
    last = sorted(ran, key=lambda block: block[1])[len(rare) - MAX_FOCUS :] if ran else []
    return tuple(sorted({*rare, *(end for _, _, end in last)}))


def _nested_dropped(spans: list[Span]) -> list[Span]:
    """`spans` without those nested in a short one of the same file (shown whole with it)."""
    short = [s for s in spans if s.end - s.start < MAX_SPAN_LINES]

    def inside(span: Span) -> bool:
        return any(
            o.path == span.path
            and o.start <= span.start
            and span.end <= o.end
            and (o.start, o.end) != (span.start, span.end)
            for o in short
        )

    return [s for s in spans if not inside(s)]
