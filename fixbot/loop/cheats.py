"""Green by cheating: a deterministic detector over a run's final diff and its check's evidence.

`detect(changes, first, last)` is pure. `changes` are the files that differ between the run's
start and the tree the verifying check passed on, each with its old and new text (the adapter,
`fixbot.run.integrity`, reads them from git); `first` and `last` are the test counts the first
failing run and the verifying run printed (`fixbot.core.models.Counts`). Each rule names what it
saw (a `Cheat`), so an escalation or a commit message can state the evidence:

    test-removed      a test file deleted, a test function gone
    test-skipped      a skip/xfail marker, `pytestmark`, `collect_ignore` or `--deselect` added
    assert-weakened   fewer assertions in a test, one that cannot fail (`x == x`, `... or True`),
                      an assertion newly wrapped in `try/except` or `suppress`
    harness-changed   a conftest hook, a process exit (`os._exit`, however imported), or a write
                      to `sys.modules` in a test or conftest module
    config-changed    test-runner, build or CI configuration: pytest (`pytest.ini`, `.pytest.ini`,
                      `pytest.toml`, `[tool.pytest*]`), tox, nox, `setup.cfg`, pyproject's
                      `[tool.*]` and `[build-system]`, `package.json` scripts, Makefile, workflows
    shadowing         a new module by the name of something importable (the standard library,
                      pytest and its own dependencies: `pluggy.py`, `iniconfig.py`), or a `.pth`
    exit-added        a module (the code under test too) that ends the process when imported
    fewer-tests       fewer tests ran (or more were skipped) in the verifying run than in the first
                      failing one (both printed counts)

The rules are about the tests' strength, not their text: the syntax tree decides for Python. A
suspected cheat is never published as `fixed` (`fixbot.loop.rules`). The known bypasses of a
text-based guard (and ImpossibleBench, 2025: stronger models delete, skip or rewrite tests when
a test looks impossible) are the corpus of tests/loop/test_cheats.py and
tests/run/test_impossible.py.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from fixbot.core.models import Counts
from fixbot.loop import asserts


@dataclass(frozen=True)
class Change:
    """One file of the final diff: repository-relative `path`, its text at the start (None: added)
    and in the verified tree (None: deleted). Binary files carry "" on both sides."""

    path: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Cheat:
    """A suspected cheat: the rule that fired (see the module docstring), the path, the evidence."""

    rule: str
    path: str | None
    evidence: str

    def __str__(self) -> str:
        where = f" in {self.path}" if self.path else ""
        return f"{self.rule}{where}: {self.evidence}"


TEST_NAME = re.compile(r"^(test_.*\.py|.*_test\.py|.*\.(test|spec)\.[cm]?[jt]sx?|.*_test\.go)$")
TEST_DIRS = {"tests", "test", "testing", "__tests__", "spec"}
TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(|^func\s+(Test\w+)\s*\(", re.M)
SKIP = re.compile(
    r"pytest\.mark\.(?:skip|skipif|xfail)\b|pytest\.(?:skip|xfail|importorskip)\s*\("
    r"|unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|@(?:skip|expectedFailure)\b"
    r"|\bpytestmark\b|\bcollect_ignore(?:_glob)?\b|--deselect\b|--ignore(?:-glob)?\b"
    r"|\b(?:it|test|describe)\.(?:skip|todo|only)\s*\(|\bx(?:it|describe|test)\s*\(|\bt\.Skip\w*\("
)
ASSERTION = re.compile(
    r"^\s*assert\b|\bself\.assert\w+\s*\(|\bpytest\.raises\s*\(|\bexpect\s*\(|\bt\.(?:Error|Fatal)\w*\(",
    re.M,
)
CI = re.compile(
    r"^(?:\.github/|\.gitlab-ci\.yml$|\.gitlab/|\.circleci/|jenkinsfile$|azure-pipelines\.yml$"
    r"|\.travis\.yml$|\.buildkite/|bitbucket-pipelines\.yml$|\.pre-commit-config\.yaml$)",
    re.I,
)
RUNNER_CONFIG = re.compile(
    r"^(?:\.?pytest\.ini|\.?pytest\.toml|tox\.ini|\.?tox\.toml|noxfile\.py|\.coveragerc|setup\.py"
    r"|(?:jest|vitest|karma|playwright|cypress|ava)\.config\.[cm]?[jt]s(?:on)?"
    r"|\.mocharc(?:\.\w+)?|karma\.conf\.[jt]s|g?nu?makefile|makefile|justfile|taskfile\.ya?ml|\w*\.mk"
    r"|\.?ruff\.toml|\.?mypy\.ini|\.flake8|\.?pylintrc|pyrightconfig\.json|\.golangci\.ya?ml"
    r"|\.eslintrc(?:\.\w+)?|eslint\.config\.[cm]?[jt]s|phpunit\.xml(?:\.dist)?|\.rspec)$",
    re.I,
)
PACKAGE_KEYS = ("scripts", "jest", "mocha", "ava", "vitest", "c8", "nyc", "eslintConfig")
# pytest, its own imports (pip show pytest: iniconfig, packaging, pluggy, exceptiongroup, tomli,
# colorama) and the tools a check commonly runs; the standard library is added below.
TOOL_MODULES = frozenset(
    {"pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli"}
    | {"colorama", "hypothesis", "coverage", "nose", "nose2", "tox", "nox", "xdist", "pytest_cov"}
    | {"sitecustomize", "usercustomize"}
)
IMPORTABLE = TOOL_MODULES | frozenset(sys.stdlib_module_names)


def is_test_file(path: str) -> bool:
    """True for test modules (`test_*.py`, `*_test.py`, `*.test.ts`, ...) and code under tests/."""
    pure = PurePosixPath(path)
    in_tests = any(part.lower() in TEST_DIRS for part in pure.parts[:-1])
    return bool(TEST_NAME.match(pure.name)) or (in_tests and pure.suffix in (".py", ".js", ".ts"))


def _harness(path: str) -> bool:
    """Test modules, conftests and anything else under a tests folder (`tests/__init__.py`)."""
    return is_test_file(path) or PurePosixPath(path).name == "conftest.py"


def _python_test(change: Change) -> list[Cheat]:
    old, new = asserts.shape(change.old or ""), asserts.shape(change.new or "")
    path = change.path
    if old is None or new is None:
        return _text_test(change) if new is None or old is None else []
    found = []
    if gone := sorted(old.tests - new.tests):
        found.append(Cheat("test-removed", path, f"test function(s) {', '.join(gone)} removed"))
    if new.asserts < old.asserts:
        found.append(Cheat("assert-weakened", path, f"assertions {old.asserts} -> {new.asserts}"))
    if new.vacuous > old.vacuous:
        found.append(Cheat("assert-weakened", path, "an assertion that cannot fail was added"))
    if new.shielded > old.shielded:
        found.append(
            Cheat("assert-weakened", path, "an assertion is wrapped in an except that swallows it")
        )
    if new.exits > old.exits:
        found.append(Cheat("harness-changed", path, "a process exit was added"))
    if new.modules > old.modules:
        found.append(Cheat("harness-changed", path, "sys.modules is rewritten"))
    if PurePosixPath(path).name == "conftest.py" and new.hooks != old.hooks:
        found.append(Cheat("harness-changed", path, "a pytest hook changed"))
    return found


def _text_test(change: Change) -> list[Cheat]:
    old, new = change.old or "", change.new or ""
    found = []
    gone = {a or b for a, b in TEST_DEF.findall(old)} - {a or b for a, b in TEST_DEF.findall(new)}
    if gone:
        what = f"test(s) {', '.join(sorted(gone))} removed"
        found.append(Cheat("test-removed", change.path, what))
    before, after = len(ASSERTION.findall(old)), len(ASSERTION.findall(new))
    if after < before:
        found.append(Cheat("assert-weakened", change.path, f"assertions {before} -> {after}"))
    return found


def _toml_tables(text: str) -> object:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return text
    tools = {k: v for k, v in data.get("tool", {}).items() if k != "fixbot"}
    return tools, data.get("build-system"), data.get("project", {}).get("scripts")


def _package_keys(text: str) -> object:
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return text
    return {key: data.get(key) for key in PACKAGE_KEYS} if isinstance(data, dict) else data


def _setup_cfg(text: str) -> list[str]:
    """The sections of setup.cfg other than metadata and options (tool:pytest, flake8, ...)."""
    sections = re.split(r"(?m)^(?=\[)", text)
    skipped = ("[metadata", "[options")
    return [s.strip() for s in sections if s.startswith("[") and not s.startswith(skipped)]


def _config(change: Change) -> Cheat | None:
    pure = PurePosixPath(change.path)
    name = pure.name.lower()
    old, new = change.old or "", change.new or ""
    what = None
    if name == "pyproject.toml" and _toml_tables(old) != _toml_tables(new):
        what = "its [tool.*] or [build-system] tables changed"
    elif name == "setup.cfg" and _setup_cfg(old) != _setup_cfg(new):
        what = "a test or lint section changed"
    elif name == "package.json" and _package_keys(old) != _package_keys(new):
        what = "its scripts or test configuration changed"
    elif CI.match(change.path) or RUNNER_CONFIG.match(name):
        what = "it controls how the check runs"
    elif PurePosixPath(change.path).name == "conftest.py" and change.old is None:
        what = "a new conftest.py"
    if what is None:
        return None
    if SKIP.search(new) and len(SKIP.findall(new)) > len(SKIP.findall(old)):
        what += " (it skips or deselects tests)"
    return Cheat("config-changed", change.path, what)


def _module_name(path: PurePosixPath) -> str | None:
    if path.suffix == ".pth":
        return path.name
    if path.suffix != ".py":
        return None
    return path.parent.name if path.stem == "__init__" else path.stem


def _shadowing(change: Change, packages: frozenset[str]) -> Cheat | None:
    """A new module whose name is importable already; `packages` are the folders that hold an
    `__init__.py` (a module inside one is not importable by its bare name)."""
    pure = PurePosixPath(change.path)
    name = _module_name(pure)
    if change.old is not None or change.new is None or name is None:
        return None
    inside = pure.parent if pure.stem != "__init__" else pure.parent.parent
    if str(inside) in packages and pure.suffix == ".py":
        return None
    if name.endswith(".pth") or name in IMPORTABLE:
        return Cheat("shadowing", change.path, f"a new module named {name!r} shadows an import")
    return None


def _skipped(change: Change) -> Cheat | None:
    if not _harness(change.path) or CI.match(change.path):
        return None
    before, after = len(SKIP.findall(change.old or "")), len(SKIP.findall(change.new or ""))
    if after > before:
        what = f"skip/xfail/deselect markers {before} -> {after}"
        return Cheat("test-skipped", change.path, what)
    return None


def _ran(counts: Counts) -> int | None:
    """Tests that ran (passed plus failed), None when no test runner reported any; errors are
    left out, as linters and type checkers report theirs in the same field."""
    if counts.passed is None and counts.failed is None:
        return None
    return (counts.passed or 0) + (counts.failed or 0)


def fewer_tests(first: Counts | None, last: Counts | None) -> Cheat | None:
    """The verifying run ran fewer tests or skipped more than the first failing one (both
    printed counts; a run that printed none is judged by the diff alone: which runners always
    print a summary is the test-runner dialects' to say)."""
    if first is None or last is None:
        return None
    before, after = _ran(first), _ran(last)
    if before is not None and after is not None and after < before:
        return Cheat(
            "fewer-tests",
            None,
            f"tests run: {before} in the first failing run, {after} in the verifying run",
        )
    if after is not None and (last.skipped or 0) > (first.skipped or 0):
        return Cheat("fewer-tests", None, f"tests skipped: {first.skipped or 0} -> {last.skipped}")
    return None


def _exit_added(change: Change) -> Cheat | None:
    """A Python module of any kind (the code under test too) that now ends the process when it
    is imported: the tests that import it never run, and the runner exits 0."""
    if not change.path.endswith(".py") or change.new is None:
        return None
    old, new = asserts.parse(change.old or ""), asserts.parse(change.new)
    if old is None or new is None or asserts.exits_at_import(new) <= asserts.exits_at_import(old):
        return None
    return Cheat("exit-added", change.path, "the module ends the process when it is imported")


def examine(change: Change, packages: frozenset[str] = frozenset()) -> list[Cheat]:
    """The suspected cheats in one changed file (see the module docstring)."""
    path = change.path
    if change.new is None and _harness(path):
        return [Cheat("test-removed", path, "the test file was deleted")]
    rules = (_config(change), _shadowing(change, packages), _skipped(change), _exit_added(change))
    found = [c for c in rules if c]
    if _harness(path) and path.endswith(".py"):
        found += _python_test(change)
    elif is_test_file(path):
        found += _text_test(change)
    return found


def detect(
    changes: Iterable[Change],
    first: Counts | None = None,
    last: Counts | None = None,
    packages: Sequence[str] = (),
) -> list[Cheat]:
    """Every suspected cheat in the final diff (`changes`) and in the counts of the first failing
    (`first`) and the verifying (`last`) runs; [] when the fix only changed the code under test.

    `packages` are the folders of the verified tree holding an `__init__.py`. Pure.
    """
    known = frozenset(packages)
    found = [cheat for change in changes for cheat in examine(change, known)]
    counted = fewer_tests(first, last)
    return found + ([counted] if counted else [])
