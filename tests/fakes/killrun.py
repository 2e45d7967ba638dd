"""SIGKILL a `fixbot run` at a chosen moment, then run the same command again: one round of the
kill-and-resume fault, shared by `tests/run/test_faults.py` and `bench/bench_faults.py`.

The project is a three-step one: `check.py` fails while `step.txt` is below 3 and `fix.py` adds
one to it, so a clean run is `fixed` after exactly three fix attempts, and any lost or repeated
attempt shows in `step.txt` and in the state's fix attempts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.repo import make_repo, run_fixbot, state_of

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
STEPS = 3  # fix attempts a clean run takes


def project(path: Path) -> Path:
    """A fresh copy of the three-step project at `path` (a git repository with one commit)."""
    return make_repo(path, {"check.py": CHECK, "fix.py": FIX, "step.txt": "0\n"})


def fixbot_args(repo: Path) -> list[str]:
    """The `fixbot` arguments of the run (and of its resumption: the same command)."""
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


@dataclass
class Round:
    """One kill-and-resume round.

    `killed`: the SIGKILL came while the run was alive (else it had exited first).
    `over`: the killed run had already recorded its outcome (killed before printing it).
    `outcome`: what the run that finished the work reported (the resumed run, or the first).
    `rerun`: the outcome of the same command run again after an `over` run (a new run).
    `torn`: the state file left by the kill was not valid JSON.
    `fix_attempts`: fix attempts in the finished run's state; `step`: `step.txt` at the end.
    `resume_code`: the exit code of the second command (None when there was none).
    """

    killed: bool
    over: bool
    outcome: str
    rerun: str | None
    torn: bool
    fix_attempts: int
    step: int
    resume_code: int | None

    @property
    def lost(self) -> bool:
        """True when the round lost or repeated work: not fixed, or not exactly STEPS attempts."""
        return (
            self.torn or self.outcome != "fixed" or self.fix_attempts != STEPS or self.step != STEPS
        )


def _fix_attempts(state: dict[str, Any]) -> int:
    return sum(1 for a in state.get("attempts", []) if a.get("phase") == "fix")


def start(args: list[str], *, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start `python -m fixbot ARGS` in a session of its own (so its whole process group can be
    killed), with the current environment plus `env` and its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "fixbot", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )


def kill(proc: subprocess.Popen[bytes]) -> tuple[bool, bytes]:
    """SIGKILL `proc`'s process group if it still runs; return (it was alive, its stdout)."""
    alive = proc.poll() is None
    if alive:
        os.killpg(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    return alive, out


PROGRESS_WAIT_S = 300.0  # how long a round waits for the run to record its steps, seconds
POLL_S = 0.005


def recorded_steps(state_file: Path) -> int:
    """The steps (attempts, finished or started) the state file records; 0 when there is none.
    The file is replaced atomically (`fixbot.run.store`), so a read sees one whole version."""
    try:
        return len(json.loads(state_file.read_text()).get("attempts", []))
    except (OSError, ValueError):
        return 0


def wait_for_steps(proc: subprocess.Popen[bytes], state_file: Path, steps: int) -> None:
    """Return once the run's state records `steps` steps (or the run has exited)."""
    deadline = time.monotonic() + PROGRESS_WAIT_S
    while steps and proc.poll() is None and recorded_steps(state_file) < steps:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the run recorded fewer than {steps} steps in {PROGRESS_WAIT_S} s")
        time.sleep(POLL_S)


def kill_round(
    repo: Path, delay: float, *, after_steps: int = 0, env: dict[str, str] | None = None
) -> Round:
    """Start `fixbot run` on `repo`, SIGKILL its process group `delay` seconds after its state
    records `after_steps` steps (0: after its start), then run the same command again when it
    was killed; return what happened.

    Chosen by progress, the kill lands at the same point of the run however loaded the machine
    is (load only slows the run down): `after_steps` below the run's total and a `delay` shorter
    than what is left (a fix command and a check: at least 0.25 s here) kill it mid-run."""
    state_file = state_of(repo) / "state.json"
    proc = start(fixbot_args(repo), env=env)
    try:
        wait_for_steps(proc, state_file, after_steps)
    except BaseException:
        kill(proc)
        raise
    time.sleep(delay)
    killed, out = kill(proc)
    left: dict[str, Any] = {}
    torn = False
    if state_file.exists():
        try:
            left = json.loads(state_file.read_text())
        except ValueError:
            torn = True
    over = killed and bool(left.get("outcome"))
    rerun, code = None, None
    if not killed:
        outcome = json.loads(out.decode().strip().splitlines()[-1])["outcome"]
    elif over:  # the run was finished: the same command is a new run
        outcome = left["outcome"]["outcome"]
        second = run_fixbot(*fixbot_args(repo), env=env)
        code, rerun = second.code, second.json["outcome"] if second.code == 0 else None
    else:
        second = run_fixbot(*fixbot_args(repo), env=env)
        code = second.code
        outcome = second.json["outcome"] if second.code == 0 else f"exit {second.code}"
        left = json.loads(state_file.read_text())
    return Round(
        killed=killed,
        over=over,
        outcome=outcome,
        rerun=rerun,
        torn=torn,
        fix_attempts=_fix_attempts(left),
        step=int((repo / "step.txt").read_text()),
        resume_code=code,
    )
