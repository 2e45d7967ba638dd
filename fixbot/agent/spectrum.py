"""Spectrum-based fault localization: the check run once more under coverage, its lines ranked
by which tests ran them (Ochiai's coefficient, `fixbot.agent.tracerank`).

The spectra of a Python project come from fixbot's line tracer (`fixbot.agent.linetrace`,
standard library only): the check runs once more, unchanged, through the run's launcher, with a
folder of fixbot's holding the tracer as `sitecustomize.py` first on PYTHONPATH (`command`).
Every Python process the check starts (pytest or unittest, under `python -m`, after `cd` or a
variable assignment, inside tox or nox) imports it with the project's own interpreter, any
CPython from 3.8, and writes which lines each test ran (the `test_function` contexts of
coverage.py: https://coverage.readthedocs.io/en/latest/contexts.html); the reports cross back in
the log, after a marker line. A check that sets PYTHONPATH itself gets the folder added to its
value (`fixbot.process.assignments.assignment_ends`); tox, which passes no variable it is not
told to, is told through `TOX_OVERRIDE`. A node project's check runs under V8's coverage
instead (`fixbot.agent.nodecov`; a jest or vitest check under the runner's own,
`fixbot.agent.runnercov`), a Go module's under `go test`'s cover profiles
(`fixbot.agent.gocov`), a Rust project's under rustc's `-C instrument-coverage`, test by test
(`fixbot.agent.rustcov`). When the spectrum cannot run, `suspects` says why (the report's notes
and the bench show it).

`fixbot.agent.tracerank` reads the tracer's reports back and ranks the enclosing functions of
the repository's non-test files, best first, as `fixbot.agent.locate.Span`s that
`fixbot.agent.context` shows in the first request.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from fixbot.agent import gocov, nodecov, nodelines, nodenear, runnercov, rustcov
from fixbot.agent.locate import Ranked, Span
from fixbot.agent.tracerank import MARK, executed, parse, rank, reports
from fixbot.process.assignments import assignment_ends
from fixbot.process.launcher import Launcher

NO_PROVIDER = f"vitest's own coverage needs the {runnercov.VITEST_PROVIDER} package"
SKIPPED = "coverage spectrum skipped: "  # the note's start in the report (and the bench's)
TRACER = Path(__file__).with_name("linetrace.py")
# What marks a Python project in its repository's root (or one folder down: `cd sub && ...`).
PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py")
# a crate's and a Go module's root: their own spectrum, whatever helper scripts lie beside them
NATIVE_MARKERS = ("Cargo.toml", "go.mod")
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


def python_project(repo: Path, failing: Sequence[str] = ()) -> bool:
    """Whether `repo` is a Python project: a marker file (`PYTHON_MARKERS`) or a `.py` file in
    its root or a folder just below, or a failing test id naming a `.py` file (pytest's). In a
    crate's or a Go module's root (`Cargo.toml`, `go.mod`) a `.py` file alone is a helper
    script (a benchmark comparer, a table generator), not a Python project: a marker or a
    failing `.py` test id is needed there."""
    if any(t.partition("::")[0].endswith(".py") for t in failing):
        return True
    folders = [repo, *(p for p in repo.iterdir() if p.is_dir() and not p.name.startswith("."))]
    if any((folder / name).is_file() for folder in folders for name in PYTHON_MARKERS):
        return True
    return not _native(repo) and _scripts(folders)


def _native(repo: Path) -> bool:
    """Whether `repo`'s root is a crate's or a Go module's (`NATIVE_MARKERS`)."""
    return any((repo / name).is_file() for name in NATIVE_MARKERS)


def _scripts(folders: list[Path]) -> bool:
    """Whether one of `folders` holds a `.py` file."""
    return any(next(folder.glob("*.py"), None) for folder in folders)


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
    `evidence` and the failing tests' calls (`fixbot.agent.gocov.rank`), a Python project's by
    the names of the test code `evidence` quotes (`fixbot.agent.tracerank.quoted_hits`); a
    crate's needs an llvm-profdata of its rustc's LLVM (`fixbot.agent.rustcov.choose`)."""
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
    return _python(launcher, repo, check, failing, timeout, evidence)


def _python(
    launcher: Launcher,
    repo: Path,
    check: str,
    failing: list[str],
    timeout: float,
    evidence: str = "",
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
    spectra = parse(output)
    found = rank(repo, spectra, failing, parse(output, "raised"), evidence)
    if not found:
        return [], f"no line of the repository ran under a failing test (exit {done.exit_code})"
    return Ranked(found, executed(repo, spectra, failing)), None


def _node(
    launcher: Launcher,
    repo: Path,
    check: str,
    located: list[str],
    timeout: float,
    pointed: Sequence[tuple[str, int]] = (),
    failing: Sequence[str] = (),
) -> tuple[list[Span], str | None]:
    tests = nodenear.test_files(repo, check, located)
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
    return Ranked(found, nodelines.executed(repo, coverage, tests, mapped)), None


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
    return Ranked(found, nodelines.executed(repo, {}, tests, coverage)), None


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
    return Ranked(found, gocov.executed(repo, failed)), None
