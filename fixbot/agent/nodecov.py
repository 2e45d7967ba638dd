"""The functions a failing node check runs, from V8's own coverage: no install needed.

Node writes V8's precise coverage as JSON into the folder named by `NODE_V8_COVERAGE` when each
of its processes exits (https://nodejs.org/api/cli.html#node_v8_coveragedir): per script, its
functions with byte ranges and call counts, and the blocks inside them with their own counts
(V8's block coverage: a count of 0 is a branch no test took). A node-based check (tape, mocha,
`npm test`) is re-run once with that variable set, through the run's launcher; node itself then
prints the scripts of the repository (not `node_modules`) after a marker line, which is what
crosses back in the log. A script the runner transformed before running it (jest's babel-jest,
vitest's TypeScript and ESM transforms) has offsets into the transformed code, not the file: such
a script is left out (`ran_as_on_disk`), its test ids and tracebacks remain.

So a check that starts jest or vitest by name (`runner`: `jest ...`, `npx vitest run ...`, or
`npm test` whose script is one plain jest or vitest command) is asked for the runner's own V8
coverage instead (`RUNNER_OPTIONS`), which the runner maps back to the files' lines through its
transforms' source maps and writes as istanbul's JSON (`runner_command`, `parse_report`,
`rank_lines`). jest ships it; vitest's needs the project's `@vitest/coverage-v8`, and without it
the check is not re-run (fixbot installs nothing into the project): `parse_report` says so, and
the spectrum's note names the package.

A check is one process over one or more test files, so there is no per-test spectrum here: a
function holding a line the output points at (a failing test's stack trace passing through the
repository's code) ranks first, focused on that line (`_pointed_first`); the others are ranked
by their file's nearness to the failing test files (the same stem, as
`test/parse.js` and `lib/parse.js`; a file the test `require`s or imports; any other executed
file), then by its size (a small function the test reached says more than the module's whole
body). A long function is shown around its least-run executed blocks (`Span.focus`): the paths
the failing tests took that the others rarely did.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from fixbot.agent.locate import MAX_SPAN_LINES, Span
from fixbot.process.shellwords import word_ends

MARK = "fixbot-v8-coverage-json-follows"
MAX_SPANS = 12
MAX_FOCUS = 10  # blocks a long function is shown around: the `RARE` least run, the last ones
RARE = 6
POINTED = 2.0  # the score of a run function holding a line the output points at (above nearness)
JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".jsx", ".tsx")
JS_TEST = re.compile(r"(^|/)(tests?|__tests__|spec)/|[._-](test|spec)\.[cm]?[jt]sx?$")
REQUIRE = re.compile(r"""(?:require\s*\(|from\s+|import\s*\(?)\s*['"](\.{1,2}(?:/[^'"]*)?)['"]""")
# The programs that start a runner named by the word after them (`npx jest`, `yarn vitest`).
RUNNER_LAUNCHERS = ("npx", "yarn", "pnpm", "bunx", "exec", "dlx")
# Each test runner's own coverage, by V8 and mapped back to the files on disk (its transforms'
# source maps), as istanbul's `coverage-final.json` in the folder "$fixbot_cov":
# https://jestjs.io/docs/cli#--coverageproviderprovider and https://vitest.dev/config/#coverage
# (vitest's needs its `@vitest/coverage-v8` package, which fixbot does not install).
RUNNER_OPTIONS = {
    "jest": (
        "--coverage --coverageProvider=v8 --coverageReporters=json "
        '--coverageDirectory="$fixbot_cov"'
    ),
    "vitest": (
        "--coverage.enabled=true --coverage.provider=v8 --coverage.reporter=json "
        '--coverage.reportsDirectory="$fixbot_cov"'
    ),
}
VITEST_PROVIDER = "@vitest/coverage-v8"
# Whether a package is installed where node would look for it from the working folder (its
# `node_modules` folders upward, NODE_PATH, the global folders: `require.resolve.paths`), read on
# disk: resolving it would fail for an ESM-only package whose `exports` has no `require`.
INSTALLED = (
    "const {existsSync} = require('fs'), {join} = require('path');\n"
    f"const installed = (require.resolve.paths('{VITEST_PROVIDER}') || []).some(\n"
    f"  dir => existsSync(join(dir, '{VITEST_PROVIDER}', 'package.json')));\n"
)

# Runs under the project's node after the check: the repository's scripts of every coverage
# file, as {path relative to the working folder: [[name, [[start, end, count], ...]], ...]}.
PRINT = r"""
const fs = require("fs"), path = require("path");
const dir = process.argv[1], root = require("url").pathToFileURL(process.cwd()).href + "/";
const out = {};
for (const name of fs.readdirSync(dir)) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
  } catch (e) { continue; }
  for (const script of report.result || []) {
    const url = script.url || "";
    if (!url.startsWith(root) || url.includes("/node_modules/")) continue;
    const rel = decodeURIComponent(url.slice(root.length));
    const fns = script.functions.map(
      f => [f.functionName, f.ranges.map(r => [r.startOffset, r.endOffset, r.count])]);
    (out[rel] = out[rel] || []).push(...fns);
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
"""

# Runs under the project's node after a jest or vitest check: its istanbul report
# (https://github.com/istanbuljs/istanbuljs/blob/main/docs/raw-output.md) cut to the repository's
# scripts, as {"provider": whether the runner's coverage package resolves, "files": {path
# relative to the working folder: {"functions": [[name, first line, last line, count], ...],
# "blocks": [[first line, last line, count], ...]}}}; argv: the report's folder, the runner.
PRINT_REPORT = r"""
const fs = require("fs"), path = require("path");
const [dir, runner] = process.argv.slice(1), root = process.cwd() + path.sep;
%s
const provider = runner !== "vitest" || installed;
let report = {};
try {
  report = JSON.parse(fs.readFileSync(path.join(dir, "coverage-final.json"), "utf8"));
} catch (e) {}
const files = {};
for (const [name, data] of Object.entries(report)) {
  const file = data.path || name;
  if (!file.startsWith(root) || file.includes("/node_modules/")) continue;
  const lines = loc => [loc.start.line, loc.end.line];
  const functions = Object.entries(data.fnMap || {}).map(
    ([id, fn]) => [fn.name || "", ...lines(fn.loc || fn.decl), (data.f || {})[id] || 0]);
  const blocks = [];
  for (const [id, branch] of Object.entries(data.branchMap || {})) {
    (branch.locations || []).forEach(
      (loc, i) => blocks.push([...lines(loc), ((data.b || {})[id] || [])[i] || 0]));
  }
  files[file.slice(root.length)] = {functions, blocks};
}
process.stdout.write(JSON.stringify({provider, files}) + "\n");
""".replace("%s", INSTALLED)


@dataclass(frozen=True)
class Function:
    """One function V8 saw in a script: its `name` ('' for an anonymous one) and `ranges`,
    (start offset, end offset, count) in characters, the first the whole function, the others
    its blocks."""

    name: str
    ranges: tuple[tuple[int, int, int], ...]


def command(check: str) -> str:
    """The shell command that re-runs `check` with V8 coverage into a temporary folder and
    prints the repository's scripts after `MARK` (node missing: nothing after it)."""
    script = shlex.quote(PRINT)
    return (
        "d=$(mktemp -d) && "
        f'(NODE_V8_COVERAGE="$d" && export NODE_V8_COVERAGE && {check}) >/dev/null 2>&1; '
        f"echo {MARK}; "
        f'command -v node >/dev/null && node -e {script} "$d"; '
        'rm -rf "$d"'
    )


def parse(output: str) -> dict[str, list[Function]]:
    """path -> the functions V8 recorded in it, from the command's output ({} when the report
    is missing or cut)."""
    _, marker, rest = output.partition(MARK)
    start = rest.find("{")
    if not marker or start < 0:
        return {}
    try:
        report, _ = json.JSONDecoder().raw_decode(rest[start:])
    except json.JSONDecodeError:
        return {}
    found: dict[str, list[Function]] = {}
    for path, functions in report.items() if isinstance(report, dict) else []:
        found[path] = [
            Function(str(name), tuple((int(a), int(b), int(c)) for a, b, c in ranges))
            for name, ranges in functions
            if ranges
        ]
    return found


def runner(check: str, repo: Path | None = None) -> tuple[str, int, str] | None:
    """The test runner whose own coverage `check` can be asked for: ("jest" or "vitest", the
    offset in `check` its options go at, what goes before them), or None (another runner, a
    script: V8's coverage through `command` instead). The options go past the runner's word
    (and vitest's `run`); for `npm test` or `npm run NAME` alone (`--prefix DIR` allowed), whose
    script in `repo`'s package.json is one plain jest or vitest command, at the end after `--`
    (npm hands what follows it to the script: https://docs.npmjs.com/cli/commands/npm-run-script)."""
    words = word_ends(check)
    for i, (word, end, program) in enumerate(words):
        name = PurePosixPath(word).name
        launched = i > 0 and words[i - 1][0] in RUNNER_LAUNCHERS
        if name in RUNNER_OPTIONS and (program or launched):
            if name == "vitest" and i + 1 < len(words) and words[i + 1][0] == "run":
                end = words[i + 1][1]
            return name, end, ""
    script = _npm_script(repo, [w for w, _, _ in words]) if repo is not None else None
    found = runner(script) if script else None
    if script is None or found is None or sum(p for _, _, p in word_ends(script)) != 1:
        return None
    return found[0], len(check.rstrip()), "-- "


def _npm_script(repo: Path, words: list[str]) -> str | None:
    """The package.json script `npm test` or `npm run NAME` (the whole of `words`, maybe with
    `--prefix DIR`) runs, None for any other command or a script that cannot be read."""
    folder = "."
    if "--prefix" in words[:-1]:
        at = words.index("--prefix")
        folder, words = words[at + 1], words[:at] + words[at + 2 :]
    if words in (["npm", "test"], ["npm", "t"]):
        name = "test"
    elif len(words) == 3 and words[:2] in (["npm", "run"], ["npm", "run-script"]):
        name = words[2]
    else:
        return None
    try:
        scripts = json.loads((repo / folder / "package.json").read_text(encoding="utf-8"))
        script = scripts["scripts"][name]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return script if isinstance(script, str) else None


def runner_command(check: str, found: tuple[str, int, str]) -> str:
    """The shell command that re-runs `check` with its runner's own coverage (`RUNNER_OPTIONS`
    added where `runner` found) and prints the repository's part of the report after `MARK`
    (`PRINT_REPORT`). A vitest without its coverage package is not re-run: the report then says
    `provider` false."""
    name, at, lead = found
    covered = f"{check[:at]} {lead}{RUNNER_OPTIONS[name]}{check[at:]}"
    run = f"({covered}) </dev/null >/dev/null 2>&1"
    if name == "vitest":
        probe = shlex.quote(INSTALLED + "process.exit(installed ? 0 : 1);")
        run = f"if node -e {probe} >/dev/null 2>&1; then {run}; fi"
    return (
        "fixbot_cov=$(mktemp -d) && export fixbot_cov && "
        f"{run}; echo {MARK}; "
        f'command -v node >/dev/null && node -e {shlex.quote(PRINT_REPORT)} "$fixbot_cov" {name}; '
        'rm -rf "$fixbot_cov"'
    )


@dataclass(frozen=True)
class Lines:
    """One script of a runner's report: its `functions` (name, first line, last line, count)
    and `blocks` (first line, last line, count), lines 1-based in the file on disk."""

    functions: tuple[tuple[str, int, int, int], ...]
    blocks: tuple[tuple[int, int, int], ...]


def parse_report(output: str) -> tuple[bool, dict[str, Lines]]:
    """(whether the runner's coverage package resolved, path -> its `Lines`) from
    `runner_command`'s output; (True, {}) when the report is missing, cut or malformed."""
    _, marker, rest = output.partition(MARK)
    start = rest.find("{")
    try:
        report, _ = (
            json.JSONDecoder().raw_decode(rest[start:]) if marker and start >= 0 else ({}, 0)
        )
        files = report.get("files") or {}
        found = {
            str(path): Lines(
                tuple((str(n), int(a), int(b), int(c)) for n, a, b, c in data["functions"]),
                tuple((int(a), int(b), int(c)) for a, b, c in data["blocks"]),
            )
            for path, data in files.items()
        }
    except (json.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return True, {}
    return report.get("provider") is not False, found


def rank_lines(
    repo: Path,
    coverage: dict[str, Lines],
    tests: list[str],
    pointed: Sequence[tuple[str, int]] = (),
) -> list[Span]:
    """`rank` for a runner's report: its executed functions of the repository's non-test
    scripts, best first, at most `MAX_SPANS`, each focused on its least-run blocks."""
    required = {r for t in tests for r in _required(repo, t)}
    root = repo.resolve()
    found: list[Span] = []
    for path, lines in coverage.items():
        inside = (root / path).resolve().is_relative_to(root)
        if JS_TEST.search(path) or not inside or not (repo / path).is_file():
            continue
        near = nearness(path, tests, required)
        for name, first, last, count in lines.functions:
            if count == 0:  # istanbul's functions are the script's own, its top level is none
                continue
            blocks = [
                (c, a, b)
                for a, b, c in lines.blocks
                if first <= a and b <= last and (a, b) != (first, last)
            ]
            found.append(Span(path, first, last, name or "(anonymous)", near, _focus_lines(blocks)))
    return _best(_pointed_first(found, pointed))


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
    """The first `MAX_SPANS` of `spans` by score, then the smaller first, nested ones dropped."""
    spans = sorted(spans, key=lambda s: (-s.score, s.end - s.start, s.path, s.start))
    return _nested_dropped(spans)[:MAX_SPANS]


def test_files(repo: Path, check: str, located: list[str]) -> list[str]:
    """The failing test files: the JavaScript files the check names, else the test files of the
    output's `path:line`s (repository-relative)."""
    try:
        words = shlex.split(check)
    except ValueError:
        words = []
    named = [w for w in words if w.endswith(JS_SUFFIXES) and (repo / w).is_file()]
    return list(dict.fromkeys(named or [p for p in located if JS_TEST.search(p)]))


def _required(repo: Path, test: str) -> set[str]:
    """The repository files `test` requires or imports by a relative path."""
    try:
        text = (repo / test).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    found = set()
    for spec in REQUIRE.findall(text):
        base = (repo / test).parent / spec
        candidates = [base, *(base.with_name(base.name + s) for s in JS_SUFFIXES)]
        candidates += [base / f"index{s}" for s in JS_SUFFIXES] + [_main(base)]
        for path in candidates:
            if path.is_file() and path.resolve().is_relative_to(repo.resolve()):
                found.add(path.resolve().relative_to(repo.resolve()).as_posix())
                break
    return found


def _main(folder: Path) -> Path:
    """The `main` file of the package in `folder` (package.json), else `folder/index.js`."""
    try:
        main = json.loads((folder / "package.json").read_text(encoding="utf-8")).get("main")
    except (OSError, ValueError, AttributeError):
        main = None
    return folder / (main if isinstance(main, str) and main else "index.js")


def nearness(path: str, tests: list[str], required: set[str]) -> float:
    """How near `path` is to the failing test files: 1 the same stem, 0.8 required by one, 0.5
    any other file the check ran."""
    stem = PurePosixPath(path).stem
    if any(PurePosixPath(t).stem == stem for t in tests):
        return 1.0
    return 0.8 if path in required else 0.5


def _line_of(starts: list[int], offset: int) -> int:
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
) -> list[Span]:
    """The executed functions of the repository's non-test scripts, best first (those holding a
    line the output points at, `pointed`, then nearness, then the smaller first), at most
    `MAX_SPANS`; a script's top level (the whole file) is left out."""
    required = {r for t in tests for r in _required(repo, t)}
    root = repo.resolve()
    found: list[Span] = []
    for path, functions in coverage.items():
        # The report crosses back from the project's command: only files inside the repository.
        inside = (root / path).resolve().is_relative_to(root)
        if JS_TEST.search(path) or not inside or not (repo / path).is_file():
            continue
        text = (repo / path).read_text(encoding="utf-8", errors="replace")
        if ran_as_on_disk(text, functions):
            found += _executed(path, text, functions, nearness(path, tests, required))
    return _best(_pointed_first(found, pointed))


def transformed(repo: Path, coverage: dict[str, list[Function]]) -> list[str]:
    """The repository's scripts in `coverage` that V8 ran transformed (`ran_as_on_disk` false),
    sorted: why a check that ran the repository's code ranks none of it."""
    root = repo.resolve()
    found = []
    for path, functions in coverage.items():
        file = root / path
        if file.resolve().is_relative_to(root) and file.is_file():
            text = file.read_text(encoding="utf-8", errors="replace")
            if not ran_as_on_disk(text, functions):
                found.append(path)
    return sorted(found)


def ran_as_on_disk(text: str, functions: list[Function]) -> bool:
    """Whether V8 ran the script as `text` reads: its top level (the function at offset 0) ends
    where the text does, and no range goes past it. A test runner that transforms code before
    running it (jest's babel-jest, with or without its coverage instrumentation; a TypeScript
    compiler) reports offsets into its own output, which name no line of the file on disk.

    V8 counts offsets in UTF-16 code units; node strips a leading byte-order mark, so the top
    level may end one unit short."""
    length = len(text.encode("utf-16-le")) // 2
    ends = [end for fn in functions for _, end, _ in fn.ranges]
    tops = [fn.ranges[0][1] for fn in functions if fn.ranges[0][0] == 0]
    return bool(tops) and all(length - 1 <= top <= length for top in tops) and max(ends) <= length


def _executed(path: str, text: str, functions: list[Function], near: float) -> list[Span]:
    """The spans of the executed `functions` of the script `path` (its `text`), scored `near`;
    the script's top level (a function covering the whole text) left out."""
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    found = []
    for fn in functions:
        start, end, count = fn.ranges[0]
        if count == 0 or (start == 0 and end >= len(text) - 1):
            continue
        first, last = _line_of(starts, start), _line_of(starts, max(start, end - 1))
        found.append(Span(path, first, last, fn.name or "(anonymous)", near, _focus(fn, starts)))
    return found


def _focus(fn: Function, starts: list[int]) -> tuple[int, ...]:
    """The focus lines (`_focus_lines`) of the V8 function `fn`, its offsets made lines."""
    return _focus_lines(
        [(c, _line_of(starts, a), _line_of(starts, max(a, b - 1))) for a, b, c in fn.ranges[1:]]
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
