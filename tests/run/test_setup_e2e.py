"""End to end: `setup-command` in `python -m fixbot action` (the Action sandbox, the fake GitHub
and the fake model server on 127.0.0.1).

The check is a tool that exists only after the set-up ran: the set-up copies it from the
repository into a folder that is on PATH but empty until then. Nothing installed on this
machine makes it pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixbot.github.publish.render import STATUS_MARKER
from tests.fakes.action_env import REPOSITORY, TOKEN, ActionRun, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.installation import in_the_image
from tests.fakes.model_server import FakeModelServer
from tests.fakes.repo import git, state_of

pytestmark = pytest.mark.slow
MODEL_KEY = "sk-fake-model-key-0123456789abcdef"
# The project's own check tool, shipped in the repository, installed by the set-up: it fails
# until app.py says LEVEL = 2.
PROJECT_CHECK = """#!/bin/sh
level=$(sed -n 's/^LEVEL = //p' app.py)
if [ "$level" != 2 ]; then
  echo "app.py:1: AssertionError: LEVEL is $level, expected 2"
  exit 1
fi
echo "1 passed"
"""
# The fix command: one step closer per attempt.
BUMP = 'n=$(sed -n "s/^LEVEL = //p" app.py); echo "LEVEL = $((n + 1))" > app.py\n'
FILES = {"app.py": "LEVEL = 0\n", "ci/project-check": PROJECT_CHECK, "ci/bump.sh": BUMP}


@pytest.fixture
def sandbox(tmp_path: Path, github_server: FakeGitHub) -> ActionSandbox:
    (tmp_path / "box").mkdir()
    box = ActionSandbox(tmp_path / "box", github_server)
    box.commit("main", {"app.py": "LEVEL = 2\n", "ci/project-check": PROJECT_CHECK}, "initial")
    return box


def in_image(sandbox: ActionSandbox, env: dict[str, str]) -> ActionRun:
    """`fixbot action` where the image's runtime file is (`tests.fakes.installation`)."""
    return sandbox.run(env, command=in_the_image([sys.executable, "-m", "fixbot", "action"]))


def action_env(
    sandbox: ActionSandbox, tmp_path: Path, sha: str, inputs: dict[str, str]
) -> dict[str, str]:
    """The runner's variables for a pull_request run, a model key, a registry variable, and an
    empty `setup-bin` folder first on PATH."""
    ws = sandbox.workspace("changes", merge_into="main")
    env = sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, inputs)
    bin_dir = tmp_path / "setup-bin"
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env["OPENAI_API_KEY"] = MODEL_KEY
    env["PRIVATE_REGISTRY_URL"] = "https://registry.example/simple"
    # The container's messages, on the host: the drop to its unprivileged user needs the image
    # (tests/process/test_sandbox.py and the image's tests prove it); the set-up's tools live
    # under pytest's mode-0700 folders, which that user may not enter.
    env["INPUT_RUN-AS"] = "self"
    return env


def test_setup_installs_the_check_tool_once_and_never_sees_the_token_or_a_model_key(
    sandbox: ActionSandbox, github_server: FakeGitHub, tmp_path: Path
) -> None:
    sha = sandbox.commit("changes", FILES, "lower the level")
    runs, dump, bin_dir = tmp_path / "setup-runs.txt", tmp_path / "setup-env.txt", "setup-bin"
    setup = (
        f"echo ran >> {runs} && env > {dump} && mkdir -p {tmp_path / bin_dir} build "
        f"&& cp ci/project-check {tmp_path / bin_dir}/ && chmod +x {tmp_path / bin_dir}/* "
        "&& touch build/made-by-setup && echo installed the project"
    )
    inputs = {
        "setup-command": setup,
        "check-command": "project-check",
        "fix-commands": "sh ci/bump.sh",
    }
    env = action_env(sandbox, tmp_path, sha, inputs)
    assert not (tmp_path / bin_dir).exists()  # the check tool is not there before the set-up

    run = in_image(sandbox, env)

    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["outcome"] == "fixed" and run.outputs["attempts"] == "2"
    pushed = sandbox.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] and pushed != sha
    assert git(sandbox.origin, "show", f"{pushed}:app.py") == "LEVEL = 2"
    files = git(sandbox.origin, "ls-tree", "-r", "--name-only", str(pushed)).splitlines()
    assert "build/made-by-setup" not in files  # what the set-up made is never committed
    assert runs.read_text().splitlines() == ["ran"]  # once, across three checks
    seen = dump.read_text()
    assert TOKEN not in seen and MODEL_KEY not in seen
    assert "OPENAI_API_KEY" not in seen and "INPUT_GITHUB-TOKEN" not in seen
    assert "PRIVATE_REGISTRY_URL=https://registry.example/simple" in seen
    workspace = Path(env["GITHUB_WORKSPACE"])
    assert "installed the project" in (state_of(workspace) / "setup.log").read_text()


def test_a_failed_setup_is_an_error_with_its_output_and_no_model_call(
    sandbox: ActionSandbox,
    github_server: FakeGitHub,
    model_server: FakeModelServer,
    tmp_path: Path,
) -> None:
    sha = sandbox.commit("changes", FILES, "lower the level")
    setup = "echo 'ERROR: No matching distribution found for nothere==9.9'; exit 1"
    inputs = {
        "setup-command": setup,
        "check-command": "project-check",
        "fix-commands": "sh ci/bump.sh",
        "model": "openai/fake",
        "api-base": model_server.url,
    }
    env = action_env(sandbox, tmp_path, sha, inputs)

    run = in_image(sandbox, env)

    assert run.code == 2, run.stdout + run.stderr
    assert run.outputs["outcome"] == "error"
    assert run.outputs["reason"].startswith("setup failed: `echo")
    assert "exited with code 1" in run.outputs["reason"]
    comments = github_server.repo(REPOSITORY).comments
    assert len(comments) == 1 and comments[0]["body"].startswith(STATUS_MARKER)
    for shown in (run.summary, comments[0]["body"]):
        assert "setup failed" in shown and "- Exit code: 1" in shown
        assert "No matching distribution found for nothere==9.9" in shown
        assert "the setup command failed; fix it in the workflow" in shown
    assert model_server.requests == []  # no model call
    assert sandbox.origin_sha("changes") == sha  # nothing pushed
    assert github_server.repo(REPOSITORY).pulls == []
    branches = git(sandbox.origin, "for-each-ref", "--format=%(refname)", "refs/heads")
    assert branches.splitlines() == ["refs/heads/changes", "refs/heads/main"]


HINT = (
    "the check runs inside fixbot's container; install your tools with `setup-command`, "
    "or use the runner mode"
)


def test_a_check_tool_missing_from_the_container_is_named_before_the_run(
    sandbox: ActionSandbox, github_server: FakeGitHub, tmp_path: Path
) -> None:
    sha = sandbox.commit("changes", FILES, "lower the level")
    inputs = {"check-command": "project-check -q", "fix-commands": "sh ci/bump.sh"}
    run = in_image(sandbox, action_env(sandbox, tmp_path, sha, inputs))

    assert run.code == 2, run.stdout + run.stderr
    assert run.outputs["outcome"] == "error"
    assert "`project-check` (from the check command `project-check -q`)" in run.summary
    assert HINT in run.summary and HINT in run.outputs["reason"]


def test_a_check_that_exits_127_in_the_container_names_the_likely_cause(
    sandbox: ActionSandbox, github_server: FakeGitHub, tmp_path: Path
) -> None:
    # The missing tool hides in a script, out of the preflight's sight: the check exits 127.
    files = {**FILES, "ci/check.sh": "project-check -q\n"}
    sha = sandbox.commit("changes", files, "lower the level")
    inputs = {"check-command": "sh ci/check.sh", "fix-commands": "sh ci/bump.sh"}
    run = in_image(sandbox, action_env(sandbox, tmp_path, sha, inputs))

    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["outcome"] == "escalated"
    assert "the check could not find a command (exit 127)" in run.summary
    assert HINT in run.summary
    assert HINT in github_server.repo(REPOSITORY).comments[0]["body"]
