"""The run's state: `.fixbot/state.json`, a versioned model written atomically after every step.

A run killed at any point (even SIGKILL) resumes from the last saved step and loses no attempt.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TypeGuard

from pydantic import ValidationError

from fixbot import __version__
from fixbot.core.errors import ConfigError
from fixbot.core.settings import Settings
from fixbot.policy.state import STATE_VERSION, RunState
from fixbot.process import git

STATE_FILE = "state.json"  # inside the state folder


def state_path(state_dir: Path) -> Path:
    """Where the state file lives inside `state_dir`."""
    return state_dir / STATE_FILE


def save_state(state_dir: Path, state: RunState) -> None:
    """Write the state atomically: a temp file in the same folder, fsync, then rename."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".state-", suffix=".json", dir=state_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(state.model_dump_json(indent=2))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, state_path(state_dir))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_state(state_dir: Path) -> RunState | None:
    """Read the state file, or None when there is none.

    Raises `ConfigError` when the file was written by a newer fixbot or cannot be read, saying
    how to proceed (upgrade, or start over with `--fresh`).
    """
    path = state_path(state_dir)
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problem = f"{path}: unreadable state ({exc}); run with --fresh to start over"
        raise ConfigError([problem]) from exc
    version = raw.get("version") if isinstance(raw, dict) else None
    if isinstance(version, int) and version > STATE_VERSION:
        raise ConfigError(
            [
                f"{path} was written by a newer fixbot (state version {version}, this fixbot "
                f"{__version__} reads up to {STATE_VERSION}): upgrade fixbot, or run with --fresh"
            ]
        )
    try:
        return RunState.model_validate(raw)
    except ValidationError as exc:
        problem = f"{path}: invalid state ({exc.error_count()} errors); run with --fresh"
        raise ConfigError([problem]) from exc


def tracked_state(repo: Path, state_dir: str) -> list[str]:
    """Files of the state folder that git tracks: a state committed in the repository (or the
    pull request), which fixbot never reads (it writes its state untracked, excluded)."""
    out = git.run(repo, "ls-files", "-z", "--", state_dir.rstrip("/") + "/")
    return [p for p in out.split("\0") if p]


def stray_paths(state: RunState, repo: Path, state_dir: Path) -> list[str]:
    """The paths fixbot reads back from `state` (the attempts' logs) that are not inside
    `state_dir` once resolved (`..`, absolute paths, symlinks out): a forged state would make
    fixbot read them and send them to the model. (The report's path is written, never read.)"""
    inside = state_dir.resolve()
    recorded = [a.log_path for a in state.attempts if a.log_path]
    stray = []
    for text in recorded:
        path = (repo / text).resolve()
        if path != inside and inside not in path.parents:
            stray.append(text)
    return stray


def _resumable(settings: Settings, repo: Path) -> tuple[RunState | None, list[str]]:
    """The saved state to consider resuming (None: start fresh) and notes on why not."""
    tracked = tracked_state(repo, settings.state_dir)
    if tracked:
        return None, [
            f"the state folder {settings.state_dir}/ is tracked by git ({tracked[0]}): a "
            "committed state is never read; this run started fresh"
        ]
    state_dir = repo / settings.state_dir
    previous = load_state(state_dir) if settings.resume else _readable(state_dir)
    if previous is not None and settings.resume:
        stray = stray_paths(previous, repo, repo / settings.state_dir)
        if stray:
            raise ConfigError(
                [
                    f"{state_path(repo / settings.state_dir)} names files outside the state "
                    f"folder ({', '.join(stray[:3])}): it was not written by fixbot; run with "
                    "--fresh to start over"
                ]
            )
    return previous, []


def leftovers(repo: Path, previous: RunState | None) -> bool:
    """True when the working tree is exactly one an attempt of `previous` left (fixbot's own
    uncommitted changes), so they may be discarded without losing anyone's work."""
    if previous is None:
        return False
    snapshots = [a.snapshot_sha for a in previous.attempts if a.snapshot_sha]
    if not snapshots:
        return False
    current = git.worktree_tree(repo)
    trees = {
        git.run(repo, "rev-parse", "--verify", "--quiet", f"{s}^{{tree}}", check=False)
        for s in snapshots
    }
    return current in trees


def _readable(state_dir: Path) -> RunState | None:
    try:
        return load_state(state_dir)
    except ConfigError:
        return None


def commit_command(dirty: list[str]) -> str:
    """The command that commits every change of the `git status` short-format lines `dirty`: `-a`
    takes tracked files only, so untracked ones (`??`) need `git add -A` first."""
    if any(line.startswith("??") for line in dirty):
        return "git add -A && git commit -m 'work in progress'"
    return "git commit -am 'work in progress'"


def _dirty_message(dirty: list[str], why: str, ours: bool, report: str) -> str:
    shown = "\n    ".join(dirty[:10])
    if ours:
        return (
            "the working tree has uncommitted changes:\n    " + shown + "\n"
            f"  these are fixbot's own: the tree its last run left (report: {report}).\n"
            "  pass --discard to remove them and start again, or commit them to keep them"
        )
    return (
        "the working tree has uncommitted changes:\n    "
        + shown
        + "\n"
        + why
        + f"  commit them ({commit_command(dirty)}), stash them (git stash -u), "
        "or pass --allow-dirty to let fixbot work on top of them"
    )


def _resumes(previous: RunState | None, settings: Settings) -> TypeGuard[RunState]:
    """True when `settings` ask to resume and `previous` is an unfinished run of this state
    version with the same settings."""
    return (
        settings.resume
        and previous is not None
        and previous.outcome is None
        and previous.version >= STATE_VERSION
        and previous.settings_digest == settings.digest()
    )


def _left_by(unfinished: bool, older: bool) -> str:
    """Why the tree is dirty, when an unfinished run that cannot be resumed left it."""
    if unfinished and older:
        return "  (an unfinished run of an older fixbot left them: it cannot be resumed)\n"
    if unfinished:
        return (
            "  (an unfinished run with other settings left them: rerun it with the same "
            "settings to resume it)\n"
        )
    return ""


def _clean_start(settings: Settings, repo: Path, previous: RunState | None, why: str) -> bool:
    """Make sure a fresh run may start on the working tree: fixbot's own leftovers of
    `previous` restored to HEAD with `settings.discard`, other changes only with
    `allow_dirty`. True when leftovers were discarded. Raises `ConfigError` (with `why`)."""
    dirty = git.status_lines(repo)
    ours = bool(dirty) and leftovers(repo, previous)
    if ours and settings.discard:
        git.restore_worktree(repo, "HEAD")
        dirty = git.status_lines(repo)
    if dirty and not settings.allow_dirty:
        report = str(repo / settings.state_dir / "report.md")
        raise ConfigError([_dirty_message(dirty, why, ours, report)])
    return ours and settings.discard


def prepare_state(settings: Settings, repo: Path) -> RunState:
    """Resume an unfinished run with the same settings (and state version), or start a new one.

    A working tree left exactly as fixbot's last run left it is recognised; `settings.discard`
    restores HEAD's files first. A state folder tracked by git is never read (a note says so);
    a state naming files outside the state folder is refused. Raises `ConfigError` when the
    working tree is dirty on a fresh start (unless `allow_dirty`), or the state file is
    unreadable, from a newer fixbot, or names files outside the state folder.
    """
    git.exclude_path(repo, f"/{settings.state_dir.strip('/')}/")
    previous, refused = _resumable(settings, repo)
    head = git.head_sha(repo)
    if _resumes(previous, settings):
        return previous
    unfinished = previous is not None and previous.outcome is None
    older = previous is not None and previous.version < STATE_VERSION
    cleared = _clean_start(settings, repo, previous, _left_by(unfinished, older))
    discarded = "of an older fixbot" if older else "with other settings"
    notes = [f"an unfinished run {discarded} was discarded"] if unfinished else []
    if cleared:
        notes.append(
            "fixbot's own uncommitted changes from its last run were discarded (--discard)"
        )
    notes += refused
    return RunState(
        settings_digest=settings.digest(),
        check=settings.check,
        start_sha=head,
        notes=notes,
        branch=git.current_branch(repo),
    )
