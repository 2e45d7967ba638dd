"""End to end: `on-success: suggest` posts the verified fix as one review with suggestion blocks
and pushes nothing, against the fake GitHub (which refuses a comment off the pull
request's diff, as GitHub does) and the fake model."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.fakes.action_env import REPOSITORY, ActionSandbox
from tests.fakes.counted import CALC_BUGGY, CALC_GOOD
from tests.fakes.github_server import BLOB_PREFIX, FakeGitHub
from tests.fakes.model_server import FakeModelServer
from tests.fakes.repo import git
from tests.github.api.test_rest import openapi_routes
from tests.github.test_cifail_e2e import FIX, PR, Scene
from tests.security.test_leakscan import CHECK_PY as LEAK_CHECK_PY
from tests.security.test_leakscan import ENCODED

pytestmark = pytest.mark.slow
SUGGESTION = re.compile(r"^(`{3,})suggestion\n(.*?)\1$", re.S | re.M)


@pytest.fixture
def scene(tmp_path: Path, github_server: FakeGitHub, model_server: FakeModelServer) -> Scene:
    found = Scene(tmp_path, github_server, model_server)
    found.failed_run()
    github_server.add_pull(REPOSITORY, PR, ("changes", found.sha))
    model_server.enqueue(*FIX)
    return found


def pull_files(scene: Scene) -> list[dict[str, str]]:
    """The PR's files as GitHub lists them: each file's patch from a real `git diff`."""
    files = []
    names = git(scene.box.origin, "diff", "--name-only", "main", "changes").splitlines()
    for name in names:
        diff = git(scene.box.origin, "diff", "main", "changes", "--", name)
        files.append({"filename": name, "status": "modified", "patch": diff[diff.index("@@") :]})
    return files


def apply(text: str, comment: dict[str, object]) -> str:
    """`text` with the comment's suggestion applied, as "Commit suggestions" does."""
    lines = text.splitlines()
    end = int(str(comment["line"]))
    start = int(str(comment.get("start_line") or end))
    [(_, block)] = SUGGESTION.findall(str(comment["body"]))
    return "\n".join([*lines[: start - 1], *block.splitlines(), *lines[end:]]) + "\n"


def test_the_fix_is_one_review_with_a_suggestion_and_nothing_is_pushed(scene: Scene) -> None:
    scene.github.repo(REPOSITORY).pull_files[PR] = pull_files(scene)
    run = scene.run(scene.event(), **{"on-success": "suggest"})

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert scene.box.origin_sha("changes") == scene.sha  # nothing pushed
    [review] = scene.github.repo(REPOSITORY).reviews
    assert review["event"] == "COMMENT" and review["commit_id"] == scene.sha
    [comment] = review["comments"]
    assert (comment["path"], comment["line"], comment["side"]) == ("calc.py", 2, "RIGHT")
    assert apply(CALC_BUGGY, comment) == CALC_GOOD  # the suggestion is exactly the fix
    [status] = scene.github.repo(REPOSITORY).comments
    assert review["html_url"] in status["body"] and "**Commit suggestions**" in status["body"]
    assert "Nothing was pushed" in status["body"]
    called = scene.github.routes_called() - {f"GET {BLOB_PREFIX}", "POST /graphql"}
    assert "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews" in called
    assert called <= openapi_routes() and scene.github.unmatched == []
    assert scene.github.repo(REPOSITORY).dispatches == []


def test_a_hunk_off_the_pull_requests_diff_goes_into_the_body_as_a_patch(
    scene: Scene, tmp_path: Path
) -> None:
    # The pull request's diff GitHub knows has no line of calc.py (e.g. a large file's patch
    # is omitted): no comment may sit there, so the fix is a patch in the review's body.
    scene.github.repo(REPOSITORY).pull_files[PR] = [{"filename": "calc.py", "status": "modified"}]
    run = scene.run(scene.event(), **{"on-success": "suggest"})

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    [review] = scene.github.repo(REPOSITORY).reviews
    assert review["comments"] == []
    body = str(review["body"])
    assert "fall outside the lines GitHub lets a review comment on" in body
    patch = body.split("```diff\n", 1)[1].rsplit("\n```", 1)[0] + "\n"
    clone = tmp_path / "apply"
    git(tmp_path, "clone", "-q", "-b", "changes", str(scene.box.origin), str(clone))
    subprocess.run(["git", "apply"], input=patch, text=True, cwd=clone, check=True)
    assert (clone / "calc.py").read_text() == CALC_GOOD
    assert "in the review's body as a patch" in scene.github.repo(REPOSITORY).comments[0]["body"]


def test_a_fix_carrying_the_token_is_never_posted_as_a_suggestion(
    tmp_path: Path, github_server: FakeGitHub
) -> None:
    """The fix command writes the token (base64) into the file it fixes: the suggestion would
    publish it, so fixbot escalates with the reason and posts no review."""
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {"app.py": "broken\n", "check.py": LEAK_CHECK_PY}, "initial")
    sha = box.commit("changes", {"app.py": "still broken\n"}, "change")
    box.register_pull("changes", sha)
    ws = box.workspace("changes", merge_into="main")
    inputs = {
        "check-command": "python check.py",
        "fix-commands": f"printf 'fixed\\n# build {ENCODED}\\n' > app.py",
        "on-success": "suggest",
    }
    run = box.run(box.env("pull_request", box.pull_request_event("changes", sha), ws, inputs))
    assert run.outputs["outcome"] == "escalated", run.stdout + run.stderr
    assert "github_token (base64) in app.py" in run.outputs["reason"]
    assert github_server.repo(REPOSITORY).reviews == []
    assert box.origin_sha("changes") == sha


def test_a_refused_review_leaves_the_fix_as_a_patch_in_the_status_comment(scene: Scene) -> None:
    scene.github.repo(REPOSITORY).pull_files[PR] = pull_files(scene)
    route = "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"
    scene.github.fail("POST", route, 403, body={"message": "Resource not accessible"})
    run = scene.run(scene.event(), **{"on-success": "suggest"})

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert scene.box.origin_sha("changes") == scene.sha
    body = scene.github.repo(REPOSITORY).comments[0]["body"]
    assert "the review with suggestions was not posted" in body
    assert "`permissions: pull-requests: write`" in body
    assert "+    return sum(xs)" in body  # the patch
