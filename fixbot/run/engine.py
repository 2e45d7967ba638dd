"""A run, start to end: preflight, fixbot's private folder and its clone of the repository
(`fixbot.process.worlds`), the run lock, the state, the launcher of the project's commands, then
`fixbot.run.executor.Run` drives the loop (`fixbot.policy.rules.next_step`), and the result is
handed to the workspace.

Two worlds: fixbot reads, diffs, commits and pushes in its own clone F (in its private folder,
the state folder inside it); the project's commands run in the workspace W, whose tracked files
the launcher makes equal to F's before each command. No git of fixbot's runs in W's repository
once F exists, except the hand-over at the end (`handover.deliver`).

The state is saved after every step, so a run killed at any point continues with `--resume` and
loses no attempt.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from fixbot.agent.paths import is_protected
from fixbot.core.budget import Deadline
from fixbot.core.errors import ConfigError, GitError, Interrupted
from fixbot.core.models import Outcome
from fixbot.core.secrets import check_environment
from fixbot.core.settings import Settings
from fixbot.policy.state import RunState
from fixbot.process import (
    cleanup,
    cloning,
    git,
    handover,
    index,
    installation,
    sandbox,
    sync,
    worlds,
)
from fixbot.process.cancel import Cancelled, sigterm_cancels
from fixbot.process.launcher import inputs_path, launcher_for
from fixbot.process.lock import run_lock
from fixbot.run import reflect
from fixbot.run.agents import Agents, build_agents
from fixbot.run.eventlog import LOG_FILE
from fixbot.run.executor import Run
from fixbot.run.outcome import best_snapshot
from fixbot.run.preflight import check_words, preflight
from fixbot.run.request import PLAIN, RunRequest
from fixbot.run.store import load_state, prepare_state
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
    chosen = sandbox.choose(settings.run_as, os.geteuid(), runtime=installation.runtime())
    problems = preflight(settings, repo, env, fixer_given=agents is not None, identity=chosen[0])
    if problems:
        raise ConfigError(problems)
    top = cloning.workspace_root(repo.resolve())  # by lstat: no git in the workspace's repository
    assert top is not None  # preflight checked it
    workspace = top.resolve()
    base = worlds.state_base(os.geteuid(), env)
    private = worlds.private_folder(workspace, base)
    cleanup.record_workspace(private, workspace)
    for gone, why in cleanup.sweep(base, keep=private):  # the clean-up rule, each run
        print(f"note: removed fixbot's private folder {gone.path}: {why}", file=sys.stderr)
    if not request.clone_ready:  # else the entry point wrote it (the Action: its server)
        worlds.write_gitconfig(private, worlds.identity_of(workspace), trusted=(workspace,))
    with run_lock(private), worlds.entered(private):
        fixbot, resumed = own_clone(settings, workspace, private, ready=request.clone_ready)
        pair = sync.Worlds(
            fixbot,
            workspace,
            settings.state_dir,
            owner=_owner(chosen[0]),
            refuse=lambda rel: is_protected(rel, settings.protected_paths),
        )
        if not resumed and not request.clone_ready:  # else the workspace is the commands' copy
            adopt_dirty(settings, pair)
        workdir = fixbot / repo.resolve().relative_to(workspace)
        try:
            return _run_locked(
                settings, fixbot, workdir, env, request, progress, agents, sleep, chosen, pair
            )
        finally:
            # the branch moves in the commands' world, as their user, without secrets; only
            # where they run as fixbot's own user (else they could not read fixbot's clone)
            same = chosen[0] is None
            hand_over = launcher_for(settings, workspace, env, None, Redactor.from_env(env))
            note = handover.deliver(pair, hand_over if same else None)
            if note:
                print(f"fixbot: note: {note}", file=sys.stderr)
            for name in ("report.md", "log.jsonl"):  # where users and workflows look for them
                handover.mirror_report(pair, settings.state_dir, name)
            handover.mirror_logs(pair, settings.state_dir)  # the logs the report points at


def _owner(identity: sandbox.Identity | None) -> tuple[int, int] | None:
    """Who owns what fixbot writes into the workspace: the commands' user when fixbot is root."""
    if identity is None or os.geteuid() != 0:
        return None
    return (identity.uid, identity.gid)


def own_clone(
    settings: Settings, workspace: Path, private: Path, *, ready: bool = False
) -> tuple[Path, bool]:
    """fixbot's clone of `workspace` in `private` (`worlds.REPO`): the one an unfinished run left
    when it may be resumed, still starts at the workspace's HEAD, or was made by the entry point
    (`ready`: the Action's clone on the branch to fix), else a fresh
    `git clone --no-local` (`worlds.clone`). Its state folder is fixbot's own folder: whatever
    the repository commits at that name (a link, files) is not followed. Returns F's root and
    whether it is an unfinished run's, to be resumed. Raises `GitError` (the clone, or none
    with `ready`) and `ConfigError` (an unreadable state)."""
    fixbot = worlds.clone_path(workspace, private.parent)  # `private` is the workspace's folder
    assert fixbot.parent == private, (fixbot, private)
    reuse = _reusable(settings, workspace, fixbot, ready)
    if reuse is None and ready:
        # the entry point's clone is of its own workspace: a `.git` an earlier step planted in
        # the working directory names another one here, which is never cloned and run instead
        raise GitError(
            f"fixbot's clone of {workspace} is missing: the working directory's repository is "
            "not the workspace the run was started for (a .git inside it?)"
        )
    history = None
    if reuse is None:
        history = _event_log(fixbot / settings.state_dir)
        # its origin stays the workspace, which fixbot's git may not fetch from (protocol
        # `file` is never allowed): the CLI pushes nothing from fixbot's clone
        worlds.clone(workspace, fixbot, files=False)  # written where the run needs them
    elif (fixbot / ".git" / index.UNWRITTEN).is_file():  # a run killed while writing them
        index.clone_unwritten(fixbot)
    cloning.own_folder(fixbot, settings.state_dir)
    if history:  # the runs of earlier commits stay counted (`fixbot stats`)
        (fixbot / settings.state_dir / LOG_FILE).write_bytes(history)
    return fixbot, bool(reuse)


def _event_log(state_dir: Path) -> bytes | None:
    """The event log of the clone about to be made again (fixbot's own file: a regular file,
    not a link), or None."""
    path = state_dir / LOG_FILE
    try:
        if state_dir.is_symlink() or not stat.S_ISREG(path.lstat().st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def _reusable(settings: Settings, workspace: Path, fixbot: Path, ready: bool) -> bool | None:
    """True: F holds an unfinished run to resume; False: F starts at the workspace's HEAD or
    is the entry point's (`ready`); None: make F again."""
    if not (fixbot / ".git").is_dir() or (fixbot / ".git").is_symlink():
        return None
    state_dir = fixbot / settings.state_dir
    try:
        previous = load_state(state_dir) if not state_dir.is_symlink() else None
    except ConfigError:
        previous = None
    if settings.resume and previous is not None and previous.outcome is None:
        return True
    if ready:
        return False
    return False if git.head_sha(fixbot) == cloning.workspace_head(workspace) else None


def adopt_dirty(settings: Settings, pair: sync.Worlds) -> None:
    """The workspace's own uncommitted changes to tracked files: with `allow_dirty` they come
    into fixbot's clone (the run works on top of them); otherwise the run stops, saying how to
    commit them, since the first sync would overwrite them. Raises `ConfigError`."""
    dirty = pair.differing()
    if not dirty:
        return
    if not settings.allow_dirty:
        shown = "\n    ".join(dirty[:10])
        raise ConfigError(
            [
                "the working tree has uncommitted changes:\n    " + shown + "\n"
                "  commit them (git commit -am 'work in progress'), stash them (git stash -u), "
                "or pass --allow-dirty to let fixbot work on top of them"
            ]
        )
    pair.adopt(dirty)


def _run_locked(
    settings: Settings,
    root: Path,
    workdir: Path,
    env: Mapping[str, str],
    request: RunRequest,
    progress: Progress | None,
    agents: Agents | None,
    sleep: Callable[[float], None],
    chosen: tuple[sandbox.Identity | None, str],
    pair: sync.Worlds,
) -> tuple[Outcome, RunState]:
    """`run` once the run lock is held, in fixbot's clone `root` (`workdir` inside it);
    `chosen` is `sandbox.choose`'s answer (who runs the project's commands, and the note
    saying so); `pair` the clone and the workspace the commands run in."""
    state = prepare_state(settings, root)
    identity, who_note = chosen
    with sandbox.handed_over(pair.workspace, identity) as who:  # the project's commands
        pair.to_workspace()
        if who is not None and (
            problems := check_words(settings, pair.in_workspace(workdir), env, who)
        ):
            raise ConfigError(problems)  # asked as the commands' user, once the tree is theirs
        redactor = Redactor.from_env(env)
        deadline = Deadline.start(settings.max_duration, state.elapsed_s)  # the run's one budget
        launcher = launcher_for(settings, root, env, who, redactor, deadline, pair)
        progress = progress or Progress()
        agents = agents or build_agents(settings, env, workdir, launcher, notify=progress.event)
        if who is not None and os.geteuid() == 0:
            who_note = f"{who_note}; {sandbox.homes_note()}"
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
            reflect.event_log(state_dir, state, redactor, deadline),
            launcher,
            sleep,
            stdin_path=inputs_path(settings, workdir, pair.write_files),
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
