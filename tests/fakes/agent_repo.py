"""Helpers for the agent tests: a small real git repository with a bug, and its FixContext."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from fixbot.agent import Agent, build_agent
from fixbot.core.budget import Deadline
from fixbot.core.failure import Classification, Counts, ErrorClass, Failure, Location
from fixbot.core.models import FixContext
from fixbot.core.settings import Settings
from fixbot.process.launcher import Launcher, launcher_for
from fixbot.security.redact import Redactor
from tests.fakes.repo import git
from tests.fakes.repo import make_repo as make_git_repo

CALC = '''def total(items):
    """Sum the prices of items."""
    return sum(item["price"] for item in items[1:])


def mean(items):
    return total(items) / len(items)
'''
TEST_CALC = """from calc import mean, total


def test_total():
    assert total([{"price": 2}, {"price": 3}]) == 5


def test_mean():
    assert mean([{"price": 2}, {"price": 4}]) == 3
"""
LOG = """============================= FAILURES =============================
___________________________ test_total ___________________________
    def test_total():
>       assert total([{"price": 2}, {"price": 3}]) == 5
E       assert 3 == 5
tests/test_calc.py:5: AssertionError
calc.py:3: in total
FAILED tests/test_calc.py::test_total - assert 3 == 5
FAILED tests/test_calc.py::test_mean - assert 2.0 == 3
2 failed in 0.02s
"""
FIXED_LINE = '    return sum(item["price"] for item in items)\n'
BUGGY_LINE = '    return sum(item["price"] for item in items[1:])\n'


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    """A git repository at `root` with `files` (default: the buggy calc project), committed."""
    return make_git_repo(root, files or {"calc.py": CALC, "tests/test_calc.py": TEST_CALC})


def failure(log: str = LOG) -> Failure:
    """The digested failure of the calc project's check."""
    return Failure(
        condensed=log,
        signature="ab" * 32,
        classification=Classification(
            error_class=ErrorClass.FIXABLE, category="assertion", rule="pytest"
        ),
        counts=Counts(failed=2),
        locations=[Location(path="tests/test_calc.py", line=5), Location(path="calc.py", line=3)],
        failing_tests=["tests/test_calc.py::test_total", "tests/test_calc.py::test_mean"],
    )


def fix_context(repo: Path, **changes: Any) -> FixContext:
    """A FixContext for attempt 1 of the calc failure; `changes` override fields."""
    values: dict[str, Any] = {
        "repo": repo,
        "attempt": 1,
        "max_attempts": 5,
        "failure": failure(),
        "start_sha": git(repo, "rev-parse", "HEAD"),
    }
    values.update(changes)
    return FixContext(**values)


def model_settings(api_base: str, **changes: Any) -> Settings:
    """Settings pointing at the fake server through the tools protocol."""
    values: dict[str, Any] = {
        "check": "python -m pytest -q",
        "model": "openai/fake",
        "api_base": api_base,
        "edit_protocol": "tools",
    }
    values.update(changes)
    return Settings(**values)


@pytest.fixture
def model_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment litellm needs for the fake server (key, local price map)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-key-for-tests")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return {"OPENAI_API_KEY": "sk-fake-key-for-tests"}


def run_launcher(settings: Settings, root: Path, env: Mapping[str, str]) -> Launcher:
    """The launcher a run builds (`launcher_for`) for the work tree `root`: fixbot's own user,
    `env` without secrets, its secrets redacted, a run's deadline starting now."""
    deadline = Deadline.start(settings.max_duration)
    return launcher_for(settings, root, env, None, Redactor.from_env(env), deadline)


def model_agent(
    settings: Settings,
    env: Mapping[str, str],
    sleep: Callable[[float], Any] = time.sleep,
    notify: Callable[[str], None] | None = None,
) -> Agent:
    """The model agent a run builds for `settings` (`build_agent`), with the run's launcher and
    deadline. Each attempt's commands run in its `ctx.repo`: the launcher's root, the run's work
    tree, is the current folder."""
    launcher = run_launcher(settings, Path.cwd(), env)
    built = build_agent(settings, env, sleep, notify, launcher=launcher)
    assert built is not None, "model_agent needs settings with a model"
    return built
