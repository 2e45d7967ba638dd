"""Fault injection for the process: SIGKILL at seeded random points, and a full disk.

Each test is bounded in time and uses only real subprocesses, real git and temporary folders.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixbot.models import Attempt, Phase
from fixbot.state import RunState, load_state, save_state
from tests.fakes.repo import make_repo, run_fixbot

CHECK = """\
import pathlib, sys, time
time.sleep(0.15)
step = int(pathlib.Path("step.txt").read_text())
if step < 3:
    print(f"FAILED test_s.py::test_step - AssertionError: step {step}\\n1 failed in 0.1s")
    sys.exit(1)
"""
FIX = """\
import pathlib, time
time.sleep(0.1)
p = pathlib.Path("step.txt")
p.write_text(str(int(p.read_text()) + 1) + "\\n")
"""


def fixbot_args(repo: Path) -> list[str]:
    return [
        "run",
        "--check",
        f"{sys.executable} check.py",
        "--fix-command",
        f"{sys.executable} fix.py",
        "--no-review",
        "-C",
        str(repo),
        "--json",
    ]


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume_loses_nothing(tmp_path: Path) -> None:
    """Under a fixed seed, kill the run at 6 random moments; every resume ends `fixed` with the
    same three verified attempts, and the state file is valid JSON after every kill."""
    rng = random.Random(20261123)
    reference = make_repo(
        tmp_path / "reference", {"check.py": CHECK, "fix.py": FIX, "step.txt": "0\n"}
    )
    clean = run_fixbot(*fixbot_args(reference))
    assert clean.json["outcome"] == "fixed" and clean.json["attempts"] == 3, clean.stderr
    kills = 0
    for round_ in range(6):
        repo = make_repo(
            tmp_path / f"r{round_}", {"check.py": CHECK, "fix.py": FIX, "step.txt": "0\n"}
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "fixbot", *fixbot_args(repo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.3, 2.5))
        killed = proc.poll() is None
        if killed:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        out, _ = proc.communicate(timeout=10)
        state_file = repo / ".fixbot" / "state.json"
        finished = None  # the state the killed process left, when it had recorded its outcome
        if state_file.exists():
            left = json.loads(state_file.read_text())  # never a torn file
            finished = left if left.get("outcome") else None
        if killed and finished is not None:
            # Killed after recording its outcome (before printing it): the run was over. The
            # same command starts a new run, which finds the check green and changes nothing;
            # the finished run's report stays in its runs/<id>/ folder.
            assert finished["outcome"]["outcome"] == "fixed"
            assert Path(finished["outcome"]["report_path"]).is_file()
            assert len([a for a in finished["attempts"] if a["phase"] == "fix"]) == 3
            result = run_fixbot(*fixbot_args(repo))
            assert result.code == 0 and result.json["outcome"] == "passed", result.stderr
            assert Path(finished["outcome"]["report_path"]).is_file()
            assert (repo / "step.txt").read_text() == "3\n"
            continue
        if killed:  # the same command resumes the killed run and finishes it
            result = run_fixbot(*fixbot_args(repo))
            assert result.code == 0, result.stderr
            outcome = result.json["outcome"]
        else:  # it finished before the kill came
            outcome = json.loads(out)["outcome"]
        assert outcome == "fixed"
        assert (repo / "step.txt").read_text() == "3\n"
        final = load_state(repo / ".fixbot")
        assert final is not None and [a.passed for a in final.fix_attempts][-1] is True
        assert len(final.fix_attempts) == 3  # no attempt lost, none repeated
    assert kills >= 3  # the seed kills mid-run in most rounds


def test_a_full_disk_while_saving_keeps_the_previous_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = RunState(settings_digest="d", check="true", start_sha="0" * 40)
    state.attempts.append(Attempt(number=0, phase=Phase.CHECK, done=True, passed=False))
    save_state(tmp_path, state)
    before = (tmp_path / "state.json").read_text()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    state.attempts.append(Attempt(number=1))
    with pytest.raises(OSError, match="No space left"):
        save_state(tmp_path, state)
    assert (tmp_path / "state.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]  # no temp file left
    loaded = load_state(tmp_path)
    assert loaded is not None and len(loaded.attempts) == 1
