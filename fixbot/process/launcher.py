"""The launcher of the project's commands: every check, set-up and fix command goes through it.

One object holds how a project command runs — the scrubbed environment, the unprivileged user
(see `fixbot.process.sandbox`), the redactor applied to its log and the log bound — and runs it with
`fixbot.process.spawn.run_command`, in a PID namespace of its own where the kernel allows
(`sandbox.namespace_argv`: nothing it started outlives it), else marked and swept
(`sandbox.sweep`). Before each command the work tree's new files are given to the user; after
it, `.git` is checked to still be root's and `.git/config` is put back as fixbot found it
(`gitconfig.ConfigPin`: a `pushurl = ext::...` or `core.fsmonitor` the command wrote never reaches
fixbot's git).
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.core.budget import Deadline
from fixbot.core.errors import ConfigError
from fixbot.core.models import CheckResult
from fixbot.core.secrets import check_environment
from fixbot.core.settings import Settings
from fixbot.process import gitconfig, sandbox, spawn
from fixbot.process.boundedlog import Redact
from fixbot.security.redact import Redactor


@dataclass(frozen=True)
class Launcher:
    """How the project's commands run in the work tree `root`.

    `env` is the complete (scrubbed) environment; `identity` the user they run as (None: fixbot's
    own); `redact` is applied to their logs; `max_log_bytes` bounds each log (bytes);
    `private` are the top-level names the identity may not write (`.git`, the state folder);
    `deadline` is the run's wall-time budget (`fixbot.core.budget.Deadline`, one per run):
    no command's timeout reaches past it;
    `pin` is the repository configuration restored after every command (None: not watched);
    `namespace` False runs without the PID namespace (the marked sweep alone: tests, bench).
    """

    root: Path
    env: Mapping[str, str] = field(default_factory=dict)
    identity: sandbox.Identity | None = None
    redact: Redact | None = None
    max_log_bytes: int = spawn.DEFAULT_MAX_LOG_BYTES
    private: tuple[str, ...] = (".git",)
    deadline: Deadline = field(default_factory=lambda: Deadline.start(None))
    pin: gitconfig.ConfigPin | None = None
    namespace: bool = True

    def run(
        self,
        command: str,
        cwd: Path,
        log_path: Path,
        timeout: float,
        stdin_path: Path | None = None,
    ) -> CheckResult:
        """Run `command` in `cwd` (seconds of `timeout`), its bounded log at `log_path`.

        Raises OSError as `spawn.run_command`, and `ConfigError` when the command replaced
        `.git` (see `sandbox.check_git_intact`).
        """
        if self.identity is not None:
            sandbox.claim(self.root, self.identity, self.private)
        wrapper = sandbox.namespace_argv(self.identity) if self.namespace else ()
        mark = sandbox.new_mark()
        try:
            return spawn.run_command(
                command,
                cwd,
                log_path,
                self.deadline.cap(timeout),
                env={**self.env, sandbox.MARK_VARIABLE: mark},
                identity=self.identity,
                redact=self.redact,
                max_log_bytes=self.max_log_bytes,
                stdin_path=stdin_path,
                wrapper=wrapper,
                max_processes=sandbox.process_limit(self.identity, bool(wrapper)),
            )
        finally:
            if not wrapper:
                sandbox.sweep(mark)
            sandbox.check_git_intact(self.root, self.identity)
            if self.pin is not None:
                self.pin.restore()

    def output(self, argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
        """Run the program `argv` like a project command (same user, namespace, environment)
        and return (exit code or None on timeout, its merged output, bounded and redacted).
        For the research tool's interpreter: the check's Python is the project's code."""
        with tempfile.TemporaryDirectory(prefix="fixbot-out-") as tmp:
            log = Path(tmp) / "output.log"
            done = self.run(shlex.join(argv), cwd, log, timeout)
            return done.exit_code, log.read_text(encoding="utf-8", errors="replace")


def commands_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of the project's commands: `env` without secrets, and in fixbot's image
    (`FIXBOT_RUNTIME=container`) the project's virtual environment (`$VIRTUAL_ENV/bin`, which the
    commands own) first on their PATH. It is on theirs only: root's PATH in the image holds no
    folder the commands can write (a program planted there would run as root; see the
    Dockerfile)."""
    scrubbed = check_environment(env)
    venv = scrubbed.get("VIRTUAL_ENV")
    if env.get("FIXBOT_RUNTIME") == sandbox.CONTAINER and venv:
        rest = [p for p in scrubbed.get("PATH", "").split(os.pathsep) if p and p != f"{venv}/bin"]
        scrubbed["PATH"] = os.pathsep.join([f"{venv}/bin", *rest])
    return scrubbed


def launcher_for(
    settings: Settings,
    root: Path,
    env: Mapping[str, str],
    who: sandbox.Identity | None,
    redactor: Redactor,
    deadline: Deadline | None = None,
) -> Launcher:
    """The launcher of a run's commands: in `root`, as `who` (from `sandbox.confine`), with `env`
    without secrets (`fixbot.core.secrets.check_environment`), its output redacted by `redactor`,
    bounded to `settings.max_log_bytes` bytes, no command running past the run's `deadline`
    (None: no budget, outside a run), `.git/config` pinned as it is now."""
    return Launcher(
        root,
        commands_environment(env),
        who,
        redactor.redact,
        settings.max_log_bytes,
        sandbox.private_names(settings.state_dir),
        deadline or Deadline.start(None),
        gitconfig.ConfigPin.take(root),
    )


def inputs_path(settings: Settings, workdir: Path) -> Path | None:
    """The file fed to the check's standard input (`inputs-file`, relative to `workdir`), or None.

    Raises `ConfigError` when it is set but is not a readable file.
    """
    if not settings.inputs_file:
        return None
    path = (workdir / settings.inputs_file).resolve()
    if not path.is_file():
        raise ConfigError(
            [
                f"inputs-file {settings.inputs_file}: no such file ({path}); pass --inputs FILE "
                "with a file that holds the check's standard input"
            ]
        )
    return path


def as_the_commands(
    settings: Settings,
    root: Path,
    env: Mapping[str, str],
    argv: Sequence[str],
    timeout: float = 30.0,
) -> tuple[int | None, str]:
    """Run the program `argv` in the work tree `root` exactly as the check would run: the user
    `settings.run_as` and `FIXBOT_RUNTIME` in `env` choose (`sandbox.choose`), the work tree
    confined for it (`sandbox.confine`, restored afterwards), its PID namespace, the environment
    without secrets. Returns (exit code or None on timeout, merged output, redacted, bounded).

    For the preflight: "can the commands' user run `pytest` here?" is answered by the same
    path the check takes. Raises `ConfigError` (an unknown `run-as` user, a work tree that user
    cannot enter) and OSError (`root` is missing).
    """
    identity, _ = sandbox.choose(settings.run_as, os.geteuid(), runtime=env.get("FIXBOT_RUNTIME"))
    with sandbox.confine(root, identity, settings.state_dir) as who:
        launcher = launcher_for(settings, root, env, who, Redactor.from_env(env))
        return launcher.output(argv, root, timeout)
