"""End to end: `python -m fixbot action` in a subprocess, with a GitHub-like environment, a
workspace cloned from a local bare `origin`, and the fake GitHub server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.github.render import STATUS_MARKER
from tests.fakes.action_env import REPOSITORY, TOKEN, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
RUFF = {"check-command": "ruff check --no-cache .", "fix-commands": "ruff check --no-cache --fix ."}
# The check also fails if it can see the token: the check command must not inherit it.
NO_TOKEN = (
    "python -c \"import os, sys; sys.exit(any('FAKEtoken' in v for v in os.environ.values()))\""
)
CLEAN = {"app.py": "print('hi')\n"}
# Always fails, naming a place; the fix command changes app.py without making it pass.
STUCK = {
    "check-command": "python check.py",
    "fix-commands": "ruff check --no-cache --fix .",
    "max-attempts": "2",
}
CHECK_PY = "print('app.py:2: AssertionError: expected 3, got 2')\nraise SystemExit(1)\n"


@pytest.fixture
def sandbox(tmp_path: Path, github_server: FakeGitHub) -> ActionSandbox:
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {**CLEAN, "check.py": CHECK_PY}, "initial")
    return box


def test_pull_request_fix_is_pushed_and_the_comment_edited_on_the_next_run(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("changes", {"app.py": "import os\nprint('hi')\n"}, "break it")
    ws = sandbox.workspace("changes", merge_into="main")
    first = sandbox.run(
        sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, RUFF)
    )

    assert first.code == 0, first.stdout + first.stderr
    pushed = sandbox.origin_sha("changes")
    assert pushed != sha and git(sandbox.origin, "rev-parse", f"{pushed}^") == sha
    assert git(sandbox.origin, "log", "-1", "--format=%ae %s", str(pushed)).startswith(
        "41898+github-actions[bot]@users.noreply.github.com fixbot:"
    )
    assert git(sandbox.origin, "show", f"{pushed}:app.py") == "print('hi')"
    assert first.outputs["outcome"] == "fixed" and first.outputs["commit-sha"] == pushed
    assert "fixbot fixed the check" in first.summary
    comments = github_server.repo(REPOSITORY).comments
    assert len(comments) == 1 and comments[0]["body"].startswith(STATUS_MARKER)
    assert pushed in comments[0]["body"] and "do not start new workflow runs" in comments[0]["body"]
    assert TOKEN not in first.stdout.replace(f"::add-mask::{TOKEN}", "") + first.stderr

    again = sandbox.commit("changes", {"lib.py": "import sys\n"}, "break it again")
    ws2 = sandbox.workspace("changes", merge_into="main")
    second = sandbox.run(
        sandbox.env("pull_request", sandbox.pull_request_event("changes", again), ws2, RUFF)
    )
    assert second.code == 0, second.stdout + second.stderr
    comments = github_server.repo(REPOSITORY).comments
    assert len(comments) == 1 and second.outputs["commit-sha"] in comments[0]["body"]
    assert any(r.method == "PATCH" for r in github_server.requests)
    assert github_server.unmatched == []


def test_push_event_opens_a_pull_request_from_a_new_branch(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("main", {"app.py": "import os\nprint('hi')\n"}, "break main")
    ws = sandbox.workspace("main")
    inputs = {**RUFF, "check-command": f"{NO_TOKEN} && {RUFF['check-command']}"}
    run = sandbox.run(sandbox.env("push", sandbox.push_event("main", sha), ws, inputs))

    assert run.code == 0, run.stdout + run.stderr
    assert sandbox.origin_sha("main") == sha  # never pushed to the default branch
    branch = "fixbot/main-77"
    assert sandbox.origin_sha(branch) == run.outputs["commit-sha"]
    pulls = github_server.repo(REPOSITORY).pulls
    assert [(p["head"]["ref"], p["base"]["ref"], p["draft"]) for p in pulls] == [
        (branch, "main", False)
    ]
    assert run.outputs["pr-url"] == pulls[0]["html_url"]


def test_escalation_opens_a_draft_pull_request_and_leaves_the_branch_alone(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("changes", {"app.py": "import os\nprint('hi')\n"}, "break it")
    ws = sandbox.workspace("changes", merge_into="main")
    run = sandbox.run(
        sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, STUCK)
    )

    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["outcome"] == "escalated"
    assert sandbox.origin_sha("changes") == sha
    pulls = github_server.repo(REPOSITORY).pulls
    assert len(pulls) == 1 and pulls[0]["draft"] and pulls[0]["base"]["ref"] == "changes"
    assert "best attempt" in pulls[0]["body"] and [lab["name"] for lab in pulls[0]["labels"]] == [
        "fixbot"
    ]
    assert sandbox.origin_sha(pulls[0]["head"]["ref"]) is not None
    assert "::error file=app.py,line=2::" in run.stdout
    assert len(github_server.repo(REPOSITORY).comments) == 1


def test_fork_pull_request_is_refused_without_side_effects(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("changes", {"app.py": "import os\nprint('hi')\n"}, "break it")
    ws = sandbox.workspace("changes", merge_into="main")
    event = sandbox.pull_request_event("changes", sha, head_repo="stranger/Hello-World")
    run = sandbox.run(sandbox.env("pull_request", event, ws, RUFF))

    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["outcome"] == "refused" and "fork" in run.outputs["reason"]
    assert "fork" in run.summary
    assert sandbox.origin_sha("changes") == sha
    assert github_server.requests == []
