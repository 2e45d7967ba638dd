"""Fault injection for the process: SIGKILL at seeded random points, and a full disk.

Each test is bounded in time and uses only real subprocesses, real git and temporary folders.
"""

from __future__ import annotations

import errno
import os
import random
import time
from pathlib import Path

import pytest

from fixbot.core.models import Attempt, Phase
from fixbot.policy.state import RunState
from fixbot.run.store import load_state, save_state
from tests.fakes.killrun import CHECK, STEPS, fixbot_args, kill, kill_round, project, start
from tests.fakes.repo import make_repo, run_fixbot, state_of


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume_loses_nothing(tmp_path: Path) -> None:
    """Under a fixed seed, kill the run at 6 random points of its progress (after 1 to 4 of its
    recorded steps, then up to 0.1 s more: less than any step takes, so mid-run however loaded
    the machine is); every resume ends `fixed` with the same three verified attempts, and the
    state file is valid JSON after every kill. A run killed after recording its outcome (before
    printing it) was over: the same command is then a new run that finds the check green and
    changes nothing, and the finished run's report stays."""
    rng = random.Random(20261123)
    clean = run_fixbot(*fixbot_args(project(tmp_path / "reference")))
    assert clean.json["outcome"] == "fixed" and clean.json["attempts"] == STEPS, clean.stderr
    rounds = [
        kill_round(
            project(tmp_path / f"r{i}"), rng.uniform(0.0, 0.1), after_steps=rng.randint(1, STEPS)
        )
        for i in range(6)
    ]
    for round_ in rounds:
        assert not round_.torn
        assert round_.outcome == "fixed", round_
        assert round_.step == STEPS and round_.fix_attempts == STEPS  # none lost, none repeated
        if round_.killed:
            assert round_.resume_code == 0, round_
        if round_.over:
            assert round_.rerun == "passed", round_
    assert all(r.killed and not r.over for r in rounds), rounds  # mid-run, by construction
    for i, round_ in enumerate(rounds):
        reports = list((state_of(tmp_path / f"r{i}") / "runs").glob("*/report.md"))
        assert len(reports) == 1 + round_.over  # every run's report is kept


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


HANGING_FIX = """\
import pathlib, sys, time
p = pathlib.Path("step.txt")
p.write_text(str(int(p.read_text()) + 1) + "\\n")
marker = pathlib.Path(sys.argv[1])
if not marker.exists():  # the first fix hangs after its edit, until it is killed
    marker.touch()
    time.sleep(120)
"""


@pytest.mark.slow
def test_a_fixer_killed_after_its_edit_is_rerun_on_the_tree_it_started_from(
    tmp_path: Path,
) -> None:
    """SIGKILL while the first fix command hangs after editing `step.txt`: the resumed run puts
    back the tree the attempt started from, so the edit is not applied twice (three fix
    attempts for three steps, not two)."""
    repo = make_repo(
        tmp_path / "repo", {"check.py": CHECK, "fix.py": HANGING_FIX, "step.txt": "0\n"}
    )
    marker = tmp_path / "first-fix-ran"
    args = fixbot_args(repo)
    args[args.index("--fix-command") + 1] += f" {marker}"
    proc = start(args)
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert kill(proc)[0]
    assert marker.exists() and (repo / "step.txt").read_text() == "1\n"  # killed mid-fix

    result = run_fixbot(*args)

    assert result.code == 0 and result.json["outcome"] == "fixed", result.stderr
    assert "the tree attempt 1 started from is back" in result.stderr
    state = load_state(state_of(repo))
    assert state is not None and len(state.fix_attempts) == 3
    assert (repo / "step.txt").read_text() == "3\n"
