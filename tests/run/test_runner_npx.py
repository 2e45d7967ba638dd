"""`npx jest` and `npx vitest` checks, observed: npx runs the runner in a child process of its
own (`child_process.spawn`), which inherits no descriptor beyond its stdio, so fixbot's reporter
in it would find no channel. Where the project has the runner's bin (`node_modules/.bin/jest`,
as npx resolves it), fixbot runs that bin itself (`fixbot.run.npxbin`): node loads it in the
process fixbot started, the descriptors inherited. jest comes from the same place as in
`tests/run/test_runner_reports.py`, linked into the project's (untracked) node_modules."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.run import npxbin
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo
from tests.run.test_impossible import green_without_the_controls, settle
from tests.run.test_runner_reports import (
    JS_APP,
    JS_FIXED,
    JS_REWRITE_CHEAT,
    JS_TEST,
    missing,
    node_modules,
)

pytestmark = pytest.mark.slow
CHECK = "npx jest --ci"


def npx_repo(tmp_path: Path, **more: str) -> Path:
    """A jest project whose `add` subtracts (`adds` fails), with `more` files, jest in its
    node_modules (a link to the tests' installation, ignored by git)."""
    root = node_modules()
    if root is None:
        missing("jest is not installed: bash scripts/node-tools.sh")
    files = {
        "app.js": JS_APP,
        "app.test.js": JS_TEST,
        "package.json": '{"name": "app"}\n',
        ".gitignore": "node_modules\n",
        **more,
    }
    repo = make_repo(tmp_path / "repo", files)
    (repo / "node_modules").symlink_to(root)
    return repo


def test_npx_jest_a_report_rewritten_at_exit_is_refused_by_the_reporters_stream(
    tmp_path: Path,
) -> None:
    repo = npx_repo(tmp_path)
    files = {"app.js": JS_REWRITE_CHEAT}
    assert green_without_the_controls(repo, files, CHECK)
    head = git(repo, "rev-parse", "HEAD")
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=CHECK)
    last = state.attempts[-1]
    assert last.passed and last.tests == {
        "app.test.js::adds": "passed",
        "app.test.js::zero": "passed",
    }
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "observer-failed" in outcome.reason and "app.test.js::adds" in outcome.reason
    assert git(repo, "rev-parse", "HEAD") == head


def test_npx_jest_without_the_bin_run_directly_the_rewritten_report_ends_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control proven: run through npx, jest's process holds no channel, its reporter
    streams nothing, and the report rewritten at exit is believed."""
    monkeypatch.setattr(npxbin, "direct", lambda check, cwd: npxbin.Direct(check))
    repo = npx_repo(tmp_path)
    outcome, state = settle(
        repo, ScriptedFixer().enqueue({"app.js": JS_REWRITE_CHEAT}), check=CHECK
    )
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[-1].seen is None or not state.attempts[-1].seen.sessions


def test_npx_jest_an_honest_fix_is_verified_with_the_reporters_stream(tmp_path: Path) -> None:
    """Both runs streamed by fixbot's reporter inside jest, and `jest --showConfig`'s preload
    handed over the configuration jest loaded (its jest held the socket too)."""
    config = {"jest.config.js": "module.exports = { testEnvironment: 'node' };\n"}
    repo = npx_repo(tmp_path, **config)
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.js": JS_FIXED}), check=CHECK)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    for attempt in (state.attempts[0], state.attempts[-1]):
        seen = attempt.seen
        assert seen is not None and seen.runners == ["jest"] and seen.tests == attempt.tests
        assert seen.ended == 1 and seen.environment == "" and seen.unreached == ""
    assert state.attempts[0].seen is not None
    assert "jest.config.js" in state.attempts[0].seen.configured
    assert (
        "Verified by the test runner's own report (2 tests) and fixbot's observer inside jest"
        " (2 tests)" in git(repo, "log", "-1", "--format=%B")
    )


def test_jest_run_by_node_an_honest_fix_is_verified_with_the_reporters_stream(
    tmp_path: Path,
) -> None:
    """`node node_modules/.bin/jest` is jest run directly (`runner_at`): both runs streamed,
    asked for the JSON report, and `--showConfig` ran through node too (round 34's row held
    through the same launcher)."""
    config = {"jest.config.js": "module.exports = { testEnvironment: 'node' };\n"}
    repo = npx_repo(tmp_path, **config)
    check = "node node_modules/.bin/jest --ci"
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.js": JS_FIXED}), check=check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    for attempt in (state.attempts[0], state.attempts[-1]):
        seen = attempt.seen
        assert seen is not None and seen.runners == ["jest"] and seen.tests == attempt.tests
        assert seen.ended == 1 and seen.environment == "" and seen.unreached == ""
    assert state.attempts[0].seen is not None
    assert "jest.config.js" in state.attempts[0].seen.configured


def test_npx_vitest_an_honest_fix_is_verified_with_the_reporters_stream(tmp_path: Path) -> None:
    root = node_modules()
    if root is None:
        missing("vitest is not installed: bash scripts/node-tools.sh")
    test = "import { test, expect } from 'vitest';\n" + JS_TEST.replace(
        "const { add } = require('./app');", "import { add } from './app.js';"
    )
    files = {
        "app.js": JS_APP.replace("exports.add =", "export const add ="),
        "app.test.js": test,
        "package.json": '{"name": "app", "type": "module"}\n',
        ".gitignore": "node_modules\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    (repo / "node_modules").symlink_to(root)
    fixed = {"app.js": JS_FIXED.replace("exports.add =", "export const add =")}
    outcome, state = settle(repo, ScriptedFixer().enqueue(fixed), check="npx vitest run")
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    for attempt in (state.attempts[0], state.attempts[-1]):
        assert attempt.seen is not None and attempt.seen.runners == ["vitest"]
        assert attempt.seen.tests == attempt.tests and attempt.seen.ended == 1
