"""A run, start to end: preflight, the repository's lock, the state, the sandbox and launcher for
the project's commands, then `fixbot.run.executor.Run` drives the loop
(`fixbot.loop.rules.next_step`).

The state is saved after every step, so a run killed at any point continues with `--resume` and
loses no attempt.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from fixbot.core.budget import Deadline
from fixbot.core.errors import ConfigError, Interrupted
from fixbot.core.models import Outcome
from fixbot.core.secrets import check_environment
from fixbot.core.settings import Settings
from fixbot.loop.state import RunState
from fixbot.process import git, sandbox
from fixbot.process.cancel import Cancelled, sigterm_cancels
from fixbot.process.launcher import inputs_path, launcher_for
from fixbot.process.lock import run_lock
from fixbot.run.agents import Agents, build_agents
from fixbot.run.executor import Run
from fixbot.run.outcome import best_snapshot
from fixbot.run.preflight import check_words, preflight
from fixbot.run.request import PLAIN, RunRequest
from fixbot.run.store import prepare_state
from fixbot.run.verify import Checker
from fixbot.security.redact import Redactor
from fixbot.ui.progress import Progress

__all__ = [
    "Agents",
    "Cancelled",
    "Run",
    "best_snapshot",
    "build_agents",
    "prepare_state",
    "run",
]


def run(
    settings: Settings,
    repo: Path,
    *,
    env: Mapping[str, str],
    request: RunRequest = PLAIN,
    progress: Progress | None = None,
    agents: Agents | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Outcome, RunState]:
    """Run fixbot's loop in the git repository `repo` and return (outcome, final state).

    `repo` may be a folder inside the work tree (a monorepo's package): the check and the fix
    commands run there, while git, the state folder and the model's file access use the root.
    `request` is what the run is asked beyond its settings (`RunRequest`: a hint, review threads,
    earlier attempts, a failure log from elsewhere); the ids of the threads the fixer claimed
    are in that attempt's `resolved_thread_ids`.

    Before anything runs, `fixbot.run.preflight` checks the set-up (a fixer, the model keys, the
    check's programs, a repository with a commit) and the repository's run lock is taken (one
    run per repository, `fixbot.process.lock`).

    Raises `ConfigError` for bad configuration (listing every problem), `Cancelled` when
    SIGTERM arrives and `Interrupted` on Ctrl-C (the check's process group is killed and the
    state saved first, so the same command resumes).
    """
    # Who runs the project's commands is decided once: the preflight asks as them, the run
    # runs them.
    chosen = sandbox.choose(settings.run_as, os.geteuid(), runtime=env.get("FIXBOT_RUNTIME"))
    problems = preflight(settings, repo, env, fixer_given=agents is not None, identity=chosen[0])
    if problems:
        raise ConfigError(problems)
    top = git.toplevel(repo)
    assert top is not None  # preflight checked it
    root = top.resolve()
    with run_lock(root / settings.state_dir):
        return _run_locked(settings, root, repo, env, request, progress, agents, sleep, chosen)


def _run_locked(
    settings: Settings,
    root: Path,
    repo: Path,
    env: Mapping[str, str],
    request: RunRequest,
    progress: Progress | None,
    agents: Agents | None,
    sleep: Callable[[float], None],
    chosen: tuple[sandbox.Identity | None, str],
) -> tuple[Outcome, RunState]:
    """`run` once the repository's run lock is held; `chosen` is `sandbox.choose`'s answer
    (who runs the project's commands, and the note saying so)."""
    state = prepare_state(settings, root)
    workdir = repo.resolve()
    identity, who_note = chosen
    with sandbox.confine(root, identity, settings.state_dir) as who:  # the project's commands
        if who is not None and (problems := check_words(settings, workdir, env, who)):
            raise ConfigError(problems)  # asked as the commands' user, once the tree is theirs
        redactor = Redactor.from_env(env)
        deadline = Deadline.start(settings.max_duration, state.elapsed_s)  # the run's one budget
        launcher = launcher_for(settings, root, env, who, redactor, deadline)
        progress = progress or Progress()
        agents = agents or build_agents(
            settings, env, workdir, launcher, notify=progress.event, deadline=deadline
        )
        for note in [*agents.notes, *([who_note] if os.geteuid() == 0 else [])]:
            progress.line(f"note: {note}")
        if state.attempts:  # prepare_state handed back an unfinished run of the same settings
            progress.line(resuming(state))
        state_dir = root / settings.state_dir
        checker = Checker(
            settings,
            root,
            workdir,
            state_dir,
            redactor,
            progress,
            check_environment(env),
            sleep,
            stdin_path=inputs_path(settings, workdir),
            launcher=launcher,
        )
        this = Run(settings, root, state, agents, progress, checker, request)
        return _drive(this, progress)


def resuming(state: RunState) -> str:
    """The line a resumed run starts with: what it continues from, and how to start over."""
    fixes = len(state.fix_attempts)
    return (
        f"resuming the unfinished run {state.run_id}: {fixes} fix attempt(s) recorded, "
        f"{state.elapsed_s:.1f} s spent (--fresh starts over)"
    )


def _drive(this: Run, progress: Progress) -> tuple[Outcome, RunState]:
    with sigterm_cancels():
        try:
            return this.drive(), this.state
        except Cancelled:
            this.save()
            raise
        except ConfigError as exc:  # mid-run (a rejected key): the report describes this run
            this.save()
            this.report_error("; ".join(exc.problems))
            raise
        except KeyboardInterrupt:
            this.save()
            raise Interrupted("interrupted; the state is saved: run again to continue") from None
        finally:
            progress.close()
