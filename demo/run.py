"""Run fixbot's main job on the bundled demo repository, in a temporary copy.

The demo's check is `ruff check . && python -m pytest -q`; it fails on lint errors that the fix
command `ruff check --fix .` repairs. No model and no API key are needed: fixbot runs the check,
condenses and classifies the failure, runs the fix command, verifies by re-running the check,
commits the verified fix, and writes its report, which this script prints.

Usage: .venv/bin/python demo/run.py [--keep]   (--keep leaves the temporary copy on disk)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECK = "ruff check . && python -m pytest -q -p no:cacheprovider"
FIX = "ruff check --fix ."


def git(repo: Path, *args: str) -> str:
    """Run git in the demo copy and return its output."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "demo",
        "GIT_AUTHOR_EMAIL": "demo@example.invalid",
        "GIT_COMMITTER_NAME": "demo",
        "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def main() -> int:
    """Copy the demo, run fixbot on it, print the report; return fixbot's exit code."""
    keep = "--keep" in sys.argv[1:]
    tmp = Path(tempfile.mkdtemp(prefix="fixbot-demo-"))
    repo = tmp / "demo"
    shutil.copytree(HERE / "repo", repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "demo: a package with a failing lint check")
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "CI": "1"}
    env.update(GIT_AUTHOR_NAME="demo", GIT_AUTHOR_EMAIL="demo@example.invalid")
    env.update(GIT_COMMITTER_NAME="demo", GIT_COMMITTER_EMAIL="demo@example.invalid")
    print(f"$ fixbot run --check '{CHECK}' --fix-command '{FIX}' -C {repo}\n", flush=True)
    cmd = [
        sys.executable,
        "-m",
        "fixbot",
        "run",
        "--check",
        CHECK,
        "--fix-command",
        FIX,
        "-C",
        str(repo),
    ]
    code = subprocess.run(cmd, env=env, check=False).returncode
    print("\n$ git log --oneline\n" + git(repo, "log", "--oneline"))
    report = repo / ".fixbot" / "report.md"
    if report.exists():
        print(f"$ cat {report}\n\n{report.read_text(encoding='utf-8')}")
    if keep:
        print(f"(the demo copy stays in {repo})")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
