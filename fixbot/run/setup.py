"""The set-up phase: prepare the check's environment with `setup-command`.

The set-up command runs once, after the branch is checked out and before the initial check, in
the working directory, through the run's launcher like the check (its user, its scrubbed
environment: no GitHub token, no model keys), under its own timeout (`setup_timeout`, seconds).
Its merged output goes to `<state folder>/setup.log`, bounded and redacted as it is written. It
runs again only before the check that verifies a fix which changed a dependency manifest
(`changed_manifests`), writing `<state folder>/attempts/NNN/setup.log`; otherwise never twice
in a run. Every run is recorded (`SetupRun`) in the run's state, so a resumed run knows what
already ran.

A failed set-up is not a code failure: no model is called and nothing is pushed; the run ends
with the outcome `error` and the reason "setup failed" (`fixbot.core.errors.SetupError`).

Decisions (`is_manifest`, `changed_manifests`, `setup_due`, `failure_reason`, `failure_details`,
`missing_tool_hint`) are pure; `run_setup` is the one adapter, running the command through
`fixbot.process.launcher.Launcher`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from fixbot.core.errors import SetupError
from fixbot.policy.manifests import SetupDue, SetupRun, failure_reason, last_lines
from fixbot.process import git, spawn
from fixbot.process.launcher import Launcher

SETUP_LOG = "setup.log"
TAIL_LINES = 20  # lines of the set-up's output shown in the summary, comment and report
TAIL_BYTES = 8 * 1024  # bytes read back from the end of the log to find them


def log_path(state_dir: Path, due: SetupDue) -> Path:
    """Where the set-up's output goes: `setup.log`, or `attempts/NNN/setup.log` for a re-run."""
    if due.attempt == 0:
        return state_dir / SETUP_LOG
    return state_dir / "attempts" / f"{due.attempt:03d}" / SETUP_LOG


@dataclass(frozen=True)
class SetupCall:
    """One set-up to run, kept whole: the `command`, why it is `due`, fixbot's clone `repo`,
    the `workdir` it runs in, the `state_dir` its log goes under, its `timeout` in seconds and
    the run's `launcher` (`fixbot.process.launcher.launcher_for`)."""

    command: str
    due: SetupDue
    repo: Path
    workdir: Path
    state_dir: Path
    timeout: float
    launcher: Launcher


def run_setup(call: SetupCall) -> SetupRun:
    """Run the set-up command in its `workdir` through its `launcher` like the check: as the
    commands' user, with their scrubbed environment, its log bounded and redacted while it is
    written, to `log_path(state_dir, due)`.

    Returns the record to keep in the run's state (a failure is returned, not raised: see
    `raise_for`). Raises OSError when the log cannot be written or `workdir` is missing.
    """
    log = log_path(call.state_dir, call.due)
    result = call.launcher.run(call.command, call.workdir, log, call.timeout)
    return SetupRun(
        command=call.command,
        reason=call.due.reason,
        attempt=call.due.attempt,
        manifests=call.due.manifests,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        timeout_s=call.timeout,
        duration_s=result.duration_s,
        log_path=log.relative_to(call.repo).as_posix(),
        tail=last_lines(spawn.read_tail(log, TAIL_BYTES), TAIL_LINES),
    )


def untracked(repo: Path) -> set[str]:
    """The untracked, not ignored entries of the work tree; a new folder is one entry ending in
    `/` (`git ls-files` of the others, standard excludes applied, folders collapsed). Raises
    GitError."""
    out = git.run(repo, "ls-files", "-z", "--others", "--exclude-standard", "--directory")
    return {path for path in out.split("\0") if path}


def exclude_pattern(path: str) -> str:
    """A `.git/info/exclude` line matching exactly `path` (relative to the root; see gitignore(5):
    a leading `/` anchors it, a backslash escapes `*?[\\` and trailing spaces)."""
    escaped = re.sub(r"([*?\[\\])", r"\\\1", path)
    stripped = escaped.rstrip(" ")
    return "/" + stripped + "\\ " * (len(escaped) - len(stripped))


def exclude_created(repo: Path, before: set[str]) -> list[str]:
    """Add what the set-up created (untracked entries not in `before`) to `.git/info/exclude`,
    so a `.venv`, `node_modules` or `*.egg-info` it made is never committed; return them."""
    created = sorted(untracked(repo) - before)
    for path in created:
        git.exclude_path(repo, exclude_pattern(path))
    return created


def prepare(call: SetupCall) -> SetupRun:
    """Run the set-up (`run_setup`), exclude from git what it created, and record the tracked
    files it modified (in the workspace, with the launcher's `pair`).

    Raises OSError (the log) and GitError (listing or excluding files).
    """
    repo, launcher = call.repo, call.launcher
    before, modified = untracked(repo), modified_tracked(repo)
    run = run_setup(call)
    exclude_created(repo, before)
    if launcher.pair is not None:
        # the set-up ran in the workspace: what it created is excluded in fixbot's clone (never
        # read back, never committed); its edits to tracked files stay there until the next
        # sync puts fixbot's tree back: they are reported, never committed
        for path in launcher.pair.created():
            git.exclude_path(repo, exclude_pattern(path))
        return run.model_copy(update={"changed_tracked": launcher.pair.touched()})
    return run.model_copy(update={"changed_tracked": sorted(modified_tracked(repo) - modified)})


def modified_tracked(repo: Path) -> set[str]:
    """Tracked files whose working-tree content differs from the index. Raises GitError."""
    out = git.run(repo, "diff", "--name-only", "-z", "--no-renames")
    return {path for path in out.split("\0") if path}


def raise_for(run: SetupRun) -> None:
    """Raise `SetupError` with `failure_reason(run)` when the set-up failed."""
    if not run.ok:
        raise SetupError(failure_reason(run))
