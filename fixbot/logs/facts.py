"""Facts parsed from the whole check log, streamed: summaries, failing tests, distinct failures.

The condensed log (`fixbot.logs.condense`) is a bounded sample of lines; a log with hundreds of
failures fills it with one repeated assertion. This module reads the same log once more, in
blocks of whole lines, with one line-anchored regular expression built from every output
dialect's patterns (`fixbot.logs.dialects`), and keeps bounded facts:

- summary lines (pytest `=== 3 failed, 9 passed in 1.2s ===`, unittest `Ran 9 tests` and
  `FAILED (failures=3)`, jest `Tests:`, cargo `test result:`, mypy/tsc `Found 3 errors`, mocha
  `3 failing`, ...): the last `MAX_SUMMARY_LINES`;
- failing test ids, in order of first appearance: pytest `FAILED path::name`, unittest
  `FAIL: name (module.Class)`, jest `●`, vitest `FAIL  file > name`, go `--- FAIL:`, cargo
  `test name ... FAILED`, TAP `not ok`, mocha `1) name` after `N failing`; and the
  `path:line` of compiler and linter diagnostics (`x.c:3:5: error: ...`, `x.py:3: error:
  ...`), which the condensing pass finds and hands over (`add_diagnostic`), so this pass does
  not look for them again;
- failure blocks: the text from one failure header (pytest `____ test_x ____`, unittest
  `FAIL:`/`ERROR:`, jest `●`, go `--- FAIL:`, cargo `---- name stdout ----`, mocha `1) name`)
  to the next header or section end. Each block is grouped by its normalised error lines
  (`group_key`): the first block of each group is kept (bounded), later ones only add their
  test name and a count. Repository frames (`path:line` outside site-packages) of every block
  are counted, so the code shown to the model follows the frames that recur most.

Every store is bounded (see the MAX_ constants), so memory does not grow with the log.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from fixbot.core.failure import Counts, FailureGroup, Location
from fixbot.logs import dialects
from fixbot.logs.condense import (
    ANSI,
    ANSI_RE,
    CONTEXT,
    ERROR,
    ERROR_LINE_RE,
    INDENT,
    MARKER,
    MAX_LINE_BYTES,
    PATH,
    Line,
    blocks,
    clean,
    plain,
    render,
)
from fixbot.logs.dialects.base import Dialect
from fixbot.logs.signature import (
    LOCATION_RES,
    merge_counts,
    normalize,
    parse_counts,
    relative_path,
    without_line_numbers,
)

MAX_SUMMARY_LINES = 12
MAX_TESTS = 2_000  # failing test ids remembered (the total is counted beyond it)
MAX_GROUPS = 20  # distinct failures whose text is kept
MAX_GROUP_TESTS = 200  # test names remembered per group
MAX_BLOCK_BYTES = 64 * 1024  # raw bytes of one failure block read (the rest is counted)
GROUP_TEXT_BYTES = 2_500  # a kept failure's rendered text
MAX_ANALYSED = 3_000  # failure blocks grouped; later ones are only counted (bounds the time)
MAX_FRAMES = 5_000  # distinct repository frames counted
LIBRARY_RE = re.compile(r"site-packages|dist-packages|/lib/python\d|<frozen |node_modules/|^/usr/")

HEADS, HEAD_TAGS = dialects.tagged("head", lambda d: d.heads)
SUMMARIES, SUMMARY_TAGS = dialects.tagged("summary", lambda d: d.summary)
IDS, ID_TAGS = dialects.tagged("id", lambda d: d.test_ids)
ENDS, END_TAGS = dialects.tagged("end", lambda d: d.ends)
TAGS = HEAD_TAGS | SUMMARY_TAGS | ID_TAGS | END_TAGS
FACT_RE = re.compile(
    rf"\n{ANSI}{INDENT}(?:{HEADS}|{SUMMARIES}|{IDS}|{ENDS})".encode(), re.MULTILINE
)  # the first of every dialect's headers, then summaries, failing test ids, block ends
TALLY_RES = {
    d.name: re.compile(rf"{ANSI}{INDENT}{d.tally}".encode()) for d in dialects.DIALECTS if d.tally
}
ARMING_RES = {d.name: re.compile(d.armed_by) for d in dialects.DIALECTS if d.armed_by}
DIAGNOSTIC_RE = re.compile(rf"\s*(?P<path>{PATH})(?::(?P<line>\d+)|\((?P<tscline>\d+),\d+\))")
FRAME_HINT_RE = re.compile(r"\.\w+:\d")
QUOTED_RE = re.compile(r"""'(?:[^'\\\n]|\\.)*(?:'|$)|"(?:[^"\\\n]|\\.)*(?:"|$)|\b\d+(?:\.\d+)?\b""")


def group_key(lines: list[str], test: str) -> str:
    """The normalised error lines of one failure block (`lines`, ANSI removed, its header line
    left out): line numbers, quoted values, numbers and the test's own name removed, so the same
    failure in another test gets the same key. Without error lines, its last three lines."""
    found = [line for line in lines if ERROR_LINE_RE.match(line)]
    found = found or [line for line in lines if line.strip()][-3:]
    name = test.rsplit("::", 1)[-1].rsplit(".", 1)[-1].split("[", 1)[0]
    keyed = {
        QUOTED_RE.sub("<v>", without_line_numbers(line.strip()).replace(name, "<test>"))
        for line in normalize("\n".join(found)).splitlines()
    }
    return "\n".join(sorted(keyed))


TEST_ID_RE = re.compile("|".join(dialects.sources(lambda d: d.id_forms)))  # pytest's `x::y`, ...


def shape(line: str) -> str:
    """`line` (stripped, its first 200 characters) with test ids, quoted values, numbers and
    line numbers replaced by placeholders: the same failure in another test has the same shape."""
    line = TEST_ID_RE.sub("<test>", line.strip()[:200])
    return QUOTED_RE.sub("<v>", without_line_numbers(line))


def is_repository_frame(path: str) -> bool:
    """True unless `path` is inside an installed library or the interpreter's own files."""
    return LIBRARY_RE.search(path) is None


@dataclass
class _Open:
    """The failure block being read: its test name, raw pieces, bytes kept and bytes cut."""

    test: str
    dialect: Dialect
    pieces: list[bytes] = field(default_factory=list)
    size: int = 0
    cut: int = 0

    def add(self, data: bytes) -> None:
        room = MAX_BLOCK_BYTES - self.size
        self.pieces.append(data[:room])
        self.size += min(len(data), room)
        self.cut += data.count(b"\n", room) if len(data) > room else 0


@dataclass
class LogFacts:
    """Bounded facts of a whole log (see the module doc); build with `collect_file`."""

    summary: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_SUMMARY_LINES))
    tests: dict[str, None] = field(default_factory=dict)
    tests_total: int = 0
    diagnostics: dict[str, None] = field(default_factory=dict)  # compiler/linter `path:line`
    diagnostics_total: int = 0
    groups: dict[str, FailureGroup] = field(default_factory=dict)
    other_groups: int = 0  # blocks of distinct failures beyond MAX_GROUPS
    analysed: int = 0  # failure blocks grouped so far
    unanalysed: int = 0  # failure blocks beyond MAX_ANALYSED, counted only
    frames: Counter[tuple[str, int]] = field(default_factory=Counter)
    tallies: dict[str, Counter[str]] = field(default_factory=dict)  # dialect -> outcome -> n
    armed: set[str] = field(default_factory=set)  # dialects whose `armed_by` line was seen
    open: _Open | None = None

    def counts(self) -> Counts:
        """Counts from every summary line kept, plus the tallies of per-test result lines
        (go's `--- PASS:`, see `fixbot.logs.dialects.base.Dialect.tally`)."""
        found = parse_counts("\n".join(self.summary))
        tallied = [dialects.BY_NAME[name].tallied(n) for name, n in self.tallies.items()]
        return merge_counts([found, *tallied]) if tallied else found

    def failing_tests(self) -> list[str]:
        """The failing test ids found, in order of first appearance (at most MAX_TESTS)."""
        return list(self.tests)

    def locations(self, repo: Path | None, limit: int = 40) -> list[Location]:
        """Repository frames, the most recurrent first (ties in order of first appearance)."""
        ranked = sorted(self.frames.items(), key=lambda item: -item[1])[:limit]
        return [Location(path=relative_path(p, repo), line=n) for (p, n), _ in ranked]

    def add_test(self, name: str) -> None:
        """Remember a failing test id (bounded; the total counts every distinct one seen)."""
        name = name.strip()
        if name in self.tests:
            return
        self.tests_total += 1
        if len(self.tests) < MAX_TESTS:
            self.tests[name] = None

    def add_diagnostic(self, line: bytes) -> None:
        """Remember the `path:line` of a compiler or linter diagnostic line (bounded, like
        `add_test`); `fixbot.logs.condense` finds them while condensing (its `on_diagnostic`)."""
        match = DIAGNOSTIC_RE.match(clean(line))
        if match is None:
            return
        where = f"{match['path']}:{match['line'] or match['tscline']}"
        if where in self.diagnostics:
            return
        self.diagnostics_total += 1
        if len(self.diagnostics) < MAX_TESTS:
            self.diagnostics[where] = None

    def scan(self, data: bytes) -> None:
        """Read one block of whole lines (it ends with a newline), made `plain` first: vitest
        colours words inside its summary and failure lines even when not on a terminal."""
        scan = b"\n" + plain(data)
        pos = 1  # where the next line not yet given to the open block starts
        for match in FACT_RE.finditer(scan):
            start = match.start()
            if self.open is not None:
                self.open.add(scan[pos : start + 1])
            pos = start + 1
            name = match.lastgroup or ""
            tag = TAGS[name]
            if tag.kind == "head":
                self._head(match, name, tag)
            elif tag.kind == "id":
                self.add_test(clean(tag.dialect.test_id(tag.groups(match, name)).encode()))
            else:
                self._close()
                if tag.kind == "summary":
                    self._summary(match, tag)
            if tag.kind in ("head", "end"):
                self._tally(tag.dialect, match.group()[1:])
            if self.open is not None:  # the matched line belongs to the open block
                end = scan.find(b"\n", start + 1) + 1
                self.open.add(scan[start + 1 : end])
                pos = end
        if self.open is not None:
            self.open.add(scan[pos:])

    def _tally(self, dialect: Dialect, line: bytes) -> None:
        """Count a per-test result line of `dialect` (go's `--- PASS: TestX`)."""
        pattern = TALLY_RES.get(dialect.name)
        found = pattern.match(line) if pattern is not None else None
        if found is not None:
            outcome = found.group("outcome").decode()
            self.tallies.setdefault(dialect.name, Counter())[outcome] += 1

    def _head(self, match: re.Match[bytes], name: str, tag: dialects.Tag) -> None:
        dialect = tag.dialect
        if dialect.armed_by is not None and dialect.name not in self.armed:
            return
        self._close()
        test = clean(dialect.test_id(tag.groups(match, name)).encode())
        if dialect.heads_name_tests and dialect.full_name is None:
            self.add_test(test)
        self.open = _Open(test, dialect)

    def _summary(self, match: re.Match[bytes], tag: dialects.Tag) -> None:
        line = clean(match.group()[1:]).lstrip()
        self.summary.append(line)
        arming = ARMING_RES.get(tag.dialect.name)
        if arming is not None and arming.match(line):
            self.armed.add(tag.dialect.name)

    def _close(self) -> None:
        block, self.open = self.open, None
        if block is None:
            return
        if block.dialect.full_name is not None:  # the name goes on after the header (mocha)
            head = b"".join(block.pieces[:2])[:MAX_BLOCK_BYTES].decode("utf-8", errors="replace")
            following = ANSI_RE.sub("", head).splitlines()[1:]
            block.test = block.dialect.full_name(block.test, following)
            self.add_test(block.test)
        if self.analysed >= MAX_ANALYSED:
            self.unanalysed += 1
            return
        self.analysed += 1
        text = ANSI_RE.sub("", b"".join(block.pieces).decode("utf-8", errors="replace"))
        lines = [line[:MAX_LINE_BYTES] for line in text.splitlines()]  # long values: their start
        self._count_frames(lines)
        self._group(block, text, lines)

    def _count_frames(self, lines: list[str]) -> None:
        """Count the block's frames; past MAX_FRAMES distinct ones only those already seen."""
        for path, line in _frames(lines):
            if (path, line) in self.frames or len(self.frames) < MAX_FRAMES:
                self.frames[(path, line)] += 1

    def _group(self, block: _Open, text: str, lines: list[str]) -> None:
        """Add the block to its failure group (by `group_key`), or start one while there are
        fewer than MAX_GROUPS, else count it among the other groups."""
        key = group_key(lines[1:], block.test)
        group = self.groups.get(key)
        if group is not None:
            group.count += 1
            if len(group.tests) < MAX_GROUP_TESTS:
                group.tests.append(block.test)
        elif len(self.groups) < MAX_GROUPS:
            rendered = render_block(text, GROUP_TEXT_BYTES, cut_lines=block.cut)
            self.groups[key] = FailureGroup(test=block.test, text=rendered, tests=[block.test])
        else:
            self.other_groups += 1

    def finish(self) -> None:
        """Close the last failure block; name pytest failures by their full node ids (or by
        their headers when the log has no `FAILED` lines)."""
        self._close()
        if not self.tests:
            for group in self.groups.values():
                for name in group.tests:
                    self.add_test(name)
        for group in self.groups.values():
            group.tests = [self._full_id(name) for name in group.tests]
            group.test = group.tests[0]

    def _full_id(self, name: str) -> str:
        """`tests/x.py::TestX::test_y` for pytest's header `TestX.test_y`, when it was seen."""
        suffix = "::" + name.replace(".", "::")
        return next((t for t in self.tests if t.endswith(suffix) or t == name), name)


def _frames(lines: list[str]) -> list[tuple[str, int]]:
    """Repository `path:line` frames of one failure block, in order, each once."""
    found: dict[tuple[str, int], None] = {}
    for line in lines:
        if 'File "' not in line and FRAME_HINT_RE.search(line) is None:
            continue  # most lines name no file: skip the slower patterns
        for pattern in LOCATION_RES[:2]:
            for match in pattern.finditer(line):
                if is_repository_frame(match["path"]):
                    found.setdefault((match["path"], int(match["line"])), None)
    return list(found)


def render_block(text: str, max_bytes: int, *, cut_lines: int = 0) -> str:
    """One failure block within `max_bytes`: error lines and the header first, then repository
    frames, then the other lines (captured output, values) in order; cuts are marked."""
    lines = [clean(raw.encode()) for raw in text.splitlines()]
    candidates = []
    for number, line in enumerate(lines):
        if number == 0 or ERROR_LINE_RE.match(line):
            priority = ERROR
        elif any(p.search(line) for p in LOCATION_RES[:2]) or line.lstrip().startswith(">"):
            priority = MARKER if is_repository_frame(line) else CONTEXT
        else:
            priority = CONTEXT
        candidates.append(Line(number, priority, line, len(line.encode()) + 1))
    out = render(candidates, max_bytes, total=len(lines))
    if cut_lines:
        out += f"\n… {cut_lines} more lines of this failure not read"
    return out


def collect_stream(stream: BinaryIO, facts: LogFacts | None = None) -> LogFacts:
    """Scan a binary stream once, in blocks (see `fixbot.logs.condense.blocks`), into `facts` (new
    when None). Diagnostics are not scanned here: see `LogFacts.add_diagnostic`."""
    facts = facts or LogFacts()
    for data in blocks(stream):
        facts.scan(data)
    facts.finish()
    return facts


def collect_file(log_path: Path, facts: LogFacts | None = None) -> LogFacts:
    """The facts of the log at `log_path` (into `facts` when given). Raises OSError when it
    cannot be read."""
    with log_path.open("rb") as stream:
        return collect_stream(stream, facts)
