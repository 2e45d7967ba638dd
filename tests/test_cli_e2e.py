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

from tests.fakes.paths import ROOT
from tests.fakes.repo import git, make_repo, run_fixbot, running, state_of

LINT_BROKEN = """\
import os
import sys


def greet(name):
    return f"hello " + name
"""


@pytest.mark.slow
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
    state = json.loads((state_of(repo) / "state.json").read_text())
    assert [a["number"] for a in state["attempts"]] == [0, 1]
    first, fix = state["attempts"]
    assert first["error_class"] == "fixable" and first["category"] == "lint"
    assert fix["fixer"] == "fix-commands" and fix["files_changed"] == ["app.py"] and fix["passed"]
    report = Path(outcome["report_path"]).read_text()
    assert "fixbot report: fixed" in report and "`app.py`" in report
    assert "/.fixbot/" in (repo / ".git" / "info" / "exclude").read_text()
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.slow
def test_configuration_errors_are_listed_together_with_exit_2(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": "[tool.fixbot]\nretries = 3\n"})
    result = run_fixbot(
        "run", "--check", "true", "--max-attempts", "0", "--timeout", "soon", "-C", str(repo)
    )
    assert result.code == 2
    assert "unknown key 'retries'" in result.stderr
    assert "--max-attempts" in result.stderr and "--timeout" in result.stderr


@pytest.mark.slow
def test_not_a_git_repository(tmp_path: Path) -> None:
    result = run_fixbot("run", "--check", "true", "-C", str(tmp_path), "--json")
    assert result.code == 2 and result.json["outcome"] == "error"
    assert "not a git repository" in result.json["reason"]


@pytest.mark.slow
def test_no_fixer_is_a_configuration_error_before_the_check(tmp_path: Path) -> None:
    """The README's first example without a model: exit 2 at once, naming the flag to set."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    marker = tmp_path / "check-ran"
    result = run_fixbot("run", "--check", f"touch {marker}; exit 1", "-C", str(repo), "--json")
    assert result.code == 2 and result.json["outcome"] == "error"
    assert "no fixer is configured" in result.json["reason"]
    assert "--model" in result.json["reason"] and "--fix-commands" in result.json["reason"]
    assert not marker.exists()  # nothing was run
    assert "Traceback" not in result.stderr


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


def saved_state(repo: Path) -> dict:  # type: ignore[type-arg]
    try:
        return dict(json.loads((state_of(repo) / "state.json").read_text()))
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
        attempts = saved_state(repo).get("attempts", [])
        return len(attempts) == 2 and attempts[1]["fixer"] is not None and not attempts[1]["done"]

    wait_for(verifying_attempt_one, HANG_GUARD_S)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    killed = saved_state(repo)
    assert killed["outcome"] is None and killed["attempts"][1]["files_changed"] == ["value.txt"]
    result = run_fixbot(*args)
    assert result.code == 0, result.stderr
    resuming = f"resuming the unfinished run {killed['run_id']}: 1 fix attempt(s) recorded"
    assert resuming in result.stderr
    assert result.json["outcome"] == "fixed"
    assert result.json["attempts"] == 2  # attempt 1 was verified, not redone
    final = saved_state(repo)
    assert [a["number"] for a in final["attempts"]] == [0, 1, 2]
    assert final["attempts"][1]["files_changed"] == ["value.txt"] and final["attempts"][1]["done"]
    assert final["start_sha"] == killed["start_sha"]


FIX_TRUE = ("--fix-command", "true")
# Only a hang fails on this bound, never a slow machine: it is far above any run here.
HANG_GUARD_S = 600


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "code", "said"),
    [
        (signal.SIGTERM, 143, "fixbot: cancelled (signal 15); the state is saved"),
        (signal.SIGINT, 130, "fixbot: interrupted; the state is saved: run again to continue"),
    ],
)
def test_a_signal_kills_the_check_saves_state_and_exits_fast(
    tmp_path: Path, sig: signal.Signals, code: int, said: str
) -> None:
    """A cancelled workflow (SIGTERM) or Ctrl-C (SIGINT): one line, its exit code, no traceback.

    The check would sleep an hour: fixbot exiting at all (within the generous hang guard) and
    the check's process being gone show that fixbot killed it rather than waited for it. No
    duration is asserted: load on the machine must not fail this test."""
    pidfile = tmp_path / "check.pid"
    check = (
        f"{sys.executable} -c \"import os, time; open('{pidfile}', 'w').write(str(os.getpid())); "
        'time.sleep(3600)"'
    )
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "fixbot", "run", "--check", check, *FIX_TRUE, "-C", str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell without job control starts background jobs (a CI runner's `... &`) with SIGINT
        # ignored, and Python then keeps it ignored: fixbot would never see the Ctrl-C this test
        # sends. A terminal's fixbot has the default disposition; give the test's one the same.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def started() -> bool:
        written = pidfile.exists() and pidfile.read_text().strip() != ""
        return written or proc.poll() is not None

    wait_for(started, HANG_GUARD_S)
    assert proc.poll() is None, proc.communicate()
    check_pid = int(pidfile.read_text())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == code
    assert said in err and "Traceback" not in err
    assert check_pid > 0 and not running(str(pidfile))  # its pid is the namespace's
    state = saved_state(repo)
    assert state["attempts"][0]["number"] == 0 and state["outcome"] is None


@pytest.mark.slow
def test_the_readme_demo_runs_the_whole_loop() -> None:
    demo = ROOT / "demo" / "run.py"
    done = subprocess.run(
        [sys.executable, str(demo)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "fixable/lint" in done.stderr and "fixable/assertion" in done.stderr
    assert "fixbot: fixed: the check passes after 2 fix attempts" in out
    assert "fixbot: accumulate the values in mean()" in out  # the model's verified commit
    assert "describe() has no type hints" in out  # the self-review's minor finding, reported
    # The showcase shows no error, and every command it labels is the one whose output follows.
    everything = out + done.stderr
    assert "malformed" not in everything and "no diagnosis" not in everything
    assert "diagnosis: code_bug (0.9) mean() overwrites its running total" in done.stderr
    assert "$ git show --stat --format=%B HEAD\nfixbot: accumulate the values in mean()" in out


COUNTING_CHECK = """\
import pathlib, sys
failing = {"a": 3, "b": 2}.get(pathlib.Path("value.txt").read_text().strip(), 0)
if failing:
    print(f"FAILED test_v.py::test_v - AssertionError: value\\n{failing} failed, 1 passed in 0.01s")
    sys.exit(1)
"""
ONE_STEP = """\
import pathlib
p = pathlib.Path("value.txt")
if p.read_text().strip() == "a":
    p.write_text("b\\n")
"""


@pytest.mark.slow
def test_fixbots_own_leftovers_are_recognised_and_discarded(tmp_path: Path) -> None:
    """After an escalation that kept its best attempt, a new run names the changes as fixbot's
    own and `--discard` removes them; someone else's changes are never discarded."""
    files = {"check.py": COUNTING_CHECK, "fix.py": ONE_STEP, "value.txt": "a\n"}
    repo = make_repo(tmp_path / "repo", files)
    args = ["run", "--check", f"{sys.executable} check.py", "--fix-command"]
    args += [f"{sys.executable} fix.py", "-C", str(repo), "--json"]
    first = run_fixbot(*args)
    assert first.json["outcome"] == "escalated", first.stderr
    assert (repo / "value.txt").read_text() == "b\n"  # the best attempt: 2 failing instead of 3
    again = run_fixbot(*args, "--fresh")
    assert again.code == 2 and "these are fixbot's own" in again.json["reason"]
    assert "--discard" in again.json["reason"]
    discarded = run_fixbot(*args, "--discard")
    assert discarded.json["outcome"] == "escalated", discarded.stderr
    state = json.loads((state_of(repo) / "state.json").read_text())
    assert any("--discard" in note for note in state["notes"])
    (repo / "value.txt").write_text("someone else's\n")
    mine = run_fixbot(*args, "--discard")
    assert mine.code == 2 and "these are fixbot's own" not in mine.json["reason"]
    assert (repo / "value.txt").read_text() == "someone else's\n"


@pytest.mark.slow
def test_a_second_run_on_the_same_repository_stops_at_once(tmp_path: Path) -> None:
    started = tmp_path / "started"
    check = f"touch {started}; sleep 3600; exit 1"  # holds the lock until killed
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    args = ["run", "--check", check, "--fix-command", "true", "-C", str(repo)]
    first = subprocess.Popen(
        [sys.executable, "-m", "fixbot", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        wait_for(started.exists, HANG_GUARD_S)
        second = run_fixbot(*args, "--json")
        assert first.poll() is None  # it returned while the lock was held: it did not wait
        assert second.code == 2
        assert f"another fixbot run (PID {first.pid}, started at" in second.json["reason"]
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(HANG_GUARD_S)
    resumed = run_fixbot("run", "--check", "true", "--fix-command", "true", "-C", str(repo))
    assert resumed.code == 0, resumed.stderr  # the killed holder's lock does not block


COUNTDOWN_CHECK = """\
import pathlib, sys
left = int(pathlib.Path("value.txt").read_text())
if left:
    print(f"FAILED test_v.py::test_step_{left} - AssertionError\\n1 failed in 0.01s")
    sys.exit(1)
"""
COUNTDOWN_FIX = """\
import pathlib
p = pathlib.Path("value.txt")
p.write_text(str(int(p.read_text()) - 1) + "\\n")
"""


@pytest.mark.slow
def test_each_runs_report_is_kept_and_its_retry_command_works_when_pasted(tmp_path: Path) -> None:
    """An escalation that spent its attempts while making progress offers a retry command with
    every flag the user gave; pasted into a shell it runs (not `no fixer is configured`); every
    run keeps its own report."""
    files = {"check.py": COUNTDOWN_CHECK, "fix.py": COUNTDOWN_FIX, "value.txt": "20\n"}
    repo = make_repo(tmp_path / "repo", files)
    args = ["run", "--check", f"{sys.executable} check.py", "--fix-command"]
    args += [f"{sys.executable} fix.py", "--timeout", "77", "-C", str(repo), "--json"]
    first = run_fixbot(*args)
    assert first.json["outcome"] == "escalated", first.stderr
    report = Path(first.json["report_path"])
    assert report.parent.parent.name == "runs" and report.is_file()
    text = report.read_text()
    assert (repo / ".fixbot" / "report.md").read_text() == text
    assert "Wall time: 0.0 s" not in text
    assert "/fixbot retry" not in text  # offered only where it is supported (the Action)
    retry = next(
        line.split("`")[1] for line in text.splitlines() if "Retry with more attempts" in line
    )
    assert "--fix-commands" in retry and "--timeout 77" in retry and "--max-attempts 8" in retry
    # The working tree holds the best attempt: the line carries --discard, and runs as pasted.
    assert "The working directory holds" in text and "--discard" in retry
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    pasted = subprocess.run(
        f"{retry} --json",
        shell=True,
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert pasted.returncode == 1, pasted.stderr  # escalated again: it ran, with its fixer
    again = json.loads(pasted.stdout)
    assert again["outcome"] == "escalated" and again["report_path"] != str(report)
    assert report.read_text() == text  # the first run's record is still there
    assert len(list((state_of(repo) / "runs").iterdir())) == 2


@pytest.mark.slow
def test_a_fixed_runs_report_shows_the_diff_stat_and_the_review(tmp_path: Path) -> None:
    files = {"check.py": COUNTING_CHECK, "fix.py": FIX, "value.txt": "a\n"}
    repo = make_repo(tmp_path / "repo", files)
    result = run_fixbot(
        "run",
        "--check",
        f"{sys.executable} check.py",
        "--fix-command",
        f"{sys.executable} fix.py",
        "-C",
        str(repo),
        "--json",
    )
    assert result.json["outcome"] == "fixed", result.stderr
    text = Path(result.json["report_path"]).read_text()
    assert "## What changed" in text and "value.txt | 2 +-" in text
    assert "- Self-review: not run" in text  # no model: no self-review


MODEL_ARGS = ("--model", "anthropic/claude-sonnet-4-5")


@pytest.mark.slow  # a subprocess Python
def test_a_missing_key_stops_before_the_check(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    marker = tmp_path / "check-ran"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    check = f"touch {marker}; exit 1"
    done = subprocess.run(
        [sys.executable, "-m", "fixbot", "run", "--check", check, *MODEL_ARGS, "-C", str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 2  # no model call, and (the marker) no check
    assert "ANTHROPIC_API_KEY is not set (needed by anthropic/claude-sonnet-4-5)" in done.stderr
    assert not marker.exists() and "Traceback" not in done.stderr


@pytest.mark.slow
def test_an_unreachable_provider_is_an_error_not_an_escalation(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    result = run_fixbot(
        "run", "--check", "echo 'AssertionError: boom'; exit 1", "--model", "openai/m",
        "--api-base", f"http://127.0.0.1:{port}/v1", "--edit-protocol", "tools",
        "-C", str(repo), "--json", env={"OPENAI_API_KEY": "sk-test-not-a-real-key"},
    )  # fmt: skip
    assert result.code == 2 and result.json["outcome"] == "error", result.stderr
    assert f"could not reach the model provider's host (127.0.0.1:{port})" in result.json["reason"]
    assert "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("case", ["empty repository", "missing folder", "not a repository"])
def test_ordinary_situations_are_one_line_not_a_traceback(tmp_path: Path, case: str) -> None:
    where = tmp_path / "project"
    if case != "missing folder":
        where.mkdir()
    if case == "empty repository":
        subprocess.run(["git", "init", "-q", str(where)], check=True)
    result = run_fixbot("run", "--check", "true", "--fix-command", "true", "-C", str(where))
    assert result.code == 2 and "Traceback" not in result.stderr
    said = {
        "empty repository": "no commits yet: commit first",
        "missing folder": "does not exist",
        "not a repository": "is not a git repository",
    }[case]
    assert said in result.stderr
