"""Condense a check log to the lines that explain the failure, bounded in bytes.

The log is streamed in blocks of whole lines, each first made `plain` (ANSI codes, `\\r\\n`
endings and `\\r`-overwritten progress text removed, as a terminal shows it); one line-anchored
regular expression (bytes, so nothing is decoded until it is kept) finds three kinds of key lines
(the test runners' and checkers' own forms come from `fixbot.logs.dialects`):

- error lines state the failure: pytest `E   ...`, `FAILED ...`/`ERROR ...`, unittest
  `FAIL: ...`, exception lines `ValueError: ...`, compiler and type checker `x.c:3:5: error: ...`,
  `error[E0308]: ...`, ruff/flake8 codes, eslint, go `--- FAIL: TestX`, jest `●`, shell errors;
- summary lines give counts: `=== 1 failed, 2 passed in 0.1s ===`, `Found 3 errors`, ...;
- marker lines locate it: pytest `____ test_x ____` headers, `Traceback (most recent call
  last):`, `File "x.py", line 3`, `path:line` references, rustc/ruff `--> src/main.rs:3:5`.

Each key line brings the two lines after it as context (source excerpts, carets). The last
`tail_lines` lines are always candidates. When the candidates exceed `max_bytes`, they are kept by
priority (error and summary lines, then markers, then the tail, then context; earliest first
within a priority, the tail from the end) and printed in their original order; where lines were
left out a marker says how many (`… 212 lines cut`). Memory is bounded: at most `max_bytes` of
candidates per priority are kept while streaming, plus one block.
"""

from __future__ import annotations

import io
import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from fixbot.logs import dialects

MAX_CONDENSED_BYTES = 12_000
BLOCK_BYTES = 4 * 1024 * 1024  # bytes read per block
MAX_LINE_BYTES = 500  # a kept line is cut to this many bytes
CONTEXT_AFTER = 2  # lines kept after each key line
GAP_BYTES = 24  # UTF-8 bytes reserved for one gap marker
CUT = " [...]"

ANSI = r"(?:\x1b\[[0-9;?]*[A-Za-z])*+"
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\n]*\x07")
ANSI_BYTES_RE = re.compile(ANSI_RE.pattern.encode())
CR_END_RE = re.compile(rb"\r+\n")
CR_INSIDE_RE = re.compile(rb"\r[^\r\n]")
OVERWRITTEN_RE = re.compile(rb"^[^\n]*\r(?=[^\r\n])", re.MULTILINE)  # text a `\r` rewrites
INDENT = r"[ \t]*+"  # shared by every alternative, consumed once (possessive: no backtracking)

# Each alternative starts with a literal or a character class: the regex engine then skips it
# at once on lines that cannot match, which keeps a 100 MB scan under 2 s.
ERROR_SOURCES = (
    *dialects.sources(lambda d: d.errors),  # pytest `E   ...`, go `--- FAIL: `, jest `●`, ...
    r"(?:Error|Exception)(?::|$)|[\w.]+(?:Error|Exception|Failure|Interrupt|Exit)\b(?::|$)",
    r"panic: |thread '[^'\n]*'(?: \(\d+\))? panicked at",  # go, rust
    r"(?:fatal|FATAL)(?: error)?:",
    r"npm (?:ERR!|error) ",
    r"error(?:\[E\d+\])?:",  # rustc, cargo and many tools
    r"(?:/usr)?/bin/(?:ba|da|z)?sh: |(?:bash|dash|zsh|sh): ",  # the shell's own errors
    r"make(?:\[\d+\])?: \*\*\*",
    r"Killed\b",
    r"\[fixbot\] ",  # the runner's note
    r"assertion\b",  # rust assert_eq!
)
PATH = r"[^\s:(][^:(\n]*\.\w+"  # a file name with an extension, as printed
PATH_ERROR_SUFFIXES = (
    r":\d+(?::\d+)?:? (?:fatal )?error\b",  # gcc/clang, mypy, javac
    *dialects.sources(lambda d: d.diagnostics),  # tsc `(1,7): error`, ruff, go, ...
)
SUMMARY_SOURCES = dialects.sources(lambda d: d.summary)  # `=== 1 failed in 0.1s ===`, ...
MARKER_SOURCES = dialects.sources(lambda d: d.markers)  # `____ test_x ____`, tracebacks, ...
PATH_MARKER_SUFFIX = r":\d+(?::\d+)?:?(?:\s|$)"  # path:line[:col]


def _alternation(sources: tuple[str, ...]) -> str:
    return "|".join(f"(?:{source})" for source in sources)


def _error_source() -> str:
    return rf"{_alternation(ERROR_SOURCES)}|{PATH}(?:{_alternation(PATH_ERROR_SUFFIXES)})"


KEY_SOURCE = (  # in a lookahead: a match that ends in the next line must not hide that line
    rf"\n(?={ANSI}{INDENT}(?:(?P<error>{_alternation(ERROR_SOURCES)})"
    rf"|(?P<summary>{_alternation(SUMMARY_SOURCES)})"
    rf"|(?P<marker>{_alternation(MARKER_SOURCES)})"
    rf"|{PATH}(?:(?P<perror>{_alternation(PATH_ERROR_SUFFIXES)})"
    rf"|(?P<pmarker>{PATH_MARKER_SUFFIX}))))"
)
KEY_RE = re.compile(
    KEY_SOURCE.encode(), re.MULTILINE
)  # a match starts at the newline before its line
ERROR_LINE_RE = re.compile(rf"{INDENT}(?:{_error_source()})")
SUMMARY_LINE_RE = re.compile(rf"{INDENT}(?:{_alternation(SUMMARY_SOURCES)})")

ERROR, MARKER, TAIL, CONTEXT = 0, 1, 2, 3  # priorities, most important first
PRIORITY = {"error": ERROR, "perror": ERROR, "summary": ERROR, "marker": MARKER, "pmarker": MARKER}


@dataclass(frozen=True)
class Line:
    """A candidate line: 0-based line number, priority, cleaned text and its UTF-8 size."""

    number: int
    priority: int
    text: str
    size: int


def clean(raw: bytes) -> str:
    """Decode one line (UTF-8, errors replaced), drop ANSI codes and \\r-overwritten parts."""
    text = ANSI_RE.sub("", raw[: MAX_LINE_BYTES * 4].decode("utf-8", errors="replace"))
    text = text.rstrip("\r\n").rsplit("\r", 1)[-1]
    data = text.encode()
    if len(data) > MAX_LINE_BYTES:
        text = data[:MAX_LINE_BYTES].decode("utf-8", errors="ignore") + CUT
    return text


def plain(data: bytes) -> bytes:
    """`data` as a terminal shows it: ANSI codes, `\\r` line endings and the part of a line that
    a `\\r` overwrites (a progress bar) removed, so key lines are found as `clean` prints them;
    the number of lines is kept."""
    if b"\x1b" in data:
        data = ANSI_BYTES_RE.sub(b"", data)
    if b"\r\n" in data:  # CRLF line endings (and \r\r\n): `$` matches before \n only
        data = data.replace(b"\r\n", b"\n")
        data = CR_END_RE.sub(b"\n", data) if b"\r\n" in data else data
    if b"\r" in data and CR_INSIDE_RE.search(data):
        data = OVERWRITTEN_RE.sub(b"", data)
    return data


def error_lines(text: str) -> list[str]:
    """The lines of `text` (ANSI removed) that state an error (see ERROR_SOURCES), in order."""
    lines = ANSI_RE.sub("", text).splitlines()
    return [line for line in lines if ERROR_LINE_RE.match(line)]


def is_summary(line: str) -> bool:
    """True when `line` is a test runner or checker summary line (see SUMMARY_SOURCES)."""
    return SUMMARY_LINE_RE.match(ANSI_RE.sub("", line)) is not None


class _Collector:
    """Streaming state: bounded candidates per priority, pending context, the tail ring."""

    def __init__(
        self, max_bytes: int, tail_lines: int, on_diagnostic: Callable[[bytes], None] | None
    ) -> None:
        self.max_bytes = max_bytes
        self.on_diagnostic = on_diagnostic
        self.kept: dict[int, Line] = {}
        self.used = [0, 0, 0, 0]
        self.tail: deque[tuple[int, bytes]] = deque(maxlen=max(tail_lines, 0))
        self.tail_lines = tail_lines
        self.pending = 0  # context lines still owed from the previous block
        self.lines = 0  # lines seen so far

    def add(self, number: int, priority: int, raw: bytes) -> None:
        """Keep a line unless its priority's budget is spent or it is kept already."""
        old = self.kept.get(number)
        if (old is not None and old.priority <= priority) or self.used[priority] >= self.max_bytes:
            return
        text = clean(raw)
        line = Line(number, priority, text, len(text.encode()) + 1)
        self.kept[number] = line
        self.used[priority] += line.size

    def block(self, data: bytes) -> None:
        """Scan one block that ends with a newline."""
        base = self.lines
        data = plain(data)
        self.pending = self._context(data, base, 0, self.pending)
        scan = b"\n" + data  # every line, the first too, now follows a newline
        counted, at = -1, 0
        for match in KEY_RE.finditer(scan):
            start = match.start()
            counted += scan.count(b"\n", at, start + 1)
            at = start + 1
            end = scan.find(b"\n", start + 1)
            if match.lastgroup == "perror" and self.on_diagnostic is not None:
                self.on_diagnostic(scan[start + 1 : end])
            self.add(base + counted, PRIORITY[match.lastgroup or "marker"], scan[start + 1 : end])
            self.pending = self._context(scan, base + counted + 1, end + 1, CONTEXT_AFTER)
        self.lines = base + data.count(b"\n")
        self._remember_tail(data, self.lines)

    def _context(self, data: bytes, number: int, start: int, count: int) -> int:
        """Keep up to `count` lines from `start` as context; return how many are still owed."""
        while count > 0 and start < len(data):
            end = data.find(b"\n", start)
            self.add(number, CONTEXT, data[start:end])
            number, start, count = number + 1, end + 1, count - 1
        return count

    def _remember_tail(self, data: bytes, end_line: int) -> None:
        if self.tail_lines <= 0:
            return
        pieces = data[:-1].rsplit(b"\n", self.tail_lines)[-self.tail_lines :]
        first = end_line - len(pieces)
        self.tail.extend((first + i, piece[: MAX_LINE_BYTES * 4]) for i, piece in enumerate(pieces))

    def result(self) -> str:
        for number, raw in self.tail:
            self.add(number, TAIL, raw)
        return render(self.kept.values(), self.max_bytes, total=self.lines)


def gap(count: int) -> str:
    """The marker standing for `count` lines left out."""
    return f"… {count} line{'s' if count != 1 else ''} cut"


def render(candidates: Iterable[Line], max_bytes: int, *, total: int | None = None) -> str:
    """Pick candidates by priority within `max_bytes` UTF-8 bytes; print them in log order.

    `total` is the number of lines the candidates were taken from: when given, lines cut after
    the last one kept are marked too. Each gap is marked with `gap` (how many lines were cut).
    """
    pool = sorted(
        candidates, key=lambda c: (c.priority, -c.number if c.priority == TAIL else c.number)
    )
    chosen: dict[int, Line] = {}
    used = GAP_BYTES if total is not None else 0
    if used > max_bytes:
        return ""  # not even the marker fits
    for line in pool:
        # the line, and a gap marker before it unless the line before is kept already (a gap
        # that a later line fills stays paid for: the sum never falls short of the output)
        cost = line.size + (0 if line.number - 1 in chosen else GAP_BYTES)
        if used + cost <= max_bytes:
            chosen[line.number] = line
            used += cost
    return "\n".join(_with_gaps(sorted(chosen.values(), key=lambda c: c.number), total))


def _with_gaps(lines: list[Line], total: int | None) -> Iterator[str]:
    previous = -1
    for line in lines:
        if line.number != previous + 1:
            yield gap(line.number - previous - 1)
        yield line.text
        previous = line.number
    if total is not None and total > previous + 1:
        yield gap(total - previous - 1)


def blocks(stream: BinaryIO) -> Iterator[bytes]:
    """Blocks of whole lines (each ending with a newline); a huge line may be split."""
    carry = b""
    while chunk := stream.read(BLOCK_BYTES):
        data = carry + chunk
        cut = data.rfind(b"\n")
        if cut < 0 and len(data) < BLOCK_BYTES:
            carry = data
            continue
        if cut < 0:
            cut = len(data) - 1
            data = data + b"\n"
        carry = data[cut + 1 :]
        yield data[: cut + 1]
    if carry:
        yield carry + b"\n"


def condense_stream(
    stream: BinaryIO,
    *,
    max_bytes: int = MAX_CONDENSED_BYTES,
    tail_lines: int = 40,
    on_diagnostic: Callable[[bytes], None] | None = None,
) -> str:
    """Condense a binary stream (read once, in blocks of BLOCK_BYTES); see the module doc.

    `on_diagnostic` is called with every `path:line[:col]: error` line of a compiler, type
    checker or linter (raw bytes), in the whole stream, so `fixbot.logs.facts` needs no second scan
    for them."""
    collector = _Collector(max_bytes, tail_lines, on_diagnostic)
    for data in blocks(stream):
        collector.block(data)
    return collector.result()


def condense_file(
    log_path: Path,
    *,
    max_bytes: int = MAX_CONDENSED_BYTES,
    tail_lines: int = 40,
    on_diagnostic: Callable[[bytes], None] | None = None,
) -> str:
    """Condense the log at `log_path` to at most `max_bytes` UTF-8 bytes (streamed, see above).

    A log no larger than `max_bytes` is returned whole (ANSI removed). Raises OSError when the
    file cannot be read. `on_diagnostic`: see `condense_stream` (called for small logs too).
    """
    with log_path.open("rb") as stream:
        if log_path.stat().st_size <= max_bytes and on_diagnostic is None:
            return _whole(stream.read(), max_bytes, tail_lines)
        if log_path.stat().st_size <= max_bytes:
            data = stream.read()
            condense_stream(io.BytesIO(data), max_bytes=0, on_diagnostic=on_diagnostic)
            return _whole(data, max_bytes, tail_lines)
        return condense_stream(
            stream, max_bytes=max_bytes, tail_lines=tail_lines, on_diagnostic=on_diagnostic
        )


def condense_text(text: str, *, max_bytes: int = MAX_CONDENSED_BYTES, tail_lines: int = 40) -> str:
    """Condense `text` like `condense_file` (for logs already in memory)."""
    return _whole(text.encode("utf-8", errors="replace"), max_bytes, tail_lines)


def _whole(data: bytes, max_bytes: int, tail_lines: int) -> str:
    """All of `data` cleaned when that fits in `max_bytes`, else its condensed form."""
    if len(data) <= max_bytes:
        lines = plain(data).removesuffix(b"\n").split(b"\n")
        text = "\n".join(clean(line) for line in lines)
        if len(text.encode()) <= max_bytes:
            return text
    return condense_stream(io.BytesIO(data), max_bytes=max_bytes, tail_lines=tail_lines)


def _chosen_lines(keys: list[int], total: int, limit: int, before: int) -> set[int]:
    """The indexes of the lines to keep: each error line `keys` with `before` lines ahead of
    it, the last first; a window that does not fit (with one `...` per gap, `total` lines in
    all) is cut to the error line alone, or left out."""
    chosen: set[int] = set()
    for key in reversed(keys):
        window = set(range(max(0, key - before), key + 1)) - chosen
        if len(chosen | window) + _gaps(chosen | window, total) <= limit:
            chosen |= window
        elif len(chosen) + 1 + _gaps(chosen | {key}, total) <= limit:
            chosen.add(key)
    return chosen


def explaining_lines(condensed: str, limit: int, before: int = 2) -> str:
    """At most `limit` lines of a condensed log that explain the failure, for a report.

    A short log is kept whole. A longer one keeps each error line (`error_lines`: the
    `ValueError: ...` and `FAILED ...` lines) with `before` lines ahead of it (the code it
    points at), the last ones first when they do not all fit, in the log's order, with `...`
    where lines were left out; without an error line, the last `limit` lines (the summary).
    """
    lines = condensed.splitlines()
    if len(lines) <= limit:
        return condensed.rstrip("\n")
    plain_lines = [ANSI_RE.sub("", line) for line in lines]
    keys = [i for i, line in enumerate(plain_lines) if ERROR_LINE_RE.match(line)]
    if not keys:
        return "\n".join(lines[-limit:])
    chosen = _chosen_lines(keys, len(lines), limit, before)
    out: list[str] = []
    for i in sorted(chosen):
        if (i - 1 not in chosen) if out else i > 0:
            out.append("...")
        out.append(lines[i])
    return "\n".join(out)


def _gaps(chosen: set[int], total: int) -> int:
    """The `...` markers `explaining_lines` writes for the kept line numbers `chosen`."""
    ordered = sorted(chosen)
    inner = sum(1 for a, b in itertools.pairwise(ordered) if b - a > 1)
    return inner + (1 if ordered and ordered[0] > 0 else 0)
