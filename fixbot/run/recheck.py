"""Run the check once more, outside the loop: for a fix replayed onto a branch that moved.

The Action's publish step (`fixbot.github.publisher`) replays fixbot's own commits onto the
branch's new tip in fixbot's clone and calls `recheck` before it pushes them; the check runs in
the workspace, synced from the clone, exactly as a run runs it (`fixbot.run.engine`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from fixbot.agent.paths import is_protected
from fixbot.core.errors import ConfigError
from fixbot.core.failure import CheckResult
from fixbot.core.settings import Settings
from fixbot.process import installation, sandbox, sync, worlds
from fixbot.process.launcher import inputs_path, launcher_for
from fixbot.process.lock import run_lock
from fixbot.run.outcome import report_file
from fixbot.security.redact import Redactor

RECHECK_LOG = "recheck.log"  # inside `<state dir>/runs/<run id>/`


def recheck(
    settings: Settings,
    repo: Path,
    env: Mapping[str, str],
    run_id: str,
    *,
    workspace: Path,
    fixbot: Path,
) -> CheckResult:
    """Run the check once more in `repo` (the check's folder in `workspace`, as for `run`), on
    the tree of fixbot's clone `fixbot`, as a run runs it: the workspace's tracked files synced
    from the clone, the same unprivileged user (`fixbot.process.sandbox`), the environment
    without secrets (`check_environment(env)`), the redactor, `settings.timeout` seconds and
    `inputs-file`.

    For a fix replayed onto a branch that moved (the Action's publish step), which gives its
    workspace and clone (`Context.repo`) as it knows them: they are never found again from
    `repo`, where a `.git` the check planted in the working directory would name another
    workspace with no clone, and the check would run there on whatever it left. Its log is
    `<state dir>/runs/<run_id>/recheck.log` in the clone, redacted. Raises `ConfigError` when
    another run holds the repository's lock, `repo` is not inside `workspace` or the inputs
    file is gone, and OSError when the command cannot start (a missing folder).
    """
    workspace = workspace.resolve()
    if not repo.resolve().is_relative_to(workspace):
        raise ConfigError([f"{repo} is not inside the workspace {workspace}"])
    private = fixbot.parent
    identity, _ = sandbox.choose(settings.run_as, os.geteuid(), runtime=installation.runtime())
    with (
        run_lock(private),
        worlds.entered(private),
        sandbox.handed_over(workspace, identity) as who,
    ):
        pair = sync.Worlds(
            fixbot,
            workspace,
            settings.state_dir,
            owner=None if who is None or os.geteuid() != 0 else (who.uid, who.gid),
            refuse=lambda rel: is_protected(rel, settings.protected_paths),
        )
        launcher = launcher_for(
            settings,
            fixbot,
            env,
            who,
            Redactor.from_env(env),
            pair=pair,
        )
        state_dir = fixbot / settings.state_dir
        log = report_file(state_dir, run_id).parent / RECHECK_LOG
        workdir = fixbot / repo.resolve().relative_to(workspace)
        stdin = inputs_path(settings, workdir, pair.write_files)
        return launcher.run(settings.check, workdir, log, settings.timeout, stdin_path=stdin)
