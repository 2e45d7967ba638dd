"""End to end: `fixbot run` as a subprocess on a real project with a real bug, model served by the
fake server (itself a subprocess, `python -m tests.fakes.model_server`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.agent_repo import BUGGY_LINE, FIXED_LINE, git, make_repo
from tests.fakes.model_server import tool_call
from tests.fakes.paths import ROOT

SECRET = "e2e-secret-value-123456"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """Start the fake model server with the fix script; yield (port, record file)."""
    script = [
        tool_call("replace_in_file", path="calc.py", old=BUGGY_LINE, new=FIXED_LINE),
        tool_call("finish", summary="sum every item", diagnosis="items[1:] dropped the first item"),
        tool_call("submit_review", findings=[]),
    ]
    (tmp_path / "script.json").write_text(json.dumps(script))
    port_file, record = tmp_path / "port", tmp_path / "record.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes.model_server",
            "--script",
            str(tmp_path / "script.json"),
            "--port-file",
            str(port_file),
            "--record",
            str(record),
        ],
        cwd=ROOT,
    )
    try:
        # Until the server says its port or dies; a busy machine only makes this slower.
        while not port_file.exists() and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the fake model server exited before it listened"
        yield int(port_file.read_text()), record
    finally:
        proc.terminate()
        proc.wait()


@pytest.mark.slow
def test_fixbot_run_fixes_a_real_bug_with_the_model(
    tmp_path: Path, served: tuple[int, Path]
) -> None:
    port, record = served
    repo = make_repo(tmp_path / "project")
    (repo / "tests/test_calc.py").write_text(
        (repo / "tests/test_calc.py")
        .read_text()
        .replace("from calc", "import sys\nsys.path.insert(0, '.')\nfrom calc")
        + f"\n\ndef test_env_secret_is_printed():\n    print('{SECRET}')\n"
    )
    git(repo, "commit", "-qam", "tests")
    start = git(repo, "rev-parse", "HEAD")
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-fake-key-for-tests",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DEPLOY_TOKEN": SECRET,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fixbot",
            "run",
            "--check",
            f"{sys.executable} -m pytest -q -s -p no:cacheprovider",
            "--model",
            "openai/fake",
            "--api-base",
            f"http://127.0.0.1:{port}/v1",
            "--edit-protocol",
            "tools",
            "-C",
            str(repo),
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only, far above any run on a busy machine
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["outcome"] == "fixed" and outcome["attempts"] == 1
    assert outcome["commit_sha"] == git(repo, "rev-parse", "HEAD") != start
    assert FIXED_LINE in (repo / "calc.py").read_text()
    # The commit holds the fix only; the check's bytecode stays untracked (it is the user's to
    # ignore, never fixbot's to commit), and nothing else is left behind.
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["calc.py"]
    left = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert all(line.startswith("?? ") and "__pycache__/" in line for line in left), left
    sent = record.read_text()
    assert SECRET not in sent and "[REDACTED]" in sent  # the check printed the secret
    bodies = [json.loads(line)["body"] for line in sent.splitlines()]
    assert [b["model"] for b in bodies] == ["fake", "fake", "fake"]
    assert "submit_review" in json.dumps(bodies[-1]["tools"])
    # every call is in the report's table, named by what it was for: two of the fixer's, then
    # the self-review's (columns: attempt, call, for, model, ...)
    report = (repo / ".fixbot" / "report.md").read_text()
    table = report.split("### Model calls")[1].split("\n### ")[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")][1:]
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("| 1", "fix", "openai/fake"),
        ("| 1", "fix", "openai/fake"),
        ("| 1", "review", "openai/fake"),
    ], table
