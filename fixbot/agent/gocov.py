"""The functions a failing Go check runs, from `go test`'s own cover profiles: nothing to install.

The check runs twice more, unchanged, through the run's launcher, with `GOFLAGS` asking every
`go test` it starts for a cover profile in count mode (`-coverprofile`, `-covermode=count`;
https://pkg.go.dev/cmd/go#hdr-Environment_variables: GOFLAGS applies a flag to each go command
that knows it): once with `-run` limited to the failing tests (their top-level names), once
whole. A block's count in the whole run minus its count in the failing run is what the passing
tests ran, so each block has a two-group spectrum: run by the failing tests or not, by the
passing ones or not, ranked by Ochiai's coefficient as the Python spectrum is
(`fixbot.agent.spectrum.ochiai`: 1.0 for a block only the failing tests ran). The profiles
cross back in the log after a marker line.

Profile lines are `import/path/file.go:startLine.startCol,endLine.endCol statements count`
(`golang.org/x/tools/cover`'s format); the module path of `go.mod` maps them to repository
paths. A function is a gofmt'd `func` line through the next `}` in column 0.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from fixbot.agent.locate import Span

MARK = "fixbot-go-cover-profiles-follow"
FAILING = "fixbot-go-failing-profile"
MAX_SPANS = 12
MAX_FOCUS = 6
MODULE_RE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
BLOCK_RE = re.compile(r"^(?P<file>\S+\.go):(?P<start>\d+)\.\d+,(?P<end>\d+)\.\d+ \d+ (?P<n>\d+)$")

Blocks = dict[tuple[str, int, int], int]  # (file, start line, end line) -> count


def run_pattern(failing: list[str]) -> str:
    """`-run`'s pattern for the failing tests' top-level names (`TestX/sub` -> `TestX`; a name
    that is not a Go identifier is left out)."""
    names = sorted({t.split("/", 1)[0] for t in failing if re.fullmatch(r"\w+(/.*)?", t)})
    return "^(" + "|".join(names) + ")$"


def command(check: str, failing: list[str]) -> str:
    """The shell command that runs `check` for the failing tests' profile, then whole, and
    prints both profiles after `MARK` (the failing one first, after `FAILING`)."""
    flags = "-covermode=count -coverprofile"
    run = "-run=" + run_pattern(failing).replace("$", "\\$")  # inside the double quotes below
    return (
        "d=$(mktemp -d) && "
        f'(GOFLAGS="$GOFLAGS {run} {flags}=$d/failing.out" && export GOFLAGS && {check}) '
        "</dev/null >/dev/null 2>&1; "
        f'(GOFLAGS="$GOFLAGS {flags}=$d/all.out" && export GOFLAGS && {check}) '
        "</dev/null >/dev/null 2>&1; "
        f'echo {MARK}; echo {FAILING}; cat "$d/failing.out" 2>/dev/null; echo {MARK}; '
        'cat "$d/all.out" 2>/dev/null; rm -rf "$d"'
    )


def _blocks(text: str) -> Blocks:
    found: Blocks = {}
    for line in text.splitlines():
        match = BLOCK_RE.match(line.strip())
        if match:
            key = (match["file"], int(match["start"]), int(match["end"]))
            found[key] = found.get(key, 0) + int(match["n"])
    return found


def parse(output: str) -> tuple[Blocks, Blocks]:
    """(the failing run's blocks, the whole run's blocks) from the command's output."""
    _, _, rest = output.partition(MARK + "\n" + FAILING)
    failing, _, whole = rest.partition(MARK)
    return _blocks(failing), _blocks(whole)


def module_path(repo: Path) -> str | None:
    """The module path `go.mod` declares, None without one."""
    try:
        match = MODULE_RE.search((repo / "go.mod").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return match[1] if match else None


def _functions(repo: Path, rel: str) -> list[tuple[int, int, str]]:
    try:
        lines = (repo / rel).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    found, start, name = [], 0, ""
    for number, line in enumerate(lines, start=1):
        if line.startswith("func "):
            start, name = number, re.sub(r"^func\s+(\([^)]*\)\s*)?(\w+).*", r"\2", line)
        elif start and line.startswith("}"):
            found.append((start, number, name))
            start = 0
    return found


def rank(repo: Path, failing: Blocks, whole: Blocks) -> list[Span]:
    """The functions holding the blocks the failing tests ran, best first (a function scores its
    best block), at most `MAX_SPANS`; files outside the repository or of tests left out."""
    prefix, root = (module_path(repo) or "") + "/", repo.resolve()
    by_file: dict[str, list[tuple[float, int, int]]] = {}
    for (name, start, end), count in failing.items():
        rel = _source_file(root, prefix, name) if count else None
        if rel is None:
            continue
        passed = whole.get((name, start, end), count) - count > 0
        score = 1.0 / math.sqrt(1 + int(passed))  # Ochiai with one failing group
        by_file.setdefault(rel, []).append((score, start, end))
    spans = [span for rel, blocks in by_file.items() for span in _spans(repo, rel, blocks)]
    spans.sort(key=lambda s: (-s.score, s.path, s.start))
    return spans[:MAX_SPANS]


def _source_file(root: Path, prefix: str, name: str) -> str | None:
    """The repository-relative path of a profile's file `name` (`<module path>/<file>`, the
    module's path with a slash being `prefix`), None for a test file or one outside the
    repository (`root`, resolved)."""
    if not name.startswith(prefix) or name.endswith("_test.go"):
        return None
    full = (root / name.removeprefix(prefix)).resolve()
    if not full.is_relative_to(root) or not full.is_file():
        return None
    return full.relative_to(root).as_posix()


def _spans(repo: Path, rel: str, blocks: list[tuple[float, int, int]]) -> list[Span]:
    """The functions of the file `rel` holding any of its (score, first line, last line)
    `blocks`, each scored by its best block, focused on the first lines of those."""
    spans = []
    for fstart, fend, fname in _functions(repo, rel):
        inside = [(s, a) for s, a, b in blocks if fstart <= a and b <= fend]
        if inside:
            best = max(s for s, _ in inside)
            focus = tuple(sorted(a for s, a in inside if s >= best)[:MAX_FOCUS])
            spans.append(Span(rel, fstart, fend, fname, best, focus))
    return spans
