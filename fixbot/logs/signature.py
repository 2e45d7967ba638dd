"""Failure signatures and the facts parsed from a condensed log: counts, locations, test ids.

A signature is the hex SHA-256 of a failure's essence: the sorted failing test ids plus the sorted,
de-duplicated error lines (see `fixbot.logs.condense.error_lines`), each normalized. Noise that
changes between identical re-runs is removed by `normalize`: ANSI codes, timestamps, durations, hex
addresses, object ids printed in decimal, local ports, temporary paths and names, PIDs, UUIDs
and (when given) the repository's absolute path.

Line numbers are kept by `normalize` (a re-run does not change them) but left out of the
signature essence: a fix attempt that only moves code shifts every line number while the failure
stays the same, and the circuit breaker must see that as "no progress". The failing test, the
error type and message (with its values) still tell real changes apart.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from fixbot.core.failure import Counts, Location
from fixbot.logs import dialects
from fixbot.logs.condense import ANSI_RE, error_lines, is_summary
from fixbot.logs.dialects.base import compile_lines

NOISE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b"), "<time>"),
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (re.compile(r"\b0x[0-9a-f]{4,}\b", re.I), "0x<addr>"),
    (
        re.compile(
            r"(?:/private)?/var/folders/[^\s'\"):]+|/tmp/[^\s'\"):]+"
            r"|(?<![^\s'\"():])[^\s'\"():]*pytest-of-[^/\s]+/pytest-\d+(?:/[^\s'\"():]*)?"
        ),
        "<tmp>",
    ),
    (re.compile(r"\b(pid|PID|process)([ =:#]+)\d+\b"), r"\1\2<pid>"),
    # object ids printed in decimal (packaging's `<py3-none-any @ 140613478327232>`, `id=N`,
    # `at N`), and the id's tail pytest's truncated repr keeps (`[<py3-none-an...875645705280>]`):
    # CPython ids are addresses, 12 to 15 digits; 6 or more in these places is never a value
    # a test compares, and shorter numbers (line numbers, `assert 1 == 2`) stay
    (re.compile(r"(@ |\bid[=:]\s?|\bat )\d{6,}\b", re.I), r"\1<id>"),
    (re.compile(r"\.\.\.\d{6,}>"), "...<id>>"),
    # a local port in the kernel's ephemeral range (Linux: 32768-60999), never a service's own
    # (`127.0.0.1:5432`, `localhost:4173` stay)
    (
        re.compile(r"\b(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):(?:3[2-9]\d{3}|[4-6]\d{4})\b"),
        r"\1:<port>",
    ),
    (re.compile(r"\btmp(?=[a-z]*[0-9_])[a-z0-9_]{8}\b"), "tmp<name>"),  # tempfile's names
    (re.compile(r"(thread '[^'\n]*') \(\d+\)"), r"\1 (<tid>)"),  # rust >= 1.89 panics
    (
        re.compile(
            r"\b\d+(?:\.\d+)?[ \t]?(?:ms|us|\u00b5s|ns|s|sec|secs|seconds?|milliseconds?)\b"
            r"(?:[ \t]\((?:\d+:\d\d:\d\d|<time>)\))?"  # pytest's `(10:13:32)` is a <time> by now
        ),
        "<duration>",
    ),
)
LINE_NUMBERS = (
    (re.compile(r"(\.\w+):\d+(?::\d+)?"), r"\1:<n>"),
    (re.compile(r"\bline \d+"), "line <n>"),
    (re.compile(r"(\.\w+)\(\d+,\d+\)"), r"\1(<n>)"),
)
PROGRESS_RE = re.compile(
    "|".join(f"^(?:{source})" for source in dialects.sources(lambda d: d.progress))
)  # pytest's `..F.. [ 50%]` and `x.py::test_y PASSED`, from `fixbot.logs.dialects`


def normalize(text: str, *, repo: Path | None = None) -> str:
    """`text` without the noise of re-runs (see NOISE); `repo`'s absolute path prefix removed.

    Line numbers are kept. Each line is stripped of trailing spaces, and the text of trailing
    blank lines. Idempotent.
    """
    while (plain := ANSI_RE.sub("", text)) != text:  # removing `\x1b[0m` may complete a code
        text = plain
    if repo is not None:
        text = text.replace(f"{repo}/", "").replace(f"{repo.resolve()}/", "")
    for pattern, replacement in NOISE:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n")


def without_line_numbers(line: str) -> str:
    """`line` with line (and column) numbers replaced by `<n>`. Idempotent: a replacement can
    open a word boundary a second pass would match (`line 0line 0` -> `line <n>line 0`), so the
    passes repeat until nothing changes (each change removes digits, so this ends)."""
    while True:
        before = line
        for pattern, replacement in LINE_NUMBERS:
            line = pattern.sub(replacement, line)
        if line == before:
            return line


def _last_lines(text: str, count: int, repo: Path | None) -> list[str]:
    """The last `count` lines of `text` that are not progress, summary or fixbot notes,
    normalized and without line numbers (summaries are recognized before normalizing)."""
    lines = [line.strip() for line in ANSI_RE.sub("", text).splitlines() if line.strip()]
    kept = [
        line
        for line in lines
        if not PROGRESS_RE.match(line) and not is_summary(line) and not line.startswith("[fixbot]")
    ]
    return [without_line_numbers(normalize(line, repo=repo)) for line in kept[-count:]]


def essence(
    condensed: str, *, repo: Path | None = None, tests: Iterable[str] | None = None
) -> list[str]:
    """The normalized lines a signature is computed from (sorted; see the module doc).

    `tests` are the failing test ids found in the whole log (`fixbot.logs.facts`); without them the
    ids in `condensed` are used. When no test id and no error line is found, the last ten lines
    that are neither progress nor summary lines stand in, so an unrecognized failure still gets
    a stable signature.
    """
    clean = normalize(condensed, repo=repo)
    if tests is None:
        ids = failing_tests(clean)
    else:
        ids = sorted({normalize(name, repo=repo) for name in tests})
    named = [f"test {name}" for name in ids]
    errors = sorted({without_line_numbers(line.strip()) for line in error_lines(clean)})
    return named + errors if named or errors else _last_lines(condensed, 10, repo)


def _sha256(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def failure_signature(
    condensed: str, *, repo: Path | None = None, tests: Iterable[str] | None = None
) -> str:
    """Hex SHA-256 of `essence(condensed, tests=tests)`: equal for noisy re-runs of the same
    failure."""
    return _sha256(essence(condensed, repo=repo, tests=tests))


def timeout_signature(condensed: str, *, repo: Path | None = None) -> str:
    """Hex SHA-256 of "timeout" and the last five meaningful lines before the hang, normalized
    (the same hang in the same place gives the same signature)."""
    return _sha256(["timeout", *_last_lines(condensed, 5, repo)])


# --- counts, locations and test ids: from the dialects (`fixbot.logs.dialects`) -------------

merge_counts = dialects.merge_counts


def parse_counts(text: str) -> Counts:
    """Counts from every summary line found (every dialect of `fixbot.logs.dialects`: pytest,
    unittest, jest, vitest, go, cargo, mocha, TAP, node, mypy, ruff, tsc, eslint, clang),
    summed over tools; a field is None when no tool reported it."""
    return dialects.parse_counts(ANSI_RE.sub("", text))


LOCATION_RES = tuple(re.compile(source) for source in dialects.LOCATION_SOURCES)
# LOCATION_RES[0] is `path:line[:col]`, [1] Python's `File "x", line N` (the frames of a failure)


def relative_path(path: str, repo: Path | None) -> str:
    """`path` relative to `repo` when it is an absolute path inside it, else as printed."""
    if repo is None or not path.startswith("/"):
        return path.removeprefix("./")
    for root in (repo, repo.resolve()):
        if Path(path).is_relative_to(root):
            return Path(path).relative_to(root).as_posix()
    return path


def parse_locations(text: str, repo: Path | None = None) -> list[Location]:
    """`path:line[:col]` references and every dialect's own forms (Python's `File "path", line
    N`, tsc's `path(line,col)`), in order of first appearance, de-duplicated; paths made
    repo-relative when inside `repo`."""
    text = ANSI_RE.sub("", text).replace("file://", "")
    found: dict[tuple[str, int, int | None], int] = {}
    for pattern in LOCATION_RES:
        for match in pattern.finditer(text):
            col = match.groupdict().get("col")
            key = (
                relative_path(match["path"], repo),
                int(match["line"]),
                int(col) if col else None,
            )
            found.setdefault(key, match.start())
    ordered = sorted(found.items(), key=lambda item: item[1])
    return [Location(path=p, line=line, column=c) for (p, line, c), _ in ordered]


def failing_tests(text: str) -> list[str]:
    """Failing test ids (pytest node ids, unittest ids, go/cargo/jest/vitest/TAP names), sorted,
    unique (see `fixbot.logs.dialects.failing_tests`)."""
    return dialects.failing_tests(ANSI_RE.sub("", text))


# The test runners whose summary line says how the tests went (linters and compilers left out:
# a check may run one that only warns, `--exit-zero`).
TEST_RUNNERS = (
    "pytest",
    "unittest",
    "jest",
    "vitest",
    "go",
    "cargo",
    "mocha",
    "tap",
    "ava",
    "node",
)


def said_failed(text: str) -> list[str]:
    """The finding `failure-summary: ...` when the last test-runner summary line in `text` (a
    green check's tail) reports failed tests or errors: the log's own words beat the exit code
    (a `run_tests.py` that dropped its `sys.exit(pytest.main())`). [] otherwise."""
    last = _last_summary(ANSI_RE.sub("", text))
    if last is None or not any((c.problems or 0) > 0 for c in last[1]):
        return []
    return [f"failure-summary: the check exited 0, but its runner's last summary says: {last[0]}"]


def _last_summary(plain: str) -> tuple[str, list[Counts]] | None:
    """The last test-runner summary line of `plain` (any runner's) and its counts, or None."""
    last: tuple[int, str, list[Counts]] | None = None
    summarising = [dialects.BY_NAME[name] for name in TEST_RUNNERS]
    for dialect in [d for d in summarising if d.summary]:
        for match in compile_lines(dialect.summary).finditer(plain):
            if last is None or match.start() >= last[0]:
                line = _line_of(plain, match)
                last = (match.start(), line, dialect.counts(line))
    return None if last is None else last[1:]


def _line_of(text: str, match: re.Match[str]) -> str:
    """The whole line of `text` on which `match` starts (up to its end's line end)."""
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end >= 0 else len(text)]
