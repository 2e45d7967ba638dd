"""`fixbot run` as a subprocess in real temporary repositories: the whole loop end to end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.repo import git, make_repo, pid_alive, run_fixbot

LINT_BROKEN = """\
import os
import sys


def greet(name):
    return f"hello " + name
"""


def test_ruff_failure_fixed_by_fix_command(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": LINT_BROKEN})
    start = git(repo, "rev-parse", "HEAD")
    result = run_fixbot(
        "run",
        "--check",
        "ruff check --no-cache .",
        "--fix-command",
        "ruff check --no-cache --fix .",
        "-C",
        str(repo),
        "--json",
    )
    assert result.code == 0, result.stderr
    outcome = result.json
    assert outcome["outcome"] == "fixed" and outcome["attempts"] == 1
    assert set(outcome) == {
        "outcome",
        "reason",
        "attempts",
        "commit_sha",
        "pr_url",
        "report_path",
        "cost_usd",
    }
    head = git(repo, "rev-parse", "HEAD")
    assert outcome["commit_sha"] == head and git(repo, "rev-parse", "HEAD~1") == start
    assert git(repo, "log", "-1", "--format=%s") == "fixbot: ran `ruff check --no-cache --fix .`"
    assert "import os" not in (repo / "app.py").read_text()
    state = json.loads((repo / ".fixbot" / "state.json").read_text())
    assert [a["number"] for a in state["attempts"]] == [0, 1]
    first, fix = state["attempts"]
    assert first["error_class"] == "fixable" and first["category"] == "lint"
    assert fix["fixer"] == "fix-commands" and fix["files_changed"] == ["app.py"] and fix["passed"]
    report = Path(outcome["report_path"]).read_text()
    assert "fixbot report: fixed" in report and "`app.py`" in report
    assert "/.fixbot/" in (repo / ".git" / "info" / "exclude").read_text()
    assert git(repo, "status", "--porcelain") == ""


def test_configuration_errors_are_listed_together_with_exit_2(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": "[tool.fixbot]\nretries = 3\n"})
    result = run_fixbot(
        "run", "--check", "true", "--max-attempts", "0", "--timeout", "soon", "-C", str(repo)
    )
    assert result.code == 2
    assert "unknown key 'retries'" in result.stderr
    assert "--max-attempts" in result.stderr and "--timeout" in result.stderr


def test_not_a_git_repository(tmp_path: Path) -> None:
    result = run_fixbot("run", "--check", "true", "-C", str(tmp_path), "--json")
    assert result.code == 2 and result.json["outcome"] == "error"
    assert "not a git repository" in result.json["reason"]


def test_no_fixer_escalates_and_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    result = run_fixbot(
        "run", "--check", "echo 'AssertionError: boom'; exit 1", "-C", str(repo), "--json"
    )
    assert result.code == 1 and result.json["outcome"] == "escalated"
    assert "no model is set" in result.stderr
    assert "no fixer is configured" in result.json["reason"]


SLOW_CHECK = """\
import pathlib, sys, time
time.sleep(1.0)
value = pathlib.Path("value.txt").read_text().strip()
if value != "ok":
    print(f"FAILED test_v.py::test_{value} - AssertionError: {value}")
    sys.exit(1)
"""
FIX = """\
import pathlib
p = pathlib.Path("value.txt")
p.write_text({"a": "b", "b": "ok"}.get(p.read_text().strip(), "ok") + "\\n")
"""


def wait_for(predicate, seconds: float) -> None:  # type: ignore[no-untyped-def]
    """Poll `predicate` every 20 ms until true or `seconds` pass (then fail)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def state_of(repo: Path) -> dict:  # type: ignore[type-arg]
    try:
        return dict(json.loads((repo / ".fixbot" / "state.json").read_text()))
    except (OSError, ValueError):
        return {}


@pytest.mark.slow
def test_resume_after_sigkill_loses_no_attempt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"check.py": SLOW_CHECK, "fix.py": FIX, "value.txt": "a\n"})
    args = [
        "run",
        "--check",
        f"{sys.executable} check.py",
        "--fix-command",
        f"{sys.executable} fix.py",
        "-C",
        str(repo),
        "--json",
    ]
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    proc = subprocess.Popen(
        [sys.executable, "-m", "fixbot", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )

    def verifying_attempt_one() -> bool:
        attempts = state_of(repo).get("attempts", [])
        return len(attempts) == 2 and attempts[1]["fixer"] is not None and not attempts[1]["done"]

    wait_for(verifying_attempt_one, 30)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    killed = state_of(repo)
    assert killed["outcome"] is None and killed["attempts"][1]["files_changed"] == ["value.txt"]
    result = run_fixbot(*args)
    assert result.code == 0, result.stderr
    assert result.json["outcome"] == "fixed"
    assert result.json["attempts"] == 2  # attempt 1 was verified, not redone
    final = state_of(repo)
    assert [a["number"] for a in final["attempts"]] == [0, 1, 2]
    assert final["attempts"][1]["files_changed"] == ["value.txt"] and final["attempts"][1]["done"]
    assert final["start_sha"] == killed["start_sha"]


@pytest.mark.slow
def test_sigterm_kills_the_check_saves_state_and_exits_fast(tmp_path: Path) -> None:
    pidfile = tmp_path / "check.pid"
    check = (
        f"{sys.executable} -c \"import os, time; open('{pidfile}', 'w').write(str(os.getpid())); "
        'time.sleep(120)"'
    )
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "fixbot", "run", "--check", check, "-C", str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip() != "", 30)
    check_pid = int(pidfile.read_text())
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(10)
    assert time.monotonic() - sent < 5
    assert proc.returncode == 143
    assert not pid_alive(check_pid)
    state = state_of(repo)
    assert state["attempts"][0]["number"] == 0 and state["outcome"] is None


@pytest.mark.slow
def test_the_readme_demo_runs_the_whole_loop() -> None:
    demo = Path(__file__).resolve().parent.parent / "demo" / "run.py"
    done = subprocess.run(
        [sys.executable, str(demo)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "fixable/lint" in done.stderr and "fixable/assertion" in done.stderr
    assert "fixbot: fixed: the check passes after 2 fix attempts" in out
    assert "fixbot: accumulate the values in mean()" in out  # the model's verified commit
    assert "describe() has no type hints" in out  # the self-review's minor finding, reported
