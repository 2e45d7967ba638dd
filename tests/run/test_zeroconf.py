"""What is given wins over what is inferred; no check or a missing tool stops before the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.errors import ConfigError
from fixbot.core.settings import Settings
from fixbot.run.zeroconf import plan_for, resolve

CI = """
on: push
jobs:
  test:
    steps:
      - uses: actions/setup-node@v4
        with: {node-version: 20}
      - run: npm ci
      - run: npm test
"""


def repo(tmp_path: Path) -> Path:
    (tmp_path / ".github/workflows").mkdir(parents=True)
    (tmp_path / ".github/workflows/ci.yml").write_text(CI)
    (tmp_path / "package.json").write_text('{"devDependencies": {"prettier": "3"}}')
    return tmp_path


def test_the_inferred_commands_fill_the_settings(tmp_path: Path) -> None:
    settings, plan = resolve(Settings(), repo(tmp_path), which=lambda name: "/usr/bin/node")
    assert plan is not None
    assert (settings.check, settings.setup) == ("npm test", "npm ci")
    assert settings.fix_commands == ["npx prettier --write ."]
    assert resolve(Settings(infer_fixes=False), tmp_path, lambda n: "x")[0].fix_commands == []


def test_a_given_check_wins_and_nothing_is_inferred(tmp_path: Path) -> None:
    given = Settings(check="make test")
    assert resolve(given, repo(tmp_path)) == (given, None)
    plan = plan_for(Settings(check="make test", setup="make deps"), tmp_path)
    assert [c.describe() for c in (plan.check, *plan.setup)] == [  # type: ignore[union-attr]
        "`make test` (given)",
        "`make deps` (given)",
    ]
    assert plan.fixes == () and plan.tools == ()


def test_a_tool_missing_here_says_install_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(Settings(), repo(tmp_path), which=lambda name: None)
    assert caught.value.problems[0].startswith("`node` is not installed here")
    assert "install Node.js 20" in caught.value.problems[0]


def test_no_check_anywhere_names_the_input(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(Settings(), tmp_path)
    assert "check-command" in caught.value.problems[0]


def test_an_inferred_check_goes_through_the_same_preflight(tmp_path: Path) -> None:
    from fixbot.run.preflight import preflight
    from tests.fakes.repo import make_repo

    ci = "on: push\njobs:\n  test:\n    steps:\n      - run: nosuchrunner --all tests\n"
    root = make_repo(tmp_path / "repo", {".github/workflows/ci.yml": ci})
    settings, plan = resolve(Settings(fix_commands=["true"]), root)
    assert plan is not None and settings.check == "nosuchrunner --all tests"
    problems = preflight(settings, root, {"PATH": "/usr/bin:/bin"})
    assert any("`nosuchrunner`" in p and "not installed" in p for p in problems), problems


def test_a_run_without_any_check_is_stopped_by_the_preflight(tmp_path: Path) -> None:
    from fixbot.run.preflight import preflight
    from tests.fakes.repo import make_repo

    root = make_repo(tmp_path / "repo", {"README": "x"})
    problems = preflight(Settings(fix_commands=["true"]), root, {})
    assert any(p.startswith("no check command") and "--explain" in p for p in problems)
