"""The launcher of the project's commands: every check, set-up and fix command goes through it.

One object holds how a project command runs — the scrubbed environment, the unprivileged user
(see `fixbot.process.sandbox`), the redactor applied to its log and the log bound — and runs it with
`fixbot.process.spawn.run_command`, in a PID namespace of its own where the kernel allows
(`sandbox.namespace_argv`: nothing it started outlives it), else marked and swept
(`sandbox.sweep`). With `pair` (a run's) every command runs in the workspace, whose tracked
files are made equal to fixbot's clone first (`fixbot.process.sync.Worlds.to_workspace`);
after a fix command only (`run_fix`) the regular files it changed come back into the clone as
bytes (`Worlds.read_back`). Nothing the command does to the workspace's `.git`, HOME or any
other file reaches fixbot's git.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.core.budget import Deadline
from fixbot.core.errors import ConfigError
from fixbot.core.failure import CheckResult
from fixbot.core.secrets import check_environment
from fixbot.core.settings import Settings
from fixbot.process import homes, installation, readback, sandbox, spawn, sync
from fixbot.process.boundedlog import Redact
from fixbot.security.redact import Redactor


@dataclass(frozen=True)
class Launcher:
    """How the project's commands run in the work tree `root`.

    `env` is the complete (scrubbed) environment; `identity` the user they run as (None: fixbot's
    own); `redact` is applied to their logs; `max_log_bytes` bounds each log (bytes);
    `deadline` is the wall-time budget no command's timeout reaches past
    (`fixbot.core.budget.Deadline`: the run's one, or `Deadline.start(None)` outside a run);
    `namespace` False runs without the PID namespace (the marked sweep alone: tests, bench);
    `pair` maps fixbot's clone to the workspace the commands run in (None: they run where
    they are asked, for tests and the preflight).
    """

    root: Path
    env: Mapping[str, str] = field(default_factory=dict)
    identity: sandbox.Identity | None = None
    redact: Redact | None = None
    max_log_bytes: int = spawn.DEFAULT_MAX_LOG_BYTES
    deadline: Deadline = field(kw_only=True)
    namespace: bool = True
    pair: sync.Worlds | None = None

    def run(
        self,
        command: str,
        cwd: Path,
        log_path: Path,
        timeout: float,
        stdin_path: Path | None = None,
        pass_fds: Sequence[int] = (),
    ) -> CheckResult:
        """Run `command` in `cwd` (seconds of `timeout`), its bounded log at `log_path`;
        `pass_fds` are descriptors it inherits (the observer's channel).

        With `pair`, `cwd` inside fixbot's clone means the same folder of the workspace, and
        the workspace's tracked files are made equal to the clone's first. Raises OSError as
        `spawn.run_command`, and GitError (listing the clone's files).
        """
        if self.pair is not None:
            self.pair.to_workspace()
            cwd = self.pair.in_workspace(cwd)
        wrapper = sandbox.namespace_argv(self.identity, self._cover()) if self.namespace else ()
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
                pass_fds=pass_fds,
            )
        finally:
            if not wrapper:
                sandbox.sweep(mark)
            if self.pair is not None:  # what the workspace holds as no command runs any more
                self.pair.settled = self.pair.untracked()

    def _cover(self) -> homes.Cover | None:
        """What the commands see of the users' homes when fixbot is root and they run as
        another user (`fixbot.process.homes.plan`): the workspace and their HOME writable,
        their PATH and tool chains read-only. None when they run as fixbot's own user (they
        could read its HOME anyway: nothing to hide from them)."""
        if self.identity is None or os.geteuid() != 0:
            return None
        workspace = self.pair.workspace if self.pair is not None else self.root
        shown: list[Path | str] = [workspace]
        if self.identity.home:
            shown.append(self.identity.home)
        return homes.plan(self.identity.uid, shown, self.env)

    def run_fix(
        self, command: str, cwd: Path, log_path: Path, timeout: float
    ) -> tuple[CheckResult, readback.ReadBack | None]:
        """Run the fix command `command` like `run`, then bring the regular files it changed in
        the workspace back into fixbot's clone (`Worlds.read_back`; None without `pair`): never
        a file that appeared or changed since the last command ended, when none ran
        (`Worlds.stirred`: a process left behind where no PID namespace ended it)."""
        if self.pair is None:
            return self.run(command, cwd, log_path, timeout), None
        self.pair.to_workspace()
        before = self.pair.untracked()
        stirred = self.pair.stirred(before)  # a process left behind is writing these
        result = self.run(command, cwd, log_path, timeout)
        return result, self.pair.read_back(before, stirred)

    def output(
        self, argv: Sequence[str], cwd: Path, timeout: float, pass_fds: Sequence[int] = ()
    ) -> tuple[int | None, str]:
        """Run the program `argv` like a project command (same user, namespace, environment)
        and return (exit code or None on timeout, its merged output, bounded and redacted);
        `pass_fds` as `run`'s. For the research tool's interpreter: the check's Python is the
        project's code."""
        with tempfile.TemporaryDirectory(prefix="fixbot-out-") as tmp:
            log = Path(tmp) / "output.log"
            done = self.run(shlex.join(argv), cwd, log, timeout, pass_fds=pass_fds)
            return done.exit_code, log.read_text(encoding="utf-8", errors="replace")


def commands_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of the project's commands: `env` without secrets, and in fixbot's image
    (`fixbot.process.installation`) the project's virtual environment (`$VIRTUAL_ENV/bin`, which the
    commands own) first on their PATH. It is on theirs only: root's PATH in the image holds no
    folder the commands can write (a program planted there would run as root; see the
    Dockerfile)."""
    scrubbed = check_environment(env)
    venv = scrubbed.get("VIRTUAL_ENV")
    if installation.runtime() == installation.CONTAINER and venv:
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
    pair: sync.Worlds | None = None,
) -> Launcher:
    """The launcher of a run's commands: for `root`, as `who` (from `sandbox.handed_over`), with
    `env` without secrets (`fixbot.core.secrets.check_environment`), its output redacted by
    `redactor`, bounded to `settings.max_log_bytes` bytes, no command running past the run's
    `deadline` (None: no budget, outside a run), in the workspace of `pair` (fixbot's clone and
    the workspace) when given."""
    return Launcher(
        root,
        commands_environment(env),
        who,
        redactor.redact,
        settings.max_log_bytes,
        deadline=deadline or Deadline.start(None),
        pair=pair,
    )


def inputs_path(
    settings: Settings, workdir: Path, write_files: Callable[[], None] = lambda: None
) -> Path | None:
    """The file fed to the check's standard input (`inputs-file`, relative to `workdir`), or None.
    `write_files` is called first when it is set (fixbot's clone's files written:
    `Worlds.write_files`).

    Raises `ConfigError` when it is set but is not a readable file.
    """
    if not settings.inputs_file:
        return None
    write_files()
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
    `settings.run_as` and the installation (`fixbot.process.installation`) choose
    (`sandbox.choose`), the work tree
    handed to it (`sandbox.handed_over`, given back afterwards), its PID namespace, the environment
    without secrets. Returns (exit code or None on timeout, merged output, redacted, bounded).

    For the preflight (before fixbot's clone exists, so in the workspace itself): "can the
    commands' user run `pytest` here?" is answered by the same path the check takes. Raises
    `ConfigError` (an unknown `run-as` user, a work tree that user cannot enter) and OSError
    (`root` is missing).
    """
    identity, _ = sandbox.choose(settings.run_as, os.geteuid(), runtime=installation.runtime())
    with sandbox.handed_over(root, identity) as who:
        launcher = launcher_for(settings, root, env, who, Redactor.from_env(env))
        return launcher.output(argv, root, timeout)
