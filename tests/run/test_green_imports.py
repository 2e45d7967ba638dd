"""What a green run imports: the modules of the check, the state and the report, not the model
agent (its templates, tools and protocols), litellm, the GitHub client, the inference of
commands when the check is given, or the runner's variables' model outside GitHub Actions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.repo import make_repo

SCRIPT = """
import json, sys
from fixbot.cli import main
code = main(["run", "--check", "true", "--fix-command", "true", "-C", sys.argv[1], "--json"])
print(json.dumps([code, sorted(sys.modules)]))
"""


@pytest.mark.slow
def test_a_green_run_imports_no_model_agent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("GITHUB_")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(repo)],
        capture_output=True,
        text=True,
        check=True,
        env=env,  # a workstation's run, also when the tests run in GitHub Actions
    )
    code, modules = json.loads(done.stdout.splitlines()[-1])
    assert code == 0, done.stderr
    agent = [m for m in modules if m.startswith("fixbot.agent.") and m != "fixbot.agent.paths"]
    assert agent == []
    assert not [m for m in modules if m.split(".")[0] in ("litellm", "openai", "github", "gql")]
    assert not [m for m in modules if m.startswith(("fixbot.infer", "fixbot.run.zeroconf"))]
    assert "pydantic_settings" not in modules  # `GitHubEnv`, outside GitHub Actions
