"""A run, start to end: preflight, the repository's lock, the state, the sandbox and launcher for
the project's commands, then `fixbot.run.executor.Run` drives the loop
(`fixbot.loop.rules.next_step`).

The state is saved after every step, so a run killed at any point continues with `--resume` and
loses no attempt.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from fixbot.core.errors import ConfigError, Interrupted
from fixbot.core.models import Outcome, ReviewThread
from fixbot.core.secrets import check_environment
from fixbot.core.settings import Settings
from fixbot.logs.joblog import FirstFailure
from fixbot.loop.state import RunState
from fixbot.process import git, installation, sandbox
from fixbot.process.cancel import Cancelled, sigterm_cancels
from fixbot.process.launcher import inputs_path, launcher_for
from fixbot.process.lock import run_lock
from fixbot.run.agents import Agents, build_agents
from fixbot.run.executor import Run
from fixbot.run.outcome import best_snapshot
from fixbot.run.preflight import check_words, preflight
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
    progress: Progress | None = None,
    hint: str | None = None,
    agents: Agents | None = None,
    sleep: Callable[[float], None] = time.sleep,
    threads: Sequence[ReviewThread] = (),
    tried: Sequence[str] = (),
    first_failure: FirstFailure | None = None,
) -> tuple[Outcome, RunState]:
    """Run fixbot's loop in the git repository `repo` and return (outcome, final state).

    `repo` may be a folder inside the work tree (a monorepo's package): the check and the fix
    commands run there, while git, the state folder and the model's file access use the root.
    `threads` are open pull request review threads (untrusted text): once the check is green, one
    attempt addresses them; the ids the fixer claimed are in that attempt's `resolved_thread_ids`.
    `tried` are one-line accounts of earlier runs' attempts (a `/fixbot retry`), shown to the
    model as "already tried, do not repeat".
    `first_failure` is a failure log from elsewhere (a failed CI run, `--from-log`): it is the
    first failing run, so the initial check is skipped; every fix is still verified.

    Before anything runs, `fixbot.run.preflight` checks the set-up (a fixer, the model keys, the
    check's programs, a repository with a commit) and the repository's run lock is taken (one
    run per repository, `fixbot.process.lock`).

    Raises `ConfigError` for bad configuration (listing every problem), `Cancelled` when
    SIGTERM arrives and `Interrupted` on Ctrl-C (the check's process group is killed and the
    state saved first, so the same command resumes).
    """
    # Issues 14, 21: who runs the project's commands, decided once (the preflight asks as them).
    chosen = sandbox.choose(settings.run_as, os.geteuid(), runtime=installation.runtime())
    problems = preflight(settings, repo, env, fixer_given=agents is not None, identity=chosen[0])
    if problems:
        raise ConfigError(problems)
    top = git.toplevel(repo)
    assert top is not None  # preflight checked it
    root = top.resolve()
    with run_lock(root / settings.state_dir):
        return _run_locked(
            settings,
            root,
            repo,
            env,
            progress,
            hint,
            agents,
            sleep,
            threads,
            tried,
            first_failure,
            chosen,
        )


def _run_locked(
    settings: Settings,
    root: Path,
    repo: Path,
    env: Mapping[str, str],
    progress: Progress | None,
    hint: str | None,
    agents: Agents | None,
    sleep: Callable[[float], None],
    threads: Sequence[ReviewThread],
    tried: Sequence[str],
    first_failure: FirstFailure | None,
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
        launcher = launcher_for(settings, root, env, who, redactor, _deadline(settings, state))
        progress = progress or Progress()
        agents = agents or build_agents(settings, env, workdir, launcher, notify=progress.event)
        for note in [*agents.notes, *([who_note] if os.geteuid() == 0 else [])]:
            progress.line(f"note: {note}")
        state_dir = root / settings.state_dir
        checker = Checker(
            settings, root, workdir, state_dir, redactor, progress, check_environment(env), sleep
        )
        checker.launcher = launcher
        checker.stdin_path = inputs_path(settings, workdir)
        this = Run(
            settings,
            root,
            state,
            agents,
            progress,
            checker,
            hint=hint,
            threads=threads,
            tried=tried,
            first=first_failure,
        )
        return _drive(this, progress)


def _deadline(settings: Settings, state: RunState) -> float | None:
    """When the run's `max-duration` ends (`time.monotonic` seconds; a resumed run has already
    spent `state.elapsed_s`), or None without one: no command runs past it."""
    if settings.max_duration is None:
        return None
    return time.monotonic() + settings.max_duration - state.elapsed_s


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
