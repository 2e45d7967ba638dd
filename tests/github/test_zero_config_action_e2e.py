"""End to end: `fixbot action` on a failed `workflow_run` with no `check-command`, against the
fake GitHub and model, on a small real project per ecosystem: the failed step of the workflow
at the run's head is the check, and the bug is fixed and pushed."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from tests.fakes.action_env import REPOSITORY, ActionSandbox, failed_workflow_run
from tests.fakes.github_server import FakeGitHub
from tests.fakes.model_server import FakeModelServer, text
from tests.fakes.projects import FAILURE_LOGS, PROJECTS, require_toolchain, setup_step
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
RUN_ID, PR = 5151, 2
USER_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)  # the tests' HOME is a temporary one


@pytest.mark.parametrize("ecosystem", sorted(PROJECTS))
def test_the_failed_step_is_reproduced_and_fixed_with_no_check_command(
    tmp_path: Path, github_server: FakeGitHub, model_server: FakeModelServer, ecosystem: str
) -> None:
    require_toolchain(ecosystem)
    files, path, buggy, fixed = PROJECTS[ecosystem]
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {**files, path: files[path].replace(buggy, fixed)}, "initial")
    sha = box.commit("changes", {path: files[path]}, "drop the first item")
    steps = [
        ("Set up job", "success"),
        ("Run actions/checkout@v4", "success"),
        (setup_step(ecosystem), "success"),
        ("Run tests", "failure"),
        ("Complete job", "success"),
    ]
    jobs = [("test (ubuntu-latest)", "failure", steps, FAILURE_LOGS[ecosystem])]
    github_server.add_run(REPOSITORY, RUN_ID, sha, "changes", jobs)
    github_server.add_pull(REPOSITORY, PR, ("changes", sha))
    line = next(x for x in files[path].splitlines() if buggy in x)
    model_server.enqueue(
        text(
            f"{path}\n<<<<<<< SEARCH\n{line}\n=======\n{line.replace(buggy, fixed)}\n"
            ">>>>>>> REPLACE\n\nSUMMARY: sum every item"
        ),
        text("[]"),
    )
    inputs = {"check-command": "", "model": "openai/fake", "api-base": model_server.url}
    env = box.env(
        "workflow_run",
        failed_workflow_run(github_server.url, sha, RUN_ID, PR),
        box.workspace("main"),
        inputs,
    )
    env.update(
        {
            "FIXBOT_EDIT_PROTOCOL": "text",
            "OPENAI_API_KEY": "sk-fake",
            "RUSTUP_HOME": str(USER_HOME / ".rustup"),
            "CARGO_HOME": str(USER_HOME / ".cargo"),
        }
    )
    run = box.run(env, timeout=900)

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    check = files[".github/workflows/ci.yml"].split("run: ")[-1].strip()
    origin = "from .github/workflows/ci.yml, job `test`, step `Run tests`"
    assert f"fixbot: check: `{check}` ({origin})" in run.stdout
    assert "matrix of job `test`: os=ubuntu-latest (the combination of `test (ubuntu-latest)`)" in (
        run.stdout
    )
    assert "the check reproduces the failed step" in run.summary
    pushed = box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] != sha
    assert fixed in git(box.origin, "show", f"{pushed}:{path}")
    assert f"the check inferred {origin}" in git(box.origin, "log", "-1", "--format=%B", pushed)


@pytest.mark.parametrize("ecosystem", ["go", "python"])
def test_a_pull_request_with_no_check_command_is_checked_as_the_cli_infers_it(
    tmp_path: Path, github_server: FakeGitHub, model_server: FakeModelServer, ecosystem: str
) -> None:
    require_toolchain(ecosystem)
    files, path, buggy, fixed = PROJECTS[ecosystem]
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {**files, path: files[path].replace(buggy, fixed)}, "initial")
    sha = box.commit("changes", {path: files[path]}, "drop the first item")
    line = next(x for x in files[path].splitlines() if buggy in x)
    model_server.enqueue(
        text(
            f"{path}\n<<<<<<< SEARCH\n{line}\n=======\n{line.replace(buggy, fixed)}\n"
            ">>>>>>> REPLACE\n\nSUMMARY: sum every item"
        ),
        text("[]"),
    )
    inputs = {"check-command": "", "model": "openai/fake", "api-base": model_server.url}
    workspace = box.workspace("changes", merge_into="main")
    env = box.env("pull_request", box.pull_request_event("changes", sha), workspace, inputs)
    env.update({"FIXBOT_EDIT_PROTOCOL": "text", "OPENAI_API_KEY": "sk-fake"})
    run = box.run(env, timeout=900)

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    check = files[".github/workflows/ci.yml"].split("run: ")[-1].strip()
    origin = "from .github/workflows/ci.yml, job `test`, step `Run tests`"
    assert f"fixbot: check: `{check}` ({origin})" in run.stdout
    # no failed run to reproduce: the matrix is the CLI's first combination, Linux's
    assert "matrix of job `test`: os=ubuntu-latest (the first combination)" in run.stdout
    assert f"the check was inferred: `{check}` ({origin})" in run.summary
    assert not any("/actions/runs" in r.path for r in github_server.requests)
    pushed = box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] != sha
    assert fixed in git(box.origin, "show", f"{pushed}:{path}")
    assert f"the check inferred {origin}" in git(box.origin, "log", "-1", "--format=%B", pushed)
