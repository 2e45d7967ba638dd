"""End to end: `python -m fixbot action` in a subprocess, with a GitHub-like environment, a
workspace cloned from a local bare `origin`, and the fake GitHub server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.eventlog import read_events
from fixbot.github.render import STATUS_MARKER
from tests.fakes.action_env import REPOSITORY, TOKEN, ActionRun, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.model_server import FakeModelServer, tool_call
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


def test_a_rejected_push_keeps_the_fix_on_a_new_branch_with_a_pull_request(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("changes", {"app.py": "import os\nprint('hi')\n"}, "break it")
    ws = sandbox.workspace("changes", merge_into="main")
    moved = sandbox.commit("changes", {"notes.txt": "pushed meanwhile\n"}, "someone pushed")
    run = sandbox.run(
        sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, RUFF)
    )

    assert run.code == 0, run.stdout + run.stderr
    assert sandbox.origin_sha("changes") == moved  # the branch that moved is left alone
    rescue = "fixbot/changes-77"
    assert sandbox.origin_sha(rescue) == run.outputs["commit-sha"]
    pulls = github_server.repo(REPOSITORY).pulls
    assert [(p["head"]["ref"], p["base"]["ref"]) for p in pulls] == [(rescue, "changes")]
    assert "nothing is lost" in run.summary


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
    events = read_events(ws / ".fixbot" / "log.jsonl")  # the artifact to upload
    assert [e["event"] for e in events][-2:] == ["outcome", "publish"]
    assert events[-1]["pr_url"] == pulls[0]["html_url"] and events[-1]["source"] == "snapshot"
    assert len({e["run_id"] for e in events}) == 1


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


def run_with_threads(
    sandbox: ActionSandbox, github_server: FakeGitHub, model_server: FakeModelServer
) -> tuple[ActionRun, str, list[str]]:
    """A PR whose check passes, with 3 open threads (app.py, lib.py, check.py) and a resolved
    one; the model edits app.py and claims the app.py and lib.py threads.

    Returns the run, the PR's head sha before the run, and the open thread ids in that order.
    """
    sha = sandbox.commit("changes", {"lib.py": "X = 1\n"}, "add lib")
    event = sandbox.pull_request_event("changes", sha)
    ids = [
        github_server.add_thread(REPOSITORY, 2, path, body)
        for path, body in [
            ("app.py", "Say hello, not hi."),
            ("lib.py", "Call it ONE."),
            ("check.py", "Explain this."),
        ]
    ]
    github_server.add_thread(REPOSITORY, 2, "app.py", "Old remark.", resolved=True)
    model_server.enqueue(
        tool_call("replace_in_file", path="app.py", old="print('hi')", new="print('hello')"),
        tool_call("finish", summary="greet with hello", resolved_thread_ids=ids[:2]),
        tool_call("submit_review", findings=[]),
    )
    inputs = {
        "check-command": "python app.py",
        "model": "openai/fake",
        "api-base": model_server.url,
    }
    ws = sandbox.workspace("changes", merge_into="main")
    env = sandbox.env("pull_request", event, ws, inputs)
    env.update({"FIXBOT_EDIT_PROTOCOL": "tools", "OPENAI_API_KEY": "sk-fake"})
    return sandbox.run(env), sha, ids


def test_review_threads_only_the_claimed_and_touched_one_is_resolved(
    sandbox: ActionSandbox, github_server: FakeGitHub, model_server: FakeModelServer
) -> None:
    run, sha, (edited, claimed_untouched, unclaimed) = run_with_threads(
        sandbox, github_server, model_server
    )

    assert run.code == 0, run.stdout + run.stderr
    pushed = sandbox.origin_sha("changes")
    assert pushed != sha and run.outputs["commit-sha"] == pushed
    assert git(sandbox.origin, "show", f"{pushed}:app.py") == "print('hello')"
    assert "Old remark" not in model_server.all_text()  # a resolved thread is out of scope
    assert all(tid in model_server.all_text() for tid in (edited, claimed_untouched, unclaimed))
    assert github_server.mutations == [
        ("resolveReviewThread", {"threadId": edited}),
        ("addPullRequestReviewThreadReply", github_server.mutations[1][1]),
    ]
    reply = github_server.mutations[1][1]
    assert reply["pullRequestReviewThreadId"] == edited and pushed[:12] in reply["body"]
    assert github_server.review_thread(edited)["isResolved"] is True
    for tid in (claimed_untouched, unclaimed):
        left = github_server.review_thread(tid)
        assert left["isResolved"] is False and len(left["comments"]) == 1
    comment = github_server.repo(REPOSITORY).comments[0]["body"]
    addressed, left_open = comment.split("Addressed")[1].split("Not addressed")
    assert "`app.py:1`" in addressed and "lib.py" not in addressed
    assert "`lib.py:1`" in left_open and "`check.py:1`" in left_open
    assert "Not addressed, left open (2)" in run.summary
    assert github_server.unmatched == []


def test_a_refused_resolve_leaves_the_thread_open_and_names_the_permission(
    sandbox: ActionSandbox, github_server: FakeGitHub, model_server: FakeModelServer
) -> None:
    github_server.fail_graphql(
        "resolveReviewThread", "FORBIDDEN", "Resource not accessible by integration"
    )
    run, sha, (edited, _, _) = run_with_threads(sandbox, github_server, model_server)

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert sandbox.origin_sha("changes") == run.outputs["commit-sha"] != sha
    thread = github_server.review_thread(edited)
    assert thread["isResolved"] is False and len(thread["comments"]) == 1  # no reply either
    comment = github_server.repo(REPOSITORY).comments[0]["body"]
    assert "Not addressed, left open (3)" in comment
    assert "review threads were not all resolved" in comment
    assert "`permissions: pull-requests: write`" in comment


def test_unreadable_threads_are_a_note_and_the_fix_still_lands(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail_graphql("reviewThreads", "FORBIDDEN", "Resource not accessible")
    sha = sandbox.commit("changes", {"app.py": "import os\nprint('hi')\n"}, "break it")
    ws = sandbox.workspace("changes", merge_into="main")
    run = sandbox.run(
        sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, RUFF)
    )

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert "review threads were not read" in run.summary
    assert "`permissions: pull-requests: read`" in run.summary
    assert github_server.mutations == []
