"""Four real projects, one per ecosystem (click, minimist, spf13/pflag, strsim;
`tests/fakes/realprojects.py` says where each one's source and workflow come from), fixed end
to end with no check written at all: by `fixbot run` with no `--check`, and by the Action on a
failed `workflow_run` with no `check-command` against the fake GitHub. The set-up and the check
are the project's CI's, said with where they come from; the fake model serves the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.action_env import REPOSITORY, ActionSandbox, failed_workflow_run
from tests.fakes.github_server import FakeGitHub
from tests.fakes.model_server import FakeModelServer, text
from tests.fakes.paths import ROOT
from tests.fakes.realprojects import PROJECTS, Real, environment, require, source
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
RUN_ID, PR = 6161, 2
FLAGS = (
    "--model",
    "openai/fake",
    "--edit-protocol",
    "text",
    "--no-review",
    "--no-infer-fixes",
    "--json",
    "--api-base",
)
ORIGIN = "from .github/workflows/ci.yml, job `{job}`, step `{step}`"


def broken(real: Real, files: dict[str, str]) -> dict[str, str]:
    return {**files, real.path: files[real.path].replace(real.fixed, real.buggy)}


def fix_reply(real: Real, files: dict[str, str]) -> dict[str, object]:
    """The fake model's answer: the edit that undoes the bug, as a search/replace block."""
    line = next(x for x in files[real.path].splitlines() if real.fixed.strip() in x)
    wrong = line.replace(real.fixed.strip(), real.buggy.strip())
    return text(
        f"{real.path}\n<<<<<<< SEARCH\n{wrong}\n=======\n{line}\n>>>>>>> REPLACE\n\n"
        "SUMMARY: the off-by-one is undone"
    )


def says_the_plan(real: Real, output: str) -> None:
    """The progress says the set-up and the check, each with the workflow's step it is from."""
    origin = ORIGIN.format(job=real.job, step=real.step)
    assert f"fixbot: check: `{real.check}` ({origin})" in output.splitlines(), output
    assert any(x.startswith(f"fixbot: set-up: {real.setup}") for x in output.splitlines())


@pytest.mark.parametrize("ecosystem", sorted(PROJECTS))
def test_a_real_project_is_fixed_by_fixbot_run_with_no_check(
    tmp_path: Path, model_server: FakeModelServer, ecosystem: str
) -> None:
    real = PROJECTS[ecosystem]
    require(real)
    files = source(real)
    repo = tmp_path / "repo"
    repo.mkdir()
    for name, content in broken(real, files).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(content, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"{real.name} with an off-by-one")
    model_server.enqueue(fix_reply(real, files), text("[]"))
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-fake-key-for-tests",
        **environment(real, files, tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "fixbot", "run", *FLAGS, model_server.url, "-C", str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard only
        cwd=ROOT,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    says_the_plan(real, done.stderr)
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["outcome"] == "fixed", outcome
    assert real.fixed in git(repo, "show", f"HEAD:{real.path}")
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [real.path]


@pytest.mark.parametrize("ecosystem", sorted(PROJECTS))
def test_a_real_projects_failed_ci_step_is_reproduced_and_fixed_by_the_action(
    tmp_path: Path, github_server: FakeGitHub, model_server: FakeModelServer, ecosystem: str
) -> None:
    real = PROJECTS[ecosystem]
    require(real)
    files = source(real)
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", files, f"{real.name}")
    sha = box.commit("changes", {real.path: broken(real, files)[real.path]}, "an off-by-one")
    shown = [(name, "success") for name in real.steps_shown[:-1]]
    steps = [
        ("Set up job", "success"),
        *shown,
        (real.steps_shown[-1], "failure"),
        ("Complete job", "success"),
    ]
    github_server.add_run(
        REPOSITORY, RUN_ID, sha, "changes", [(real.job_shown, "failure", steps, real.log)]
    )
    github_server.add_pull(REPOSITORY, PR, ("changes", sha))
    model_server.enqueue(fix_reply(real, files), text("[]"))
    inputs = {
        "check-command": "",
        "model": "openai/fake",
        "api-base": model_server.url,
        "infer-fixes": "false",
    }
    env = box.env(
        "workflow_run",
        failed_workflow_run(github_server.url, sha, RUN_ID, PR),
        box.workspace("main"),
        inputs,
    )
    extra = environment(real, files, tmp_path)
    env.update({**extra, "FIXBOT_EDIT_PROTOCOL": "text", "OPENAI_API_KEY": "sk-fake"})
    if "PATH" in extra:  # the project's own Python before the one fixbot runs under
        env["PATH"] = extra["PATH"].split(os.pathsep)[0] + os.pathsep + env["PATH"]
    run = box.run(env, timeout=900)

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    says_the_plan(real, run.stdout)
    assert f"`{real.job_shown}`)" in run.stdout  # the matrix combination the run showed
    assert "the check reproduces the failed step" in run.summary
    pushed = box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] != sha
    assert real.fixed in git(box.origin, "show", f"{pushed}:{real.path}")
    origin = ORIGIN.format(job=real.job, step=real.step)
    assert f"the check inferred {origin}" in git(box.origin, "log", "-1", "--format=%B", pushed)
