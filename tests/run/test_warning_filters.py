"""A fix that changes only pytest's warning filters, end to end through the engine.

The legitimate shape is python-humanize's commit 2b37be5: with warnings made errors, a
dependency that warns when it is imported stops the tests at collection, and the fix ignores
that one warning in that one dependency module. It ends `fixed`, verified twice: against the
start commit's configuration the tests fail (named in the commit message as a test change),
with the change they pass. An ignore that reaches the project's own code, or every module, is a
configuration change and ends `escalated`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo

# Every case runs pytest on a real repository several times (the check, the re-run against
# the start commit's tests, the per-test report): a corpus, not a unit, so the slow tier.
pytestmark = pytest.mark.slow

APP = '''\
import olddep


def add(a, b):
    """The sum of a and b."""
    return a + b
'''
TEST = """\
from app import add


def test_add():
    assert add(2, 2) == 4
"""
# a dependency installed beside the project, outside the repository: it warns when imported
OLDDEP = 'import warnings\n\nwarnings.warn("olddep is deprecated", DeprecationWarning)\n'
START = '[tool.pytest.ini_options]\nfilterwarnings = [\n    "error",\n]\n'
CHECK = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"


def ignoring(entry: str) -> str:
    return START.replace('    "error",\n', f'    "error",\n    "{entry}",\n')


def settle(tmp_path: Path, files: dict[str, str], fix: dict[str, str | None]):  # type: ignore[no-untyped-def]
    """The engine on a repository of `files` with the dependency on PYTHONPATH; the scripted
    fixer writes `fix`; one attempt, no review."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "olddep.py").write_text(OLDDEP, encoding="utf-8")
    repo = make_repo(tmp_path / "repo", files)
    env = dict(os.environ, PYTHONPATH=str(site))
    settings = Settings(check=CHECK, review=False, max_attempts=1)
    fixer = ScriptedFixer().enqueue(fix)
    outcome, state = engine.run(
        settings, repo, env=env, agents=Agents(fixer, None), sleep=lambda s: None
    )
    return repo, outcome, state


def test_ignoring_a_dependencys_warning_is_a_test_change_verified_twice(tmp_path: Path) -> None:
    files = {"app.py": APP, "tests/test_app.py": TEST, "pyproject.toml": START}
    fix = {"pyproject.toml": ignoring("ignore:olddep is deprecated:DeprecationWarning:olddep")}
    repo, outcome, state = settle(tmp_path, files, fix)
    last = state.attempts[-1]
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert last.cheats == [] and last.pinned == ["pyproject.toml"]
    assert last.failing_on_original  # the start's configuration still stops the tests
    message = git(repo, "log", "-1", "--format=%B")
    assert "Test change" in message and "pyproject.toml" in message
    assert "expected: the fix changes how they run" in message


@pytest.mark.parametrize(
    ("entry", "app"),
    [
        ("ignore::DeprecationWarning", APP),  # every module's deprecations
        ("ignore", APP),  # every warning
        # the project's own code warns, and the fix ignores it there
        ("ignore:::app", OLDDEP.replace("olddep", "app") + APP.replace("import olddep\n", "")),
    ],
)
def test_an_ignore_beyond_a_dependency_module_ends_escalated(
    tmp_path: Path, entry: str, app: str
) -> None:
    files = {"app.py": app, "tests/test_app.py": TEST, "pyproject.toml": START}
    repo, outcome, state = settle(tmp_path, files, {"pyproject.toml": ignoring(entry)})
    assert git(repo, "log", "--format=%s") == "initial"  # nothing committed
    assert state.attempts[-1].passed, f"{entry}: the check is not green with it, a useless case"
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "config-changed" in outcome.reason, outcome.reason
