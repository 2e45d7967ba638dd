"""Failure signatures and the facts parsed from a condensed log: counts, locations, test ids.

A signature is the hex SHA-256 of a failure's essence: the sorted failing test ids plus the sorted,
de-duplicated error lines (see `fixbot.logs.condense.error_lines`), each normalized. Noise that
changes between identical re-runs is removed by `normalize`: ANSI codes, timestamps, durations, hex
addresses, temporary paths, PIDs, UUIDs and (when given) the repository's absolute path.

Line numbers are kept by `normalize` (a re-run does not change them) but left out of the
signature essence: a fix attempt that only moves code shifts every line number while the failure
stays the same, and the circuit breaker must see that as "no progress". The failing test, the
error type and message (with its values) still tell real changes apart.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from fixbot.core.models import Counts, Location
from fixbot.logs.condense import ANSI_RE, error_lines, is_summary

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
PROGRESS_RE = re.compile(r"^[.FEsxX]+\s*(?:\[\s*\d+%\])?$|^\S+::\S+ (?:PASSED|SKIPPED|XFAIL)\b")


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
    """`line` with line (and column) numbers replaced by `<n>`."""
    for pattern, replacement in LINE_NUMBERS:
        line = pattern.sub(replacement, line)
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


# --- counts -----------------------------------------------------------------------------------

PYTEST_SUMMARY_RE = re.compile(
    r"^=*\s*((?:\d+ \w+(?:, )?)+) in [\d.]+s", re.MULTILINE
)  # `=== 1 failed, 2 passed in 0.1s ===`
WORD_COUNT_RE = re.compile(r"(\d+) (\w+)")
UNITTEST_RAN_RE = re.compile(r"^Ran (\d+) tests? in ", re.MULTILINE)
UNITTEST_RESULT_RE = re.compile(r"^(?:FAILED|OK)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
JEST_RE = re.compile(r"^Tests:\s+(.*\d+ total)", re.MULTILINE)
GO_RE = re.compile(r"^--- (FAIL|PASS|SKIP): ", re.MULTILINE)
CARGO_RE = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", re.M)
CARGO_BUILD_RE = re.compile(r"^error: could not compile .* due to (\d+) previous errors?", re.M)
FOUND_RE = re.compile(r"^Found (\d+) errors?\b", re.MULTILINE)  # mypy, ruff, tsc
CLEAN_RE = re.compile(r"^(?:Success: no issues found|All checks passed!)", re.MULTILINE)
TAP_RE = re.compile(r"^# (pass|fail|skipped) (\d+)$", re.MULTILINE)
MOCHA_RE = re.compile(r"^\s*(\d+) (passing|failing|pending)\b", re.MULTILINE)
ESLINT_RE = re.compile(r"^\u2716 \d+ problems? \((\d+) errors?, \d+ warnings?\)", re.MULTILINE)

PYTEST_WORDS = {
    "passed": "passed",
    "failed": "failed",
    "error": "errors",
    "errors": "errors",
    "skipped": "skipped",
    "xfailed": "skipped",
}


def merge_counts(parts: Iterable[Counts]) -> Counts:
    """Sum each field over `parts`; a field stays None when no part reported it."""
    total: dict[str, int | None] = dict.fromkeys(Counts.model_fields)
    for part in parts:
        for name, value in part.model_dump().items():
            if value is not None:
                total[name] = (total[name] or 0) + value
    return Counts(**total)


def _pytest(text: str) -> list[Counts]:
    found = []
    for match in PYTEST_SUMMARY_RE.finditer(text):
        fields: dict[str, int] = {}
        for number, word in WORD_COUNT_RE.findall(match.group(1)):
            if word in PYTEST_WORDS:
                key = PYTEST_WORDS[word]
                fields[key] = fields.get(key, 0) + int(number)
        found.append(Counts(**fields))
    return found


def _unittest(text: str) -> list[Counts]:
    ran, result = UNITTEST_RAN_RE.search(text), UNITTEST_RESULT_RE.search(text)
    if ran is None or result is None:
        return []
    fields = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", result.group(1) or "")}
    failed, errors = fields.get("failures", 0), fields.get("errors", 0)
    skipped = fields.get("skipped", 0) + fields.get("expected failures", 0)
    passed = max(int(ran.group(1)) - failed - errors - skipped, 0)  # two runs' lines mixed
    return [Counts(passed=passed, failed=failed, errors=errors, skipped=skipped)]


def _jest(text: str) -> list[Counts]:
    found = []
    for match in JEST_RE.finditer(text):
        words = {word: int(n) for n, word in WORD_COUNT_RE.findall(match.group(1))}
        found.append(
            Counts(
                passed=words.get("passed", 0),
                failed=words.get("failed", 0),
                skipped=words.get("skipped", 0) + words.get("todo", 0),
            )
        )
    return found


def _go(text: str) -> list[Counts]:
    kinds = GO_RE.findall(text)
    if not kinds:
        return []
    passed = kinds.count("PASS") if "PASS" in kinds else None
    return [Counts(failed=kinds.count("FAIL"), passed=passed, skipped=kinds.count("SKIP") or None)]


def _cargo(text: str) -> list[Counts]:
    found = [
        Counts(passed=int(p), failed=int(f), skipped=int(i)) for p, f, i in CARGO_RE.findall(text)
    ]
    found += [Counts(errors=int(n)) for n in CARGO_BUILD_RE.findall(text)]
    return found


def _checkers(text: str) -> list[Counts]:
    found = [Counts(errors=int(n)) for n in FOUND_RE.findall(text)]
    found += [Counts(errors=int(n)) for n in ESLINT_RE.findall(text)]
    found += [Counts(errors=0) for _ in CLEAN_RE.findall(text)]
    return found


def _tap(text: str) -> list[Counts]:
    words = {word: int(n) for word, n in TAP_RE.findall(text)}
    if not words:
        return []
    return [
        Counts(passed=words.get("pass"), failed=words.get("fail"), skipped=words.get("skipped"))
    ]


def _mocha(text: str) -> list[Counts]:
    words = {word: int(n) for n, word in MOCHA_RE.findall(text)}
    if not words:
        return []
    return [
        Counts(
            passed=words.get("passing"), failed=words.get("failing"), skipped=words.get("pending")
        )
    ]


PARSERS: tuple[Callable[[str], list[Counts]], ...] = (
    _pytest,
    _unittest,
    _jest,
    _go,
    _cargo,
    _checkers,
    _tap,
    _mocha,
)


def parse_counts(text: str) -> Counts:
    """Counts from every summary line found (pytest, unittest, jest, go, cargo, mypy, ruff, tsc,
    eslint, TAP, mocha), summed over tools; a field is None when no tool reported it."""
    text = ANSI_RE.sub("", text)
    return merge_counts(counts for parser in PARSERS for counts in parser(text))


# --- locations and test ids -------------------------------------------------------------------

SOURCE_EXTENSIONS = (
    "py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|go|rs|c|h|cc|cpp|cxx|hpp|hh|m|mm|java|kt"
    "|kts|scala|swift|rb|php|cs|fs|ex|exs|erl|hs|ml|lua|pl|r|jl|dart|zig|sh|bash|sql|proto|tf"
    "|toml|yaml|yml|json|cfg|ini|md|rst|txt|html|css|scss"
)
LOCATION_RES = (
    re.compile(
        rf"(?<![\w./\\~+-])(?P<path>[\w./\\~+-]*[\w-]\.(?:{SOURCE_EXTENSIONS}))"
        r":(?P<line>\d+)(?::(?P<col>\d+))?\b"
    ),
    re.compile(rf'File "(?P<path>[^"\n]+\.(?:{SOURCE_EXTENSIONS}))", line (?P<line>\d+)'),
    re.compile(
        rf"(?<![\w./\\~+-])(?P<path>[\w./\\~+-]*[\w-]\.(?:{SOURCE_EXTENSIONS}))"
        r"\((?P<line>\d+),(?P<col>\d+)\)"
    ),
)


def relative_path(path: str, repo: Path | None) -> str:
    """`path` relative to `repo` when it is an absolute path inside it, else as printed."""
    if repo is None or not path.startswith("/"):
        return path.removeprefix("./")
    for root in (repo, repo.resolve()):
        if Path(path).is_relative_to(root):
            return Path(path).relative_to(root).as_posix()
    return path


def parse_locations(text: str, repo: Path | None = None) -> list[Location]:
    """`path:line[:col]`, `File "path", line N` and tsc `path(line,col)` references, in order of
    first appearance, de-duplicated; paths made repo-relative when inside `repo`."""
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


TEST_ID_RES = (
    re.compile(r"^(?:FAILED|ERROR) (\S+::\S+)", re.MULTILINE),  # pytest summary
    re.compile(r"^(\S+::\S+) (?:FAILED|ERROR)\b", re.MULTILINE),  # pytest -v
    re.compile(r"^\s*--- FAIL: (\S+)", re.MULTILINE),  # go test
    re.compile(r"^test (\S+) \.\.\. FAILED", re.MULTILINE),  # cargo test
    re.compile(r"^\s*\u25cf (?!Console$)(.+?)\s*$", re.MULTILINE),  # jest
    re.compile(r"^not ok \d+ - (.+?)\s*(?:#.*)?$", re.MULTILINE),  # TAP
)
UNITTEST_ID_RE = re.compile(r"^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)", re.MULTILINE)


def _unittest_id(method: str, where: str) -> str:
    """`tests.test_x.TestX.test_y` from both the 3.11+ and the older `(module.Class)` forms."""
    return where if where.endswith(f".{method}") else f"{where}.{method}"


def failing_tests(text: str) -> list[str]:
    """Failing test ids (pytest node ids, unittest ids, go/cargo/jest/TAP names), sorted, unique."""
    text = ANSI_RE.sub("", text)
    names = {m.group(1) for pattern in TEST_ID_RES for m in pattern.finditer(text)}
    names |= {_unittest_id(m, w) for m, w in UNITTEST_ID_RE.findall(text)}
    return sorted(names)
