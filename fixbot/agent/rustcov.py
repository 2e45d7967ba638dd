"""The functions a failing Rust check runs, from rustc's own source-based coverage, test by test.

rustc builds with `-C instrument-coverage` (stable since Rust 1.60:
https://doc.rust-lang.org/rustc/instrument-coverage.html); an instrumented program writes a raw
profile where `LLVM_PROFILE_FILE` says when it exits, `llvm-profdata merge` indexes it, and
`llvm-cov export -format=lcov` turns it into the lines each source file ran (`DA:line,count`).

The check runs once more through the run's launcher (`command`), with `RUSTFLAGS` adding
`-C instrument-coverage` (to the check's own value too: `instrumented`; a project's
`build.rustflags` in `.cargo/config.toml` gives way to RUSTFLAGS, as cargo's precedence has
it), its own `CARGO_TARGET_DIR` (the project's build is left as it is) and every stray profile
(build scripts) in a private folder. cargo runs each test binary through the host's runner
(`CARGO_TARGET_<TRIPLE>_RUNNER`,
https://doc.rust-lang.org/cargo/reference/config.html#targettriplerunner): fixbot's runner runs
the binary as asked (the check's outcome kept), then lists its tests (libtest's `--list`) and,
when a failing test is among them, runs each failing test and an even sample of at most
`MAX_PASSING` of the others alone (`--exact NAME`; test binaries only, each once: `RUNNER`),
each with its own profile and its outcome observed (exit 0 or not). Each run's lines cross
back in the log after a marker; `rank` scores each line by Ochiai's coefficient over those
runs, as the Python spectrum does (`fixbot.agent.spectrum`), and a function by its best line
(functions found by `fixbot.agent.rustcalls`; test code left out). Functions of one score keep
the order of the failing tests' calls (`rustcalls.spans`).

The raw profile's format changes with LLVM, so llvm-profdata must be of the LLVM that rustc was
built with (`rustc -vV`'s "LLVM version"): `probe_command` asks the launcher's rustc and the
tools on its PATH (`llvm-profdata-<major>`: Debian's llvm-<major>; rustup's `llvm-tools` in the
tool chain's sysroot; a plain `llvm-profdata`), `choose` takes the first of the same major,
and names what it found when none is (the spectrum's note). A rustc built without the profiler
runtime (Debian's own) cannot build with the flag at all, which the probe sees in its sysroot.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fixbot.agent import rustcalls
from fixbot.agent.locate import LINE_NUMBER, Ranked, Span
from fixbot.agent.tracerank import ochiai
from fixbot.core.repofiles import resolved
from fixbot.process.assignments import assignment_ends
from fixbot.process.launcher import Launcher

MARK = "fixbot-rust-coverage-follows"
TEST_MARK = "fixbot-rust-test"
TOOL_MARK = "fixbot-rust-tool"
PROFILER_MARK = "fixbot-rust-profiler"
MERGE_ERROR = "fixbot-rust-merge-error"
MAX_PASSING = 40  # passing tests of one binary run alone, an even sample of them
MAX_SPANS = 12
MAX_FOCUS = 6
NAME_OK = re.compile(r"[A-Za-z0-9_:]+")  # a libtest name safe unquoted in the runner's list
LLVM_RE = re.compile(r"LLVM version:? ([0-9]{1,6})")  # ASCII digits, a few (`LINE_NUMBER`)

# cargo's runner (POSIX sh): the binary as cargo asked, then, in a binary holding a failing
# test, each failing test and a sample of the others alone; `$d` is the private folder,
# `$d/failing` the failing tests' names. Only a test binary (cargo builds those into `deps/`;
# `cargo run`'s program is one folder up) is asked for its list: a program of the project's is
# never run with arguments it did not get. Each binary once: a runner that starts it once per
# test (cargo-nextest) gets no more runs.
RUNNER = r"""#!/bin/sh
d="$FIXBOT_RUST_COVERAGE"
bin="$1"
shift
"$bin" "$@"
status=$?
case "$bin" in
  "$d"/target/*/deps/*) ;;
  *) exit $status ;;
esac
seen="$d/seen.$(printf '%s' "$bin" | cksum | cut -d ' ' -f 1)"
[ -e "$seen" ] && exit $status
: >"$seen"
"$bin" --list </dev/null 2>/dev/null | sed -n 's/: test$//p' >"$d/list.$$"
grep -Fx -f "$d/failing" "$d/list.$$" >"$d/run.$$"
if [ -s "$d/run.$$" ]; then
  grep -Fvx -f "$d/failing" "$d/list.$$" >"$d/others.$$"
  total=$(wc -l <"$d/others.$$")
  step=$(( total / MAX + 1 ))
  awk -v s="$step" 'NR % s == 0' "$d/others.$$" | head -n MAX >>"$d/run.$$"
  while IFS= read -r name; do
    t=$(mktemp -d "$d/t/XXXXXX")
    printf '%s\n' "$bin" >"$t/bin"
    printf '%s\n' "$name" >"$t/name"
    LLVM_PROFILE_FILE="$t/%p-%m.profraw" "$bin" --exact "$name" </dev/null >/dev/null 2>&1
    echo $? >"$t/exit"
  done <"$d/run.$$"
fi
rm -f "$d/list.$$" "$d/run.$$" "$d/others.$$"
exit $status
""".replace("MAX", str(MAX_PASSING))

Lines = dict[str, set[int]]  # absolute source path -> the lines a run executed


@dataclass(frozen=True)
class Probe:
    """What the launcher's rustc and tools are: rustc's release and LLVM major (0: unknown),
    its host triple, whether its sysroot has the profiler runtime, and each llvm-profdata
    found as (path, LLVM major)."""

    release: str
    llvm: int
    host: str
    profiler: bool
    tools: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Run:
    """One test run alone: its binary's test name, whether it failed, the lines it ran."""

    name: str
    failed: bool
    lines: Lines


def probe_command() -> str:
    """The shell command (POSIX sh) printing `rustc -vV` (`$RUSTC` when set, as cargo does),
    whether its sysroot holds the profiler runtime, and each llvm-profdata candidate with its
    `--version`'s LLVM version (module docstring)."""
    return (
        'r=$("${RUSTC:-rustc}" -vV 2>/dev/null); printf "%s\\n" "$r"; '
        'm=$(printf "%s\\n" "$r" | sed -n "s/^LLVM version: \\([0-9]*\\).*/\\1/p"); '
        'h=$(printf "%s\\n" "$r" | sed -n "s/^host: //p"); '
        's=$("${RUSTC:-rustc}" --print sysroot 2>/dev/null); '
        f'echo "{PROFILER_MARK} $(ls "$s/lib/rustlib/$h/lib" 2>/dev/null | '
        'grep -c "^libprofiler_builtins")"; '
        'for p in "$(command -v "llvm-profdata-$m" 2>/dev/null)" '
        '"$s/lib/rustlib/$h/bin/llvm-profdata" "$(command -v llvm-profdata 2>/dev/null)"; do '
        '[ -n "$p" ] && [ -x "$p" ] && '
        f'echo "{TOOL_MARK} $("$p" --version 2>&1 | grep -o "LLVM version [0-9]*" | head -n 1)'
        ' $p"; done; true'
    )


def parse_probe(output: str) -> Probe:
    """The `Probe` from `probe_command`'s output (unknown fields empty or 0)."""
    release = host = ""
    llvm, profiler, tools = 0, False, []
    for line in output.splitlines():
        if line.startswith("release: "):
            release = line.removeprefix("release: ").strip()
        elif line.startswith("host: "):
            host = line.removeprefix("host: ").strip()
        elif line.startswith("LLVM version: "):
            match = LLVM_RE.match(line)
            llvm = int(match[1]) if match else 0
        elif line.startswith(PROFILER_MARK + " "):
            profiler = line.split()[-1] not in ("", "0")
        elif line.startswith(TOOL_MARK + " "):
            match = re.match(rf"{TOOL_MARK} LLVM version ([0-9]{{1,6}}) (/.+)$", line)
            if match:
                tools.append((match[2], int(match[1])))
    return Probe(release, llvm, host, profiler, tuple(dict.fromkeys(tools)))


def choose(probe: Probe) -> tuple[str, str] | str:
    """(llvm-profdata, llvm-cov beside it) of rustc's LLVM major, or why there is none: the
    note names rustc's release and LLVM, each candidate found and its LLVM, and what to
    install."""
    if not probe.release or not probe.llvm:
        return "no rustc answered `rustc -vV` with its LLVM version in the check's environment"
    if not probe.profiler:
        return (
            f"rustc {probe.release} was built without the profiler runtime (no "
            "profiler_builtins in its sysroot: Debian's rustc), so it cannot build with "
            "-C instrument-coverage; rustup's tool chains have it"
        )
    for path, major in probe.tools:
        if major == probe.llvm:
            return path, _cov_beside(path)
    found = ", ".join(f"{path} (LLVM {major})" for path, major in probe.tools) or "none"
    return (
        f"rustc {probe.release} uses LLVM {probe.llvm}, and no llvm-profdata of LLVM "
        f"{probe.llvm} is here to read its profiles (found: {found}; looked for "
        f"llvm-profdata-{probe.llvm} on PATH, rustup's llvm-tools, llvm-profdata): install "
        f"Debian's llvm-{probe.llvm} or `rustup component add llvm-tools`"
    )


def _cov_beside(profdata: str) -> str:
    """The llvm-cov of the same installation as `profdata`: `llvm-profdata-22` ->
    `llvm-cov-22`, `llvm-profdata` -> `llvm-cov`, in the same folder."""
    path = Path(profdata)
    return str(path.with_name(path.name.replace("llvm-profdata", "llvm-cov", 1)))


def runner_variable(host: str) -> str:
    """cargo's environment variable naming the runner of `host`'s binaries
    (`x86_64-unknown-linux-gnu` -> `CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER`)."""
    return "CARGO_TARGET_" + re.sub(r"[^A-Za-z0-9]", "_", host).upper() + "_RUNNER"


def instrumented(check: str) -> str:
    """`check` with `-C instrument-coverage` added to every RUSTFLAGS value it assigns itself
    (`RUSTFLAGS=-Dwarnings cargo test`, `export RUSTFLAGS=...`), which would otherwise replace
    the one `command` exports (`fixbot.process.assignments.assignment_ends`)."""
    out, last = [], 0
    for end in assignment_ends(check, "RUSTFLAGS"):
        out += [check[last:end], "' -C instrument-coverage'"]
        last = end
    return "".join([*out, check[last:]])


def command(check: str, failing: Sequence[str], host: str, tools: tuple[str, str]) -> str:
    """The shell command (POSIX sh) that runs `check` with coverage and fixbot's runner
    (module docstring), then prints, after `MARK`, the folder it ran in (`root`) and each
    test run alone: `TEST_MARK <exit> <name>` and the lcov `SF:`/`DA:` lines it ran (nonzero
    counts only). The check's own output is dropped. A failing test's name that libtest could
    not have printed (`NAME_OK`) is left out."""
    names = [t for t in dict.fromkeys(failing) if NAME_OK.fullmatch(t)]
    profdata, cov = (shlex.quote(t) for t in tools)
    listing = "".join(f"{name}\\n" for name in names)
    variable = runner_variable(host) if re.fullmatch(r"[A-Za-z0-9_.-]+", host) else ""
    runner = f'{variable}="$d/runner" && export {variable} && ' if variable else ""
    return (
        'd=$(mktemp -d) && mkdir "$d/t" "$d/stray" && chmod 755 "$d" && '
        f"printf '{listing}' >\"$d/failing\" && "
        f'printf \'%s\' {shlex.quote(RUNNER)} >"$d/runner" && chmod 755 "$d/runner" && '
        '(RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C instrument-coverage" && '
        'CARGO_TARGET_DIR="$d/target" && LLVM_PROFILE_FILE="$d/stray/%p-%m.profraw" && '
        'FIXBOT_RUST_COVERAGE="$d" && '
        "export RUSTFLAGS CARGO_TARGET_DIR LLVM_PROFILE_FILE FIXBOT_RUST_COVERAGE && "
        f"{runner}{instrumented(check)}) </dev/null >/dev/null 2>&1; "
        f'echo {MARK}; echo "root $PWD"; '
        'for t in "$d"/t/*; do [ -f "$t/exit" ] || continue; '
        f'if ! {profdata} merge -sparse "$t"/*.profraw -o "$t/p.profdata" 2>"$t/err"; then '
        f'echo "{MERGE_ERROR} $(head -c 300 "$t/err" | tr "\\n" " ")"; continue; fi; '
        f'echo "{TEST_MARK} $(cat "$t/exit") $(cat "$t/name")"; '
        f'{cov} export -format=lcov -instr-profile="$t/p.profdata" "$(cat "$t/bin")" '
        "2>/dev/null | grep -E '^(SF:|DA:[0-9]+,[1-9])'; done; "
        'rm -rf "$d"'
    )


def parse(output: str) -> tuple[str, list[Run], str]:
    """(the folder the check ran in, each test run alone, the first merge error or '') from
    `command`'s output."""
    _, marker, rest = output.partition(MARK)
    root, error, source = "", "", ""
    runs: list[Run] = []
    for line in rest.splitlines() if marker else ():
        head, _, tail = line.partition(" ")
        if head == "root" and not root:
            root = tail
        elif head == MERGE_ERROR:
            error = error or tail.strip()
        elif head == TEST_MARK:
            code, _, name = tail.partition(" ")
            runs.append(Run(name, code.strip() != "0", {}))
        elif runs:
            source = _lcov(runs[-1].lines, source, line)
    return root, runs, error


def _lcov(lines: Lines, source: str, line: str) -> str:
    """Add one lcov line to `lines` (`SF:` names the file that `DA:line,count` lines follow
    for); the file named now."""
    if line.startswith("SF:"):
        return line.removeprefix("SF:")
    number = line.removeprefix("DA:").partition(",")[0]
    if line.startswith("DA:") and source and LINE_NUMBER.fullmatch(number):
        lines.setdefault(source, set()).add(int(number))
    return source


def scores(runs: list[Run]) -> dict[str, dict[int, float]]:
    """Source path -> line -> Ochiai's coefficient of each line a failing run executed
    (`fixbot.agent.tracerank.ochiai` over these runs)."""
    total_failed = sum(run.failed for run in runs)
    counts: dict[tuple[str, int], list[int]] = {}
    for run in runs:
        for path, lines in run.lines.items():
            for line in lines:
                counts.setdefault((path, line), [0, 0])[0 if run.failed else 1] += 1
    found: dict[str, dict[int, float]] = {}
    for (path, line), (failed, passed) in counts.items():
        if failed:
            found.setdefault(path, {})[line] = ochiai(failed, passed, total_failed)
    return found


def rank(repo: Path, root: str, runs: list[Run], failing: Sequence[str] = ()) -> list[Span]:
    """The repository's non-test functions holding the lines the failing runs executed, best
    first (a function scores its best line; ties in the order of `rustcalls.spans` from the
    failing tests `failing`, then by path and line), at most `MAX_SPANS`; the source paths
    are made relative to the folder the check ran in (`root`) or `repo`, files outside the
    repository left out."""
    by_file = scores(_in_repository(repo, root, runs))
    spans = [span for rel, lines in by_file.items() for span in _spans(repo, rel, lines)]
    called = {(s.path, s.start): k for k, s in enumerate(rustcalls.spans(repo, list(failing)))}
    spans.sort(
        key=lambda s: (-s.score, called.get((s.path, s.start), len(called)), s.path, s.start)
    )
    return spans[:MAX_SPANS]


def executed(repo: Path, root: str, runs: list[Run]) -> dict[str, frozenset[int]]:
    """Repository-relative path -> the lines the failing runs executed (`_in_repository`;
    `fixbot.agent.locate.Ranked`'s `executed`), test code inside a source file included."""
    found: dict[str, set[int]] = {}
    for run in _in_repository(repo, root, [run for run in runs if run.failed]):
        for rel, lines in run.lines.items():
            found.setdefault(rel, set()).update(lines)
    return {rel: frozenset(lines) for rel, lines in found.items()}


def _in_repository(repo: Path, root: str, runs: list[Run]) -> list[Run]:
    """`runs` with their source paths made relative to the repository (`_relative`: one file
    under two spellings is one), files outside it left out."""
    found = []
    for run in runs:
        lines: Lines = {}
        for path, numbers in run.lines.items():
            rel = _relative(repo, root, path)
            if rel is not None:
                lines.setdefault(rel, set()).update(numbers)
        found.append(Run(run.name, run.failed, lines))
    return found


def _relative(repo: Path, root: str, path: str) -> str | None:
    """`path` (lcov's `SF:`, absolute or relative to the folder the check ran in, `root`)
    relative to the repository, None outside it or when it is not a file."""
    base = repo.resolve()
    for folder in (Path(root), repo) if root else (repo,):
        full, top = resolved(folder / path), resolved(folder)
        # the check may have run in the launcher's copy of the repository: the same relative path
        if full is not None and top is not None and full.is_relative_to(top):
            candidate = resolved(base / full.relative_to(top))
            if candidate is not None and candidate.is_relative_to(base) and candidate.is_file():
                return candidate.relative_to(base).as_posix()
    return None


def _spans(repo: Path, rel: str, lines: dict[int, float]) -> list[Span]:
    """The non-test functions of the file `rel` holding any of its scored `lines` (line ->
    score), each scored by its best line and focused on the lines of that score."""
    spans = []
    for name, start, end, test in rustcalls.functions(repo, rel):
        inside = {n: v for n, v in lines.items() if start <= n <= end}
        if inside and not test:
            best = max(inside.values())
            focus = tuple(sorted(n for n, v in inside.items() if v >= best - 1e-9))
            spans.append(Span(rel, start, end, name, best, focus[:MAX_FOCUS]))
    return spans


def suspects(
    launcher: Launcher, repo: Path, check: str, failing: list[str], timeout: float
) -> tuple[list[Span], str | None]:
    """The crate's functions ranked by the failing tests' spectrum (module docstring), through
    `launcher` in `repo` (seconds of `timeout` for each of its two commands): (spans, None), or
    ([], why not) for the spectrum's note."""
    if not failing:
        return [], "no failing Rust test named in the check's output (a build or lint failure)"
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        log = Path(tmp) / "spectrum.log"
        launcher.run(probe_command(), repo, log, timeout)
        probe = parse_probe(log.read_text(encoding="utf-8", errors="replace"))
        tools = choose(probe)
        if isinstance(tools, str):
            return [], tools
        done = launcher.run(command(check, failing, probe.host, tools), repo, log, timeout)
        root, runs, error = parse(log.read_text(encoding="utf-8", errors="replace"))
    if error and not runs:
        return [], f"{tools[0]} could not read the test binaries' profiles: {error}"
    if not runs:
        return [], (
            "no test ran alone under -C instrument-coverage: the check's build failed with it, "
            "or cargo ran no test binary of the host through fixbot's runner (a --target "
            f"check), or none lists a failing test by its name (exit {done.exit_code})"
        )
    if not any(run.failed for run in runs):
        return [], f"the failing tests passed when run alone ({len(runs)} tests run alone)"
    found = rank(repo, root, runs, failing)
    if not found:
        return [], f"no function of the crate ran under a failing test (exit {done.exit_code})"
    return Ranked(found, executed(repo, root, runs)), None
