"""The runner mode end to end, the way runner/action.yml runs it: runner/install.sh creates a fresh
virtual environment and installs fixbot from this checkout with constraints.txt (pip as this
machine is configured: PyPI and its local wheel cache), then `<venv>/bin/fixbot action` runs with
the inputs as `INPUT_*` variables and the job's PATH, on a pull request of a sandbox repository.

The check is a tool that only "the user's earlier step" put on the job's PATH (a folder this test
makes), so it passes only if fixbot runs the check with the job's tool chain, not its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.action_env import ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.paths import ROOT
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
# The project's check, installed by an earlier step of the job (say, `npm ci` or setup-python):
# fails while app.py greets with "hi", and fails if fixbot's own environment leaked into it.
CHECK_TOOL = """#!/bin/sh
if command -v fixbot >/dev/null 2>&1 || [ -n "${VIRTUAL_ENV:-}" ]; then
  echo "fixbot's virtual environment leaked into the check" >&2
  exit 3
fi
if grep -q "'hi'" app.py; then
  echo "app.py:1: AssertionError: expected a greeting of hello"
  exit 1
fi
echo "1 passed"
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fixbot installed the way the composite action's "Install fixbot" step does it."""
    target = tmp_path_factory.mktemp("runner") / "fixbot-venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    done = subprocess.run(
        ["bash", str(ROOT / "runner" / "install.sh"), sys.executable, str(target)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def test_runner_mode_installs_fixbot_apart_and_fixes_with_the_jobs_tools(
    venv: Path, tmp_path: Path, github_server: FakeGitHub
) -> None:
    tools = tmp_path / "job-tools"
    tools.mkdir()
    (tools / "project-check").write_text(CHECK_TOOL)
    (tools / "project-check").chmod(0o755)
    (tmp_path / "box").mkdir()
    box = ActionSandbox(tmp_path / "box", github_server)
    box.commit("main", {"app.py": "print('hello')\n"}, "initial")
    sha = box.commit("changes", {"app.py": "print('hi')\n"}, "say hi")
    ws = box.workspace("changes", merge_into="main")
    env = box.env(
        "pull_request",
        box.pull_request_event("changes", sha),
        ws,
        {"check-command": "project-check", "fix-commands": "sed -i s/hi/hello/ app.py"},
    )
    env["PATH"] = os.pathsep.join([str(tools), "/usr/local/bin", "/usr/bin", "/bin"])

    run = box.run(env, command=[str(venv / "bin" / "fixbot"), "action"])

    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["outcome"] == "fixed", run.outputs
    pushed = box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] and pushed != sha
    assert git(box.origin, "show", f"{pushed}:app.py") == "print('hello')"
    installed = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import fixbot, sys; print(fixbot.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert installed.startswith(str(venv)), installed  # not this checkout: a real install
