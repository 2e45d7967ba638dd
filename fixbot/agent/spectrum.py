"""Spectrum-based fault localization: rank the source lines the failing tests execute against
those the passing tests execute, by Ochiai's coefficient.

    ochiai(s) = failed(s) / sqrt(total_failed * (failed(s) + passed(s)))

where failed(s) and passed(s) count the failing and passing tests that executed line s (Abreu,
Zoeteweij, van Gemund, "On the accuracy of spectrum-based fault localization", TAICPART 2007).

The spectra of a Python project come from fixbot's line tracer (`fixbot.agent.linetrace`,
standard library only): the check runs once more, unchanged, through the run's launcher, with a
folder of fixbot's holding the tracer as `sitecustomize.py` first on PYTHONPATH (`command`).
Every Python process the check starts (pytest or unittest, under `python -m`, after `cd` or a
variable assignment, inside tox or nox) imports it with the project's own interpreter, any
CPython from 3.8, and writes which lines each test ran (the `test_function` contexts of
coverage.py: https://coverage.readthedocs.io/en/latest/contexts.html); the reports cross back in
the log, after a marker line. A check that sets PYTHONPATH itself gets the folder added to its
value (`fixbot.process.shellwords.assignment_ends`); tox, which passes no variable it is not
told to, is told through `TOX_OVERRIDE`. A node project's check runs under V8's coverage
instead (`fixbot.agent.nodecov`; a jest or vitest check under the runner's own,
`fixbot.agent.runnercov`), a Go module's under `go test`'s cover profiles
(`fixbot.agent.gocov`), a Rust project's under rustc's `-C instrument-coverage`, test by test
(`fixbot.agent.rustcov`). When the spectrum cannot run, `suspects` says why (the report's notes
and the bench show it).

`rank` turns the lines into the enclosing functions of the repository's non-test files, best
first, as `fixbot.agent.locate.Span`s that `fixbot.agent.context` shows in the first request.
"""

from __future__ import annotations

import ast
import json
import math
import shlex
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from fixbot.agent import gocov, nodecov, runnercov, rustcov
from fixbot.agent.locate import LINE_NUMBER, TEST_FILE, Span
from fixbot.core.repofiles import regular_text, resolved
from fixbot.process.launcher import Launcher
from fixbot.process.shellwords import assignment_ends

MARK = "fixbot-spectrum-json-follows"
NO_PROVIDER = f"vitest's own coverage needs the {runnercov.VITEST_PROVIDER} package"
SKIPPED = "coverage spectrum skipped: "  # the note's start in the report (and the bench's)
MAX_SPANS = 12
MAX_FOCUS = 6  # the most suspicious lines a long function is shown around
TRACER = Path(__file__).with_name("linetrace.py")
# What marks a Python project in its repository's root (or one folder down: `cd sub && ...`).
PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py")
# tox passes on only the variables it is told to (https://tox.wiki/en/latest/config.html#pass_env);
# `TOX_OVERRIDE` adds to its configuration (tox 4.?+; an older tox ignores it).
TOX_OVERRIDE = "testenv.pass_env+=PYTHONPATH,PYTEST_PLUGINS,FIXBOT_TRACE_OUT,FIXBOT_TRACE_ROOT"
# pytest loads the modules `PYTEST_PLUGINS` names (https://docs.pytest.org/en/stable/how-to/plugins.html):
# this one arms the tracer again before each test (`fixbot.agent.linetrace`'s docstring).
PLUGIN = "fixbot_linetrace_plugin"
PLUGIN_TEXT = """\
import sys

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    tracer = sys.modules.get("fixbot_linetrace")
    if tracer is not None:
        tracer.rearm(getattr(item, "name", ""))
"""


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    """Ochiai's coefficient of a line run by `failed` failing and `passed` passing tests."""
    if not failed or not total_failed:
        return 0.0
    return failed / math.sqrt(total_failed * (failed + passed))


def python_project(repo: Path, failing: Sequence[str] = ()) -> bool:
    """Whether `repo` is a Python project: a marker file (`PYTHON_MARKERS`) or a `.py` file in
    its root or a folder just below, or a failing test id naming a `.py` file (pytest's)."""
    if any(t.partition("::")[0].endswith(".py") for t in failing):
        return True
    folders = [repo, *(p for p in repo.iterdir() if p.is_dir() and not p.name.startswith("."))]
    return any((folder / name).is_file() for folder in folders for name in PYTHON_MARKERS) or any(
        next(folder.glob("*.py"), None) for folder in folders
    )


def node_project(repo: Path, located: Sequence[str] = ()) -> bool:
    """Whether `repo` is a node project: a package.json in its root, or in a folder above one
    of the output's repository-relative paths `located` (a monorepo's package)."""
    if (repo / "package.json").is_file():
        return True
    for path in located:
        for folder in PurePosixPath(path).parents:
            if (
                folder.parts
                and ".." not in folder.parts
                and (repo / folder / "package.json").is_file()
            ):
                return True
    return False


def traced(check: str, shim: Path) -> str:
    """`check` with `shim` added to every PYTHONPATH value it assigns itself (`PYTHONPATH=src
    pytest`, `export PYTHONPATH=...`), so that its Python processes still find the tracer."""
    ends = assignment_ends(check, "PYTHONPATH")
    out, last = [], 0
    for end in ends:
        out += [check[last:end], ":" + shlex.quote(str(shim))]
        last = end
    return "".join([*out, check[last:]])


def command(check: str, shim: Path) -> str:
    """The shell command that runs `check` with the tracer of `shim` loaded into its Python
    processes and prints their reports after `MARK` (the check's own output is dropped)."""
    folder = shlex.quote(str(shim))
    return (
        'd=$(mktemp -d) && FIXBOT_TRACE_OUT="$d" && FIXBOT_TRACE_ROOT="$PWD" && '
        f"PYTHONPATH={folder}${{PYTHONPATH:+:$PYTHONPATH}} && "
        f"PYTEST_PLUGINS={PLUGIN}${{PYTEST_PLUGINS:+,$PYTEST_PLUGINS}} && "
        f"TOX_OVERRIDE={shlex.quote(TOX_OVERRIDE)} && "
        "export FIXBOT_TRACE_OUT FIXBOT_TRACE_ROOT PYTHONPATH PYTEST_PLUGINS TOX_OVERRIDE && "
        f"({traced(check, shim)}) </dev/null >/dev/null 2>&1; "
        f"echo {MARK}; "
        'for f in "$d"/*.json; do [ -f "$f" ] && cat "$f" && echo; done; '
        'rm -rf "$d"'
    )


def make_shim(folder: Path) -> Path:
    """`folder` holding fixbot's tracer as `sitecustomize.py`, readable by anyone (the commands
    may run as another user)."""
    folder.chmod(0o755)
    for name, text in (
        ("sitecustomize.py", TRACER.read_text(encoding="utf-8")),
        (f"{PLUGIN}.py", PLUGIN_TEXT),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        (folder / name).chmod(0o644)
    return folder


def parse(output: str, field: str = "contexts") -> dict[str, dict[int, list[str]]]:
    """path -> line -> the contexts (tests) that ran it, merged from every report after `MARK`
    (one per traced process); {} when there is none. A report cut short ends the reading. With
    `field` "raised": the lines an exception passed through, by test (`fixbot.agent.linetrace`)."""
    merged: dict[str, dict[int, set[str]]] = {}
    for report in reports(output)[0]:
        _merge(merged, report, field)
    return {path: {n: sorted(c) for n, c in lines.items()} for path, lines in merged.items()}


def reports(output: str) -> tuple[list[object], bool]:
    """The JSON values after `MARK` in `output`, and whether one was cut short (unreadable)."""
    _, marker, rest = output.partition(MARK)
    if not marker:
        return [], False
    found: list[object] = []
    decoder, at = json.JSONDecoder(), rest.find("{")
    while at >= 0:
        try:
            report, end = decoder.raw_decode(rest, at)
        except (ValueError, RecursionError):  # cut short, or nested deeper than Python's stack
            return found, True
        found.append(report)
        at = rest.find("{", end)
    return found, False


def _merge(merged: dict[str, dict[int, set[str]]], report: object, field: str) -> None:
    """Add one report's lines of `field` to `merged`: contexts by name (coverage.py's shape) or
    by index into its `"tests"` (the tracer's); anything malformed is skipped."""
    if not isinstance(report, dict):
        return
    names = report.get("tests")
    for path, data in _as_dict(report.get("files")).items():
        lines = merged.setdefault(str(path), {})
        for n, ctx in _as_dict(_as_dict(data).get(field)).items():
            tests = [_test_name(c, names) for c in (ctx if isinstance(ctx, list) else ())]
            if LINE_NUMBER.fullmatch(str(n)) and any(tests):
                lines.setdefault(int(n), set()).update(t for t in tests if t)


def _as_dict(value: object) -> dict[Any, Any]:
    """`value` when it is a dict, else an empty one (a report's fields are not trusted)."""
    return value if isinstance(value, dict) else {}


def _test_name(context: object, names: object) -> str | None:
    """A line's context as a test's name: the name itself (coverage.py) or an index into the
    report's `names` (the tracer's); None when malformed or empty."""
    if isinstance(names, list) and isinstance(context, int) and 0 <= context < len(names):
        context = names[context]
    return context if isinstance(context, str) and context else None


def _failing(context: str, failing: Iterable[str]) -> bool:
    """Whether the context `context` (`module.Class.test`, `module.test[param]`) is one of the
    failing test ids: pytest's `path::Class::test[param]` or unittest's `module.Class.test`.
    When both name a parametrization they must name the same one (a parameter set that passed
    is a passing test; an id cut short, without its `]`, names the ones it starts); when either
    has none, the function's name decides."""
    return any(_names(context, test) for test in failing)


def _names(context: str, test: str) -> bool:
    """Whether the context `context` is the failing test id `test` (see `_failing`)."""
    if "::" not in test:  # unittest: the same dotted name, maybe from another folder
        return context == test or context.endswith("." + test)
    dotted, bracket, params = context.partition("[")
    path, _, rest = test.partition("::")
    head, test_bracket, test_params = rest.partition("[")  # a parameter may hold `::`
    name = head.rsplit("::", 1)[-1]
    if bracket and test_bracket and not _same_parameters(params, test_params):
        return False
    return bool(name) and dotted.endswith("." + name) and PurePosixPath(path).stem in dotted


def _same_parameters(params: str, test_params: str) -> bool:
    """Whether a context's parameter set `params` is the failing id's `test_params`, or starts
    with it where the id was cut at a space inside its parametrization (`test_unit[1`)."""
    cut = not test_params.endswith("]") and params.startswith(test_params)
    return params == test_params or cut


def scores(
    spectra: dict[str, dict[int, list[str]]],
    failing: list[str],
    raised: dict[str, dict[int, list[str]]] | None = None,
) -> dict[tuple[str, int], float]:
    """(path, line) -> Ochiai of every line of a non-test file a failing test ran, plus, for a
    line an exception passed through under a failing test (`raised`), the Ochiai of that: of
    the lines the failing tests alone ran, those their run unwound through come first."""
    contexts = {c for lines in spectra.values() for ctx in lines.values() for c in ctx}
    bad = {c for c in contexts if _failing(c, failing)}
    found: dict[tuple[str, int], float] = {}
    for path, lines in spectra.items():
        if not TEST_FILE.search(path):
            found |= {(path, line): value for line, value in _line_scores(lines, bad).items()}
    _add_raised(found, raised or {}, bad)
    return found


def _add_raised(
    found: dict[tuple[str, int], float], raised: dict[str, dict[int, list[str]]], bad: set[str]
) -> None:
    """Add to each line of `found` the Ochiai of an exception passing through it under the
    failing tests (`bad`); a line `found` lacks gains nothing."""
    for path, lines in raised.items():
        for line, value in _line_scores(lines, bad).items():
            if (path, line) in found:
                found[path, line] += value


def _line_scores(lines: dict[int, list[str]], bad: set[str]) -> dict[int, float]:
    """line -> Ochiai of each line of one file that a failing test (a context in `bad`) ran."""
    found = {}
    for line, ctx in lines.items():
        failed = sum(1 for c in ctx if c in bad)
        if failed:
            found[line] = ochiai(failed, len(ctx) - failed, len(bad))
    return found


def _enclosing(repo: Path, path: str, lines: list[int]) -> dict[int, tuple[int, int, str]]:
    try:
        tree = ast.parse(regular_text(repo, repo / path) or "")
    except (SyntaxError, ValueError):
        return {}
    kinds = ast.FunctionDef | ast.AsyncFunctionDef
    spans = [
        (n.lineno, n.end_lineno or n.lineno, n.name) for n in ast.walk(tree) if isinstance(n, kinds)
    ]
    found = {}
    for line in lines:
        inside = [s for s in spans if s[0] <= line <= s[1]]
        if inside:
            found[line] = min(inside, key=lambda s: s[1] - s[0])  # the innermost function
    return found


def rank(
    repo: Path,
    spectra: dict[str, dict[int, list[str]]],
    failing: list[str],
    raised: dict[str, dict[int, list[str]]] | None = None,
) -> list[Span]:
    """The functions holding the most suspicious lines (`scores`), best first (a function
    scores its best line), at most `MAX_SPANS`; paths made relative to `repo`, files outside it
    left out."""
    by_file: dict[str, dict[int, float]] = {}
    root = repo.resolve()
    for (path, line), value in scores(spectra, failing, raised).items():
        full = resolved(root / path)
        if full is not None and full.is_relative_to(root):
            by_file.setdefault(full.relative_to(root).as_posix(), {})[line] = value
    best: dict[tuple[str, int, int, str], float] = {}
    inside: dict[tuple[str, int, int, str], list[tuple[float, int]]] = {}
    for rel, lines in by_file.items():
        for line, (start, end, name) in _enclosing(repo, rel, list(lines)).items():
            key = (rel, start, end, name)
            best[key] = max(best.get(key, 0.0), lines[line])
            inside.setdefault(key, []).append((-lines[line], line))
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0][0], item[0][1]))
    return [
        Span(p, s, e, n, v, _focus(inside[(p, s, e, n)], v))
        for (p, s, e, n), v in ranked[:MAX_SPANS]
    ]


def _focus(lines: list[tuple[float, int]], best: float) -> tuple[int, ...]:
    """The function's lines that score its best, in order, at most `MAX_FOCUS`."""
    top = sorted(line for minus, line in lines if -minus >= best - 1e-9)
    return tuple(top[:MAX_FOCUS])


def suspects(
    launcher: Launcher,
    repo: Path,
    check: str,
    failing: list[str],
    timeout: float,
    located: Sequence[str] = (),
    pointed: Sequence[tuple[str, int]] = (),
    evidence: str = "",
) -> tuple[list[Span], str | None]:
    """Run the check with the line tracer through `launcher` in `repo` and rank its functions:
    (spans, None), or ([], why not) when no failing test is known, the repository is neither a
    Python nor a node project, or no line ran under a failing test (the caller notes it; the
    first request goes without). A node project's check runs under V8's coverage instead
    (`fixbot.agent.nodecov`, ranked by nearness to the test files the check names or, else,
    the output's repository-relative paths `located`, the functions holding a line the output
    points at, `pointed` (path, line), first; a check with no failing test file, a linter's or
    a compiler's, is not re-run). A Go module's ties are ordered by the failure's text
    `evidence` and the failing tests' calls (`fixbot.agent.gocov.rank`); a crate's needs an
    llvm-profdata of its rustc's LLVM (`fixbot.agent.rustcov.choose`)."""
    python = python_project(repo, failing)
    if node_project(repo, located) and not (python and failing):
        return _node(launcher, repo, check, list(located), timeout, pointed, failing)
    if (repo / "go.mod").is_file() and not python:
        return _go(launcher, repo, check, failing, timeout, evidence)
    if (repo / "Cargo.toml").is_file() and not python:
        return rustcov.suspects(launcher, repo, check, failing, timeout)
    if not python:
        return [], "neither a Python, node nor Go project (no .py file, package.json or go.mod)"
    if not failing:
        return [], "no failing test id in the check's output (a linter's or a compiler's)"
    return _python(launcher, repo, check, failing, timeout)


def _python(
    launcher: Launcher, repo: Path, check: str, failing: list[str], timeout: float
) -> tuple[list[Span], str | None]:
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        shim = make_shim(Path(tmp))
        done = launcher.run(command(check, shim), repo, Path(tmp) / "spectrum.log", timeout)
        output = (Path(tmp) / "spectrum.log").read_text(encoding="utf-8", errors="replace")
    found_reports, cut = reports(output)
    if cut:
        return [], "the tracer's report came back cut or unreadable"
    if not found_reports:
        return [], (
            f"no Python process of the check loaded fixbot's tracer (exit {done.exit_code}): "
            "it runs Python with -I, -E or -S, or sets PYTHONPATH where fixbot cannot add to it "
            "(a tox set_env, a script)"
        )
    found = rank(repo, parse(output), failing, parse(output, "raised"))
    if not found:
        return [], f"no line of the repository ran under a failing test (exit {done.exit_code})"
    return found, None


def _node(
    launcher: Launcher,
    repo: Path,
    check: str,
    located: list[str],
    timeout: float,
    pointed: Sequence[tuple[str, int]] = (),
    failing: Sequence[str] = (),
) -> tuple[list[Span], str | None]:
    tests = nodecov.test_files(repo, check, located)
    if not tests:  # a linter or a compiler: its output already points at the lines
        return [], "no failing test file named by the check or its output"
    found_runner = runnercov.runner(check, repo)
    if found_runner is not None:
        found, why = _node_runner(
            launcher, repo, check, found_runner, tests, timeout, pointed, failing
        )
        if why != NO_PROVIDER:
            return found, why
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        log = Path(tmp) / "spectrum.log"
        done = launcher.run(nodecov.command(check), repo, log, timeout)
        output = log.read_text(encoding="utf-8", errors="replace")
    coverage, mapped = nodecov.parse(output), nodecov.parse_mapped(output)
    found = nodecov.rank(repo, coverage, tests, pointed, mapped, failing)
    if not found and nodecov.transformed(repo, coverage):
        return [], (
            "the check's runner transformed the repository's scripts before running them "
            "and left no source map in them (babel-jest, a TypeScript transform): V8's "
            "offsets name no line of the files"
        )
    if not found:
        return [], f"no function of the repository ran under node (exit {done.exit_code})"
    return found, None


def _node_runner(
    launcher: Launcher,
    repo: Path,
    check: str,
    runner: tuple[str, int, str],
    tests: list[str],
    timeout: float,
    pointed: Sequence[tuple[str, int]] = (),
    failing: Sequence[str] = (),
) -> tuple[list[Span], str | None]:
    """The spectrum of a jest or vitest check from the runner's own V8 coverage, which maps
    its transformed scripts back to the files (`fixbot.agent.runnercov.runner_command`); a
    vitest without its coverage package says `NO_PROVIDER` (the caller asks V8's own instead)."""
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        log = Path(tmp) / "spectrum.log"
        done = launcher.run(runnercov.runner_command(check, runner), repo, log, timeout)
        output = log.read_text(encoding="utf-8", errors="replace")
    provider, coverage = runnercov.parse_report(output)
    if not provider:
        return [], NO_PROVIDER
    found = nodecov.rank_lines(repo, coverage, tests, pointed, failing)
    if not found:
        return [], f"{runner[0]} reported no function of the repository run (exit {done.exit_code})"
    return found, None


def _go(
    launcher: Launcher, repo: Path, check: str, failing: list[str], timeout: float, evidence: str
) -> tuple[list[Span], str | None]:
    if not failing:
        return [], "no failing Go test named in the check's output (a vet or build failure)"
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        log = Path(tmp) / "spectrum.log"
        done = launcher.run(
            gocov.command(check, failing, gocov.module_path(repo)), repo, log, timeout
        )
        output = log.read_text(encoding="utf-8", errors="replace")
    failed, whole = gocov.parse(output)
    if not failed:
        return [], f"go test wrote no cover profile for the failing tests (exit {done.exit_code})"
    found = gocov.rank(repo, failed, whole, failing, evidence)
    if not found:
        return [], f"no function of the module ran under a failing test (exit {done.exit_code})"
    return found, None
