"""Run the check once more, outside the loop: for a fix replayed onto a branch that moved.

The Action's publish step (`fixbot.github.publisher`) replays fixbot's own commits onto the
branch's new tip and calls `recheck` before it pushes them; the check is confined exactly as a run
confines it (`fixbot.run.engine`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from fixbot.core.errors import ConfigError
from fixbot.core.models import CheckResult
from fixbot.core.settings import Settings
from fixbot.process import git, installation, sandbox
from fixbot.process.launcher import inputs_path, launcher_for
from fixbot.process.lock import run_lock
from fixbot.run.outcome import report_file
from fixbot.security.redact import Redactor

RECHECK_LOG = "recheck.log"  # inside `<state dir>/runs/<run id>/`


def recheck(settings: Settings, repo: Path, env: Mapping[str, str], run_id: str) -> CheckResult:
    """Run the check once more in `repo` (the check's folder, as for `run`), confined as a run
    confines it: the same unprivileged user (`fixbot.process.sandbox`), the environment without
    secrets (`check_environment(env)`), the redactor, `settings.timeout` seconds and `inputs-file`.

    For a fix replayed onto a branch that moved (the Action's publish step). Its log is
    `<state dir>/runs/<run_id>/recheck.log`, redacted. Raises `ConfigError` when another run
    holds the repository's lock, the inputs file is gone or the command replaced `.git`, and
    OSError when the command cannot start (a missing folder).
    """
    top = git.toplevel(repo)
    if top is None:
        raise ConfigError([f"{repo} is not inside a git work tree; run the check from one"])
    root, workdir = top.resolve(), repo.resolve()
    state_dir = root / settings.state_dir
    identity, _ = sandbox.choose(settings.run_as, os.geteuid(), runtime=installation.runtime())
    with run_lock(state_dir), sandbox.confine(root, identity, settings.state_dir) as who:
        launcher = launcher_for(settings, root, env, who, Redactor.from_env(env))
        log = report_file(state_dir, run_id).parent / RECHECK_LOG
        stdin = inputs_path(settings, workdir)
        return launcher.run(settings.check, workdir, log, settings.timeout, stdin_path=stdin)
