"""End to end: untrusted file names in the Action's log never become workflow commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fakes.action_env import ActionSandbox
from tests.fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow
# The fix command (the repository's code) creates files whose names carry workflow commands.
EVIL = (
    "python -c \"open('x\\n::add-mask::abc', 'w').write('1'); "
    "open('a.py\\n::error::pwned', 'w').write('1')\""
)
SETTINGS = {"check-command": "python check.py", "fix-commands": EVIL, "max-attempts": "1"}
CHECK_PY = "print('app.py:2: AssertionError: expected 3, got 2')\nraise SystemExit(1)\n"


def test_file_names_with_workflow_commands_do_not_reach_the_runner(
    tmp_path: Path, github_server: FakeGitHub
) -> None:
    sandbox = ActionSandbox(tmp_path, github_server)
    sandbox.commit("main", {"app.py": "print('hi')\n", "check.py": CHECK_PY}, "initial")
    sha = sandbox.commit("changes", {"app.py": "print('hey')\n"}, "change")
    ws = sandbox.workspace("changes", merge_into="main")
    event = sandbox.pull_request_event("changes", sha)
    run = sandbox.run(sandbox.env("pull_request", event, ws, SETTINGS))
    log = run.stdout + "\n" + run.stderr
    assert "add-mask::abc" in log, log  # the names were printed (as text)
    commands = [
        line.strip() for line in re.split(r"\r\n|\r|\n", log) if line.lstrip().startswith("::")
    ]
    assert not [c for c in commands if c.startswith(("::add-mask::abc", "::error::pwned"))]
