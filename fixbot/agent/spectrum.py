"""Spectrum-based fault localization: rank the source lines the failing tests execute against
those the passing tests execute, by Ochiai's coefficient.

    ochiai(s) = failed(s) / sqrt(total_failed * (failed(s) + passed(s)))

where failed(s) and passed(s) count the failing and passing tests that executed line s (Abreu,
Zoeteweij, van Gemund, "On the accuracy of spectrum-based fault localization", TAICPART 2007).
The spectra come from coverage.py's dynamic contexts (`dynamic_context = test_function`: each
executed line records the tests that ran it; https://coverage.readthedocs.io/en/latest/contexts.html),
taken by re-running a pytest check under `coverage run` through the run's launcher: the project's
code runs only behind the boundary (`fixbot.process.launcher`), and what crosses back is the log,
here the JSON report printed after a marker line (`coverage json -o /dev/stdout`). coverage.py
comes from fixbot's own environment: a folder holding only a link to it goes first on the
command's PYTHONPATH (without its C tracer where the project's Python differs, coverage.py runs
its pure-Python tracer). A check that is not `python -m pytest ...` or `pytest ...` has no
spectrum (empty ranking): nothing else is guessed.

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

from fixbot.agent import nodecov
from fixbot.agent.locate import TEST_FILE, Span
from fixbot.process.launcher import Launcher

MARK = "fixbot-spectrum-json-follows"
RCFILE = "[run]\ndynamic_context = test_function\n"
MAX_SPANS = 12
MAX_FOCUS = 6  # the most suspicious lines a long function is shown around


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    """Ochiai's coefficient of a line run by `failed` failing and `passed` passing tests."""
    if not failed or not total_failed:
        return 0.0
    return failed / math.sqrt(total_failed * (failed + passed))


def pytest_words(check: str) -> tuple[str, list[str]] | None:
    """(python program, pytest's arguments) of a pytest check, None for any other command."""
    try:
        words = shlex.split(check)
    except ValueError:
        return None
    if len(words) >= 3 and words[1:3] == ["-m", "pytest"] and "python" in Path(words[0]).name:
        return words[0], words[3:]
    if words and Path(words[0]).name in ("pytest", "py.test"):
        return "python", words[1:]
    return None


def command(check: str, shim: Path) -> str | None:
    """The shell command that runs the pytest `check` under coverage with per-test contexts and
    prints the JSON report after `MARK`; None when `check` is not a pytest command."""
    found = pytest_words(check)
    if found is None:
        return None
    python, args = found
    path = f"PYTHONPATH={shlex.quote(str(shim))}${{PYTHONPATH:+:$PYTHONPATH}}"
    cov = f"{path} {shlex.quote(python)} -m coverage"
    rc = f"--rcfile={shlex.quote(str(shim / 'coveragerc'))}"
    pytest = shlex.join([*args, "-p", "no:cacheprovider"])
    return (
        "d=$(mktemp -d) && "
        f'{cov} run {rc} --data-file="$d/cov" -m pytest {pytest} >/dev/null 2>&1; '
        f"echo {MARK}; "
        f'{cov} json {rc} --data-file="$d/cov" -q --show-contexts --pretty-print -o /dev/stdout; '
        'rm -rf "$d"'
    )


def make_shim(folder: Path) -> Path:
    """`folder` with a link to fixbot's coverage package and the rcfile, readable by anyone
    (the commands may run as another user). Raises `ImportError` without coverage.py."""
    import coverage

    folder.chmod(0o755)
    (folder / "coverage").symlink_to(Path(coverage.__file__).parent, target_is_directory=True)
    (folder / "coveragerc").write_text(RCFILE, encoding="utf-8")
    return folder


def parse(output: str) -> dict[str, dict[int, list[str]]]:
    """path -> line -> the contexts (tests) that ran it, from the command's output ({} when the
    report is missing or cut)."""
    _, marker, rest = output.partition(MARK)
    if not marker:
        return {}
    try:
        # raw_decode: coverage may print a line of its own after the report
        report, _ = json.JSONDecoder().raw_decode(rest[rest.find("{") :])
    except json.JSONDecodeError:
        return {}
    files = report.get("files", {}) if isinstance(report, dict) else {}
    return {
        path: {int(n): [c for c in ctx if c] for n, ctx in data.get("contexts", {}).items()}
        for path, data in files.items()
        if isinstance(data, dict)
    }


def _failing(context: str, failing: Iterable[str]) -> bool:
    """Whether the coverage context `context` (`module.Class.test`) is one of the failing test
    ids (`path::Class::test[param]`)."""
    for test in failing:
        path, _, rest = test.partition("::")
        name = rest.rsplit("::", 1)[-1].split("[", 1)[0]
        if name and context.endswith("." + name) and PurePosixPath(path).stem in context:
            return True
    return False


def scores(
    spectra: dict[str, dict[int, list[str]]], failing: list[str]
) -> dict[tuple[str, int], float]:
    """(path, line) -> Ochiai of every line of a non-test file a failing test ran."""
    contexts = {c for lines in spectra.values() for ctx in lines.values() for c in ctx}
    bad = {c for c in contexts if _failing(c, failing)}
    found = {}
    for path, lines in spectra.items():
        if TEST_FILE.search(path):
            continue
        for line, ctx in lines.items():
            failed = sum(1 for c in ctx if c in bad)
            if failed:
                found[(path, line)] = ochiai(failed, len(ctx) - failed, len(bad))
    return found


def _enclosing(repo: Path, path: str, lines: list[int]) -> dict[int, tuple[int, int, str]]:
    try:
        tree = ast.parse((repo / path).read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
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


def rank(repo: Path, spectra: dict[str, dict[int, list[str]]], failing: list[str]) -> list[Span]:
    """The functions holding the most suspicious lines, best first (a function scores its best
    line), at most `MAX_SPANS`; paths made relative to `repo`, files outside it left out."""
    by_file: dict[str, dict[int, float]] = {}
    root = repo.resolve()
    for (path, line), value in scores(spectra, failing).items():
        full = (root / path).resolve()
        if full.is_relative_to(root):
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
) -> tuple[list[Span], str | None]:
    """Run the check under coverage through `launcher` in `repo` and rank its functions:
    (spans, None), or ([], why not) when the check is neither pytest nor run in a node project,
    coverage.py is missing or no failing test ran (the caller notes it; the first request goes
    without). A node project's check runs under V8's coverage instead (`fixbot.agent.nodecov`,
    ranked by nearness to the test files the check names or, else, the output's
    repository-relative paths `located`; a check with no failing test file, a linter's or a
    compiler's, is not re-run)."""
    if pytest_words(check) is None:
        if (repo / "package.json").is_file():
            return _node(launcher, repo, check, list(located), timeout)
        return [], "the check is not a pytest command"
    if not failing:
        return [], "no failing test id in the output"
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        try:
            shim = make_shim(Path(tmp))
        except ImportError:
            return [], "coverage.py is not installed with fixbot"
        script = command(check, shim)
        if script is None:
            return [], "the check is not a pytest command"
        done = launcher.run(script, repo, Path(tmp) / "spectrum.log", timeout)
        output = (Path(tmp) / "spectrum.log").read_text(encoding="utf-8", errors="replace")
    found = rank(repo, parse(output), failing)
    if not found:
        return [], f"no line ran by a failing test (exit {done.exit_code})"
    return found, None


def _node(
    launcher: Launcher, repo: Path, check: str, located: list[str], timeout: float
) -> tuple[list[Span], str | None]:
    tests = nodecov.test_files(repo, check, located)
    if not tests:  # a linter or a compiler: its output already points at the lines
        return [], "no failing test file named by the check or its output"
    with tempfile.TemporaryDirectory(prefix="fixbot-spectrum-") as tmp:
        log = Path(tmp) / "spectrum.log"
        done = launcher.run(nodecov.command(check), repo, log, timeout)
        output = log.read_text(encoding="utf-8", errors="replace")
    found = nodecov.rank(repo, nodecov.parse(output), tests)
    if not found:
        return [], f"no function of the repository ran under node (exit {done.exit_code})"
    return found, None
