"""Run fixbot's main job on the bundled demo repository, in a temporary copy.

The demo package has lint errors and a real bug. Its check is `ruff check . && pytest -q`.
fixbot runs the check (lint fails), runs the fix command `ruff check --fix .`, verifies (now a
test fails: the bug), asks the model, verifies again (green), commits, reviews its own diff and
writes its report, which this script prints with the git log.

No API key is needed: unless you pass `--model`, the model is a scripted stand-in served on
127.0.0.1 (`tests/fakes/model_server.py`, the fake OpenAI-compatible server the tests use), so
the demo shows litellm's real HTTP path and fixbot's tool protocol with canned answers.

Usage: .venv/bin/python demo/run.py [--keep] [--model PROVIDER/MODEL]
  --keep    leave the temporary copy on disk
  --model   use a real model instead (its key in the provider's variable, e.g. OPENAI_API_KEY)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.fakes.model_server import FakeModelServer, tool_call  # noqa: E402

CHECK = "ruff check . && python -m pytest -q -p no:cacheprovider"
FIX = "ruff check --fix ."
IDENTITY = {
    "GIT_AUTHOR_NAME": "demo",
    "GIT_AUTHOR_EMAIL": "demo@example.invalid",
    "GIT_COMMITTER_NAME": "demo",
    "GIT_COMMITTER_EMAIL": "demo@example.invalid",
}
# What the stand-in model answers, request by request: the diagnosis of the failure the fix
# command left (a test fails), the fix attempt, then the self-review.
SCRIPT = [
    tool_call(
        "submit_diagnosis",
        why=["test_mean fails: mean([1, 2, 3]) returns 1.0, not 2.0"],
        root_cause={
            "category": "code_bug",
            "description": "mean() overwrites its running total instead of adding to it",
            "confidence": 0.9,
        },
        evidence=["calc.py: total = value"],
        next_step="add each value to total in mean()",
    ),
    tool_call("read_file", path="calc.py"),
    tool_call("replace_in_file", path="calc.py", old="total = value\n", new="total += value\n"),
    tool_call(
        "finish",
        summary="accumulate the values in mean()",
        diagnosis="mean() assigned each value to total instead of adding it, "
        "so it returned the last value divided by the count",
    ),
    tool_call(
        "submit_review",
        findings=[
            {
                "path": "calc.py",
                "line": 14,
                "severity": "minor",
                "message": "describe() has no type hints",
            }
        ],
    ),
]


def git(repo: Path, *args: str) -> str:
    """Run git in the demo copy and return its output."""
    env = {**os.environ, **IDENTITY}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def copy_demo(tmp: Path) -> Path:
    """Copy the demo package into `tmp` and make it a git repository with one commit."""
    repo = tmp / "demo"
    shutil.copytree(HERE / "repo", repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "demo: a package with lint errors and a bug")
    return repo


def run_fixbot(repo: Path, model_args: list[str], extra_env: dict[str, str]) -> int:
    """Run `fixbot run` on the copy, with this venv's tools first on PATH; return its exit code."""
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, **IDENTITY, **extra_env, "CI": "1"}
    env["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    args = ["--check", CHECK, "--fix-command", FIX, *model_args, "-C", str(repo)]
    print("$ fixbot run " + " ".join(f"'{a}'" if " " in a else a for a in args) + "\n", flush=True)
    cmd = [sys.executable, "-m", "fixbot", "run", *args]
    return subprocess.run(cmd, env=env, check=False).returncode


def main() -> int:
    """Copy the demo, run fixbot on it, print the log and the report; return fixbot's exit code."""
    parser = argparse.ArgumentParser(description="Run fixbot on the bundled demo repository.")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    parser.add_argument("--model", help="a real litellm model instead of the scripted stand-in")
    options = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="fixbot-demo-"))
    repo = copy_demo(tmp)
    try:
        if options.model:
            code = run_fixbot(repo, ["--model", options.model], {})
        else:
            with FakeModelServer(SCRIPT) as server:
                model = ["--model", "openai/scripted-demo", "--api-base", server.url]
                code = run_fixbot(
                    repo, [*model, "--edit-protocol", "tools"], {"OPENAI_API_KEY": "demo-no-key"}
                )
        print("\n$ git log --oneline\n" + git(repo, "log", "--oneline"))
        show = ("show", "--stat", "--format=%B", "HEAD")
        print(f"$ git {' '.join(show)}\n" + git(repo, *show))
        report = repo / ".fixbot" / "report.md"
        if report.exists():
            print(f"$ cat {report}\n\n{report.read_text(encoding='utf-8')}")
    finally:
        if options.keep:
            print(f"(the demo copy stays in {repo})")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
