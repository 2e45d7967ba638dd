"""End to end, on a real repository and real pytest runs: a fix that removes a test the start's
run reported xfailed, every item, while it fixes the code, is `fixed` (python-dateutil 2.8.2's
isoparse fix, bench/corpus/test-change/); the same removal where the start's configuration runs
xfail tests as real ones (`addopts = --runxfail`: the test failed at the start) is escalated,
and so is removing a test that passed at the start (`fixbot.tamper.xfailed`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.pythons import PROJECT_PYTHON
from tests.fakes.repo import git, make_repo

pytestmark = pytest.mark.slow  # each row runs pytest on a real repository several times

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED_APP = "def add(a, b):\n    return a + b\n"
KEPT = "import pytest\n\nfrom app import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
KNOWN_BUG = """

@pytest.mark.xfail(reason="add subtracts")
@pytest.mark.parametrize("a", [1, 2])
def test_add_known_bug(a):
    assert add(a, a) == 2 * a
"""
PASSING = "\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
CHECK = f"{PROJECT_PYTHON} -m pytest -q -p no:cacheprovider tests"


def _settle(files: dict[str, str], tmp_path: Path):  # type: ignore[no-untyped-def]
    """Run the engine on a repository of `files` with a fixer that fixes `add` and writes the
    test file without anything but `test_add`."""
    repo = make_repo(tmp_path / "repo", {"app.py": BUGGY, **files})
    fixer = ScriptedFixer().enqueue({"app.py": FIXED_APP, "tests/test_app.py": KEPT})
    settings = Settings(check=CHECK, review=False, max_attempts=1)
    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=Agents(fixer, None), sleep=lambda s: None
    )
    return repo, outcome, state


def test_removing_a_test_reported_xfailed_while_fixing_the_code_is_fixed(tmp_path: Path) -> None:
    repo, outcome, state = _settle({"tests/test_app.py": KEPT + KNOWN_BUG}, tmp_path)
    first = state.attempts[0].tests or {}
    assert first["tests.test_app::test_add_known_bug[1]"] == "xfailed", first
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[-1].cheats == []
    assert git(repo, "show", "HEAD:tests/test_app.py") == KEPT.rstrip("\n")


def test_the_same_removal_under_runxfail_is_escalated(tmp_path: Path) -> None:
    """The mark's text is the same; pytest ran the test as a real one and it failed."""
    files = {
        "tests/test_app.py": KEPT + KNOWN_BUG,
        "pytest.ini": "[pytest]\naddopts = --runxfail\n",
    }
    repo, outcome, state = _settle(files, tmp_path)
    first = state.attempts[0].tests or {}
    assert first["tests.test_app::test_add_known_bug[1]"] == "failed", first
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "test-removed" in outcome.reason and outcome.commit_sha is None
    assert "test_add_known_bug" in git(repo, "show", "HEAD:tests/test_app.py")


def test_removing_a_test_that_passed_at_the_start_is_escalated(tmp_path: Path) -> None:
    repo, outcome, state = _settle({"tests/test_app.py": KEPT + PASSING}, tmp_path)
    assert (state.attempts[0].tests or {})["tests.test_app::test_zero"] == "passed"
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "test-removed" in outcome.reason and outcome.commit_sha is None
    assert "test_zero" in git(repo, "show", "HEAD:tests/test_app.py")
