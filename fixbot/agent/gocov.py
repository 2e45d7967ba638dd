"""The functions a failing Go check runs, from `go test`'s own cover profiles: nothing to install.

The check runs twice more, unchanged, through the run's launcher, with `GOFLAGS` asking every
`go test` it starts for a cover profile in count mode (`-coverprofile`, `-covermode=count`;
https://pkg.go.dev/cmd/go#hdr-Environment_variables: GOFLAGS applies a flag to each go command
that knows it): once with `-run` limited to the failing tests (their top-level names), once
whole. A block's count in the whole run minus its count in the failing run is what the passing
tests ran, so each block has a two-group spectrum: run by the failing tests or not, by the
passing ones or not, ranked by Ochiai's coefficient as the Python spectrum is
(`fixbot.agent.tracerank.ochiai`: 1.0 for a block only the failing tests ran). The profiles
cross back in the log after a marker line. Both runs cover every package of the module
(`-coverpkg`) and read the failing tests' files through an overlay that turns a panic into a
test failure, so a panicking test still writes its profile (`command`). Functions of one score
are ordered by the evidence: the strings the failure quotes, the failing tests' calls (`rank`).

Profile lines are `import/path/file.go:startLine.startCol,endLine.endCol statements count`
(`golang.org/x/tools/cover`'s format); the module path of `go.mod` maps them to repository
paths. A function is a gofmt'd `func` line through the next `}` in column 0.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from fixbot.agent.locate import Span
from fixbot.core.repofiles import regular_text, resolved

MARK = "fixbot-go-cover-profiles-follow"
FAILING = "fixbot-go-failing-profile"
MAX_SPANS = 12
MAX_FOCUS = 6
# sed -E: a test function's or closure's opening line, `func TestX(t *testing.T) {`, gets a
# deferred recover after its brace (no `'` inside: the command single-quotes it)
RECOVER = (
    r"s/^(.*func( Test[A-Za-z0-9_]*)?\(([A-Za-z_][A-Za-z0-9_]*) \*testing\.T\) \{)$/"
    r'\1 defer func() { if r := recover(); r != nil { \3.Errorf("panic: %v", r) } }();/'
)
MODULE_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~/-]*")  # a module path safe unquoted in GOFLAGS
MODULE_RE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
# numbers in ASCII digits, a few (`LINE_NUMBER`): the profile crosses back from the commands
BLOCK_RE = re.compile(
    r"^(?P<file>\S+\.go):(?P<start>[0-9]{1,9})\.\d+,(?P<end>[0-9]{1,9})\.\d+ \d+ "
    r"(?P<n>[0-9]{1,18})$"
)

# A Go string literal, interpreted ("...") or raw (`...`), and the format verbs inside one.
STRING_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`([^`]*)`')
VERB_RE = re.compile(r"%[-+# 0-9.*]*[a-zA-Z%]")
MIN_QUOTE = 8  # shorter pieces of a literal ("GET", "/api") say nothing about where
DECL_RE = re.compile(r"^\s*(?:var\s+|const\s+)?([A-Za-z_]\w*)\b[^=]*=[^=]")
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
MAX_DISTANCE = 4
UNREACHED = MAX_DISTANCE + 1
LINE_CAP = 100_000  # a block longer crossing back from the check's run is forged: no lines
MAX_TEST_FILES = 2000  # the test files searched for a failing test's function

Blocks = dict[tuple[str, int, int], int]  # (file, start line, end line) -> count


def run_pattern(failing: list[str]) -> str:
    """`-run`'s pattern for the failing tests' top-level names (`TestX/sub` -> `TestX`; a name
    that is not a Go identifier is left out)."""
    names = sorted({t.split("/", 1)[0] for t in failing if re.fullmatch(r"\w+(/.*)?", t)})
    return "^(" + "|".join(names) + ")$"


def command(check: str, failing: list[str], module: str | None = None) -> str:
    """The shell command (POSIX sh) that runs `check` for the failing tests' profile, then
    whole, and prints both profiles after `MARK` (the failing one first, after `FAILING`).

    A test that panics ends its test binary before it writes a profile (Go 1.19's
    `testing.tRunner` panics again after reporting), which would leave its package out of both
    runs: both run with `-overlay` (Go 1.16+: the build reads the given copy of a file instead,
    the repository untouched) replacing each test file that defines a failing test's function
    by a copy whose `*testing.T` functions and closures recover a panic into `t.Errorf`, on
    their opening line (line numbers kept). With the module's path `module` (`go.mod`'s),
    `-coverpkg=<module>/...` counts every package of the module, not only the test's own,
    so a failing test of one package reaches the code it calls in another."""
    flags = "-covermode=count -coverprofile"
    pattern = run_pattern(failing)
    run = "-run=" + pattern.replace("$", "\\$")  # inside the double quotes below
    names = pattern.removeprefix("^").removesuffix("$")
    if module and MODULE_OK.fullmatch(module):
        flags = f"-coverpkg={module}/... {flags}"
    overlay = (
        f"grep -rlE --include='*_test.go' '^func {names}\\(' . 2>/dev/null | "
        "{ n=0; s=; while IFS= read -r f; do "
        "case \"$f\" in *'\"'*|*'\\'*) continue;; esac; n=$((n+1)); "
        f'sed -E \'{RECOVER}\' "$f" > "$d/$n.go" && '
        'printf \'%s"%s":"%s"\' "$s" "$PWD/${f#./}" "$d/$n.go" && s=,; done; } '
        '>"$d/list"; printf \'{"Replace":{%s}}\' "$(cat "$d/list")" >"$d/overlay.json"; '
    )
    flags = f"-overlay=$d/overlay.json {flags}"
    return (
        "d=$(mktemp -d) && "
        + overlay
        + f'(GOFLAGS="$GOFLAGS {run} {flags}=$d/failing.out" && export GOFLAGS && {check}) '
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
    match = MODULE_RE.search(regular_text(repo, repo / "go.mod") or "")
    return match[1] if match else None


def functions(repo: Path, rel: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of each gofmt'd top-level function of the file `rel`."""
    lines = (regular_text(repo, repo / rel) or "").splitlines()
    found, start, name = [], 0, ""
    for number, line in enumerate(lines, start=1):
        if line.startswith("func "):
            start, name = number, re.sub(r"^func\s+(\([^)]*\)\s*)?(\w+).*", r"\2", line)
        elif start and line.startswith("}"):
            found.append((start, number, name))
            start = 0
    return found


def rank(
    repo: Path, failing: Blocks, whole: Blocks, tests: Sequence[str] = (), evidence: str = ""
) -> list[Span]:
    """The functions holding the blocks the failing tests ran, best first (a function scores its
    best block), at most `MAX_SPANS`; files outside the repository or of tests left out.

    Functions of one score (every passing test also ran them, often) are ordered by evidence,
    not by name: first those that use a string the failure's text `evidence` quotes (its
    literal, or the package-level name bound to it: `ErrX = errors.New("...")`), then by call
    distance from the bodies of the failing tests `tests` (1: a test calls it by name), then
    by path and line. The lines using such a string lead the function's focus lines."""
    by_file = _scored_blocks(repo, failing, whole)
    spans = [span for rel, blocks in by_file.items() for span in _spans(repo, rel, blocks)]
    sources = {rel: _lines(repo / rel) for rel in by_file}
    hits = _quoting(repo, sources, evidence)
    spans = [_focused(s, hits.get(s.path, set())) for s in spans]
    quoting = {(s.path, s.start) for s in spans if hits.get(s.path, set()) & set(s.focus)}
    distance = _distances(repo, spans, sources, tests)
    spans.sort(
        key=lambda s: (
            -s.score,
            (s.path, s.start) not in quoting,
            distance.get((s.path, s.start), UNREACHED),
            s.path,
            s.start,
        )
    )
    return spans[:MAX_SPANS]


def _scored_blocks(
    repo: Path, failing: Blocks, whole: Blocks
) -> dict[str, list[tuple[float, int, int]]]:
    """Path -> (score, first line, last line) of each block the failing tests ran in that file
    of the repository (`_source_file`: not a test, not outside it), scored by Ochiai with one
    failing group: 1 when no passing test ran it too (its count in `whole` no greater than in
    `failing`), 1/sqrt(2) when one did."""
    prefix, root = (module_path(repo) or "") + "/", repo.resolve()
    by_file: dict[str, list[tuple[float, int, int]]] = {}
    for (name, start, end), count in failing.items():
        rel = _source_file(root, prefix, name) if count else None
        if rel is None:
            continue
        passed = whole.get((name, start, end), count) - count > 0
        by_file.setdefault(rel, []).append((1.0 / math.sqrt(1 + int(passed)), start, end))
    return by_file


def executed(repo: Path, failing: Blocks) -> dict[str, frozenset[int]]:
    """Repository-relative path -> the lines of the blocks the failing tests' run executed
    (count above 0) in each non-test file of the module (`_source_file`): a line ran when a
    block holding it did (`fixbot.agent.locate.Ranked`'s `executed`)."""
    prefix, root = (module_path(repo) or "") + "/", repo.resolve()
    found: dict[str, set[int]] = {}
    for (name, start, end), count in failing.items():
        rel = _source_file(root, prefix, name) if count and end - start < LINE_CAP else None
        if rel is not None:
            found.setdefault(rel, set()).update(range(start, end + 1))
    return {rel: frozenset(lines) for rel, lines in found.items()}


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def quoted(lines: list[str], evidence: str) -> tuple[set[int], set[str]]:
    """(the numbers of `lines`, a Go file's, holding a string literal `evidence` quotes, the
    names its package-level lines bind to such a literal: `ErrX = errors.New("no route")` ->
    `ErrX`). A literal is quoted when one of its pieces between format verbs (`%q`, `%v`: the
    output shows values there), of at least `MIN_QUOTE` characters, is in `evidence`."""
    found: set[int] = set()
    names: set[str] = set()
    inside = False
    for number, line in enumerate(lines, start=1):
        if line.startswith("func "):
            inside = True
        elif inside and line.startswith("}"):
            inside = False
        if not any(_quotes(m, evidence) for m in STRING_RE.findall(line)):
            continue
        found.add(number)
        bound = None if inside else DECL_RE.match(line)
        if bound:
            names.add(bound[1])
    return found, names


def _quotes(match: tuple[str, str], evidence: str) -> bool:
    pieces = (p.strip() for p in VERB_RE.split(match[0] or match[1]))
    return any(len(p) >= MIN_QUOTE and p in evidence for p in pieces)


def _quoting(repo: Path, sources: dict[str, list[str]], evidence: str) -> dict[str, set[int]]:
    """Path -> the lines of each file of `sources` (path -> lines) that hold a literal
    `evidence` quotes or use a name its package binds to one (`quoted`; a package is a
    folder's non-test `.go` files)."""
    if not evidence:
        return {}
    folders = {str(Path(rel).parent) for rel in sources}
    names = {folder: _bound_names(repo, folder, evidence) for folder in folders}
    return {
        rel: _quoting_lines(lines, evidence, names[str(Path(rel).parent)])
        for rel, lines in sources.items()
    }


def _bound_names(repo: Path, folder: str, evidence: str) -> set[str]:
    """The names the package in `folder` (its non-test `.go` files, links out of the repository
    left out) binds to a literal `evidence` quotes (`quoted`)."""
    root = repo.resolve()
    found: set[str] = set()
    for path in sorted((repo / folder).glob("*.go")):
        full = resolved(path)
        if not path.name.endswith("_test.go") and full is not None and full.is_relative_to(root):
            found |= quoted(_lines(path), evidence)[1]
    return found


def _quoting_lines(lines: list[str], evidence: str, bound: set[str]) -> set[int]:
    """The numbers of `lines` (a Go file's) holding a literal `evidence` quotes (`quoted`) or
    using one of the names `bound` (its package's names for such literals) as a whole word."""
    found, _ = quoted(lines, evidence)
    if bound:
        uses = re.compile(r"\b(" + "|".join(map(re.escape, sorted(bound))) + r")\b")
        found |= {n for n, line in enumerate(lines, 1) if uses.search(line)}
    return found


def _focused(span: Span, hits: set[int]) -> Span:
    """`span` with its lines among `hits` (`_quoting`) first among its focus lines."""
    inside = sorted(n for n in hits if span.start <= n <= span.end)
    if not inside:
        return span
    rest = [n for n in span.focus if n not in inside]
    return replace(span, focus=tuple([*inside, *rest][:MAX_FOCUS]))


def _distances(
    repo: Path, spans: list[Span], sources: dict[str, list[str]], tests: Sequence[str]
) -> dict[tuple[str, int], int]:
    """(path, first line) of each of `spans` -> its call distance from the failing tests'
    bodies: 1 when a failing test's function calls its name, n + 1 when one at n does; the
    spans no chain of names reaches are left out. Names only: a method and a function of one
    name are both reached, which the coverage (every span ran under the failing tests) bounds."""
    frontier = _test_bodies(repo, {t.split("/", 1)[0] for t in tests})
    distance: dict[tuple[str, int], int] = {}
    for level in range(1, MAX_DISTANCE + 1):
        called = {name for body in frontier for name in CALL_RE.findall(body)}
        frontier = []
        for span in spans:
            key = (span.path, span.start)
            if key not in distance and span.name in called:
                distance[key] = level
                frontier.append("\n".join(sources[span.path][span.start : span.end]))
        if not frontier:
            break
    return distance


def _test_bodies(repo: Path, names: set[str]) -> list[str]:
    """The sources of the test functions `names` (`func Name(`...the next `}` in column 0) in
    the repository's `_test.go` files (the first `MAX_TEST_FILES` by path; hidden folders and
    links out of the repository left out), read once."""
    if not names:
        return []
    start, root = re.compile(r"^func (\w+)\("), repo.resolve()
    bodies = []
    for path in _test_files(repo)[:MAX_TEST_FILES]:
        full = resolved(path)
        if full is None or not full.is_relative_to(root):
            continue
        lines = _lines(path)
        for first, line in enumerate(lines):
            match = start.match(line)
            if match and match[1] in names:
                ends = (i for i in range(first + 1, len(lines)) if lines[i].startswith("}"))
                bodies.append("\n".join(lines[first + 1 : next(ends, len(lines))]))
    return bodies


def _test_files(repo: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [Path(folder) / n for n in sorted(files) if n.endswith("_test.go")]
        if len(found) >= MAX_TEST_FILES:
            break
    return found


def _source_file(root: Path, prefix: str, name: str) -> str | None:
    """The repository-relative path of a profile's file `name` (`<module path>/<file>`, the
    module's path with a slash being `prefix`), None for a test file or one outside the
    repository (`root`, resolved)."""
    if not name.startswith(prefix) or name.endswith("_test.go"):
        return None
    full = resolved(root / name.removeprefix(prefix))
    if full is None or not full.is_relative_to(root) or not full.is_file():
        return None
    return full.relative_to(root).as_posix()


def _spans(repo: Path, rel: str, blocks: list[tuple[float, int, int]]) -> list[Span]:
    """The functions of the file `rel` holding any of its (score, first line, last line)
    `blocks`, each scored by its best block, focused on the first lines of those."""
    spans = []
    for fstart, fend, fname in functions(repo, rel):
        inside = [(s, a) for s, a, b in blocks if fstart <= a and b <= fend]
        if inside:
            best = max(s for s, _ in inside)
            focus = tuple(sorted(a for s, a in inside if s >= best)[:MAX_FOCUS])
            spans.append(Span(rel, fstart, fend, fname, best, focus))
    return spans
