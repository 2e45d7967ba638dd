"""Run a project command (the check, the set-up, a fix command): the one way fixbot does it.

The command runs under `/bin/sh -c` in a new session (so its process group id is its pid), with
stdin closed, the environment given (the scrubbed one: see `fixbot.core.secrets.check_environment`),
optionally as an unprivileged user (`fixbot.process.sandbox`), and stdout+stderr merged into a pipe
that fixbot reads into a `BoundedLog`: the first and last `max_log_bytes / 2` bytes are kept,
redacted as they are written, with the count of what was dropped (memory and disk stay bounded
whatever the command writes). The tail is read back from the end of the file.

On timeout, on any exception while waiting (KeyboardInterrupt, an exception raised by a signal
handler), and after a normal exit (leftover background processes), the whole process group gets
SIGTERM, then SIGKILL after a grace period. A process that called `setsid()` itself has left the
group (see setpgid(2)): the launcher closes that gap with a PID namespace, whose processes all
die with its init, the shell (`fixbot.process.sandbox.namespace_argv`), or a marked sweep.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from fixbot.core.failure import CheckResult
from fixbot.process import shellwords
from fixbot.process.boundedlog import DEFAULT_MAX_LINE, NOTE_PREFIX, BoundedLog, Redact, read_tail
from fixbot.process.sandbox import Identity, set_process_limit

__all__ = ["NOTE_PREFIX", "kill_group", "read_tail", "run_check", "run_command"]

POLL_S = 0.02  # seconds between checks that a process group is gone
INTERRUPT_GRACE_S = 1.0  # grace after an exception while waiting, seconds
AFTER_KILL_WAIT_S = 2.0  # how long to wait for a SIGKILLed group to vanish, seconds
DRAIN_S = 1.0  # how long to keep reading output after the group was killed, seconds
READ_BYTES = 1024 * 1024  # one read from the pipe
DEFAULT_MAX_LOG_BYTES = 16 * 1024 * 1024
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def run_command(
    command: str,
    cwd: Path,
    log_path: Path,
    timeout: float,
    *,
    env: Mapping[str, str],
    identity: Identity | None = None,
    redact: Redact | None = None,
    max_log_bytes: int = DEFAULT_MAX_LOG_BYTES,
    grace: float = 5.0,
    tail_bytes: int = 64 * 1024,
    stdin_path: Path | None = None,
    wrapper: Sequence[str] = (),
    max_processes: int | None = None,
    pass_fds: Sequence[int] = (),
) -> CheckResult:
    """Run `command` with `/bin/sh -c` in `cwd`, writing its merged output to `log_path`.

    `wrapper` is an argv prefix the shell runs under (the PID namespace of
    `fixbot.process.sandbox.namespace_argv`); `max_processes` sets RLIMIT_NPROC (see
    `sandbox.process_limit`; None: unchanged); `pass_fds` are descriptors the command inherits
    (the observer's channels, `fixbot.observe.channel`; every other one of fixbot's is closed).

    `timeout` and `grace` are seconds; `env` is the complete environment (required: nothing of
    fixbot's own is inherited); `identity` runs it as that user (fixbot must be root) with
    HOME set to `identity.home`;
    `redact` is applied to every line written; `max_log_bytes` bounds the output kept (head and
    tail); `tail_bytes` bounds `CheckResult.tail`; `stdin_path` is a file fed to the command's
    standard input (None: stdin is closed). `output_bytes` counts every byte the command
    wrote, kept or not. A timeout gives `timed_out=True, exit_code=None`; a shell killed by
    signal N gives `exit_code=128+N` (the shell's own convention). Either case is noted on the
    last line of the log (`[fixbot] ...`). Raises OSError when the log cannot be written or
    `cwd` does not exist; any exception while waiting kills the process group first.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with log_path.open("wb") as log, contextlib.ExitStack() as inputs:
        sink = BoundedLog(log, max_log_bytes, redact, DEFAULT_MAX_LINE)
        stdin = inputs.enter_context(stdin_path.open("rb")) if stdin_path else None
        proc = _spawn(command, cwd, env, identity, stdin, wrapper, max_processes, pass_fds)
        assert proc.stdout is not None
        try:
            exit_code = _pump(proc, proc.stdout, sink, start + timeout, grace)
        finally:
            kill_group(proc.pid, min(grace, INTERRUPT_GRACE_S))
            _drain(proc.stdout, sink)
            proc.stdout.close()
        duration = time.monotonic() - start
        sink.close()
        note = _note(exit_code, timeout)
        if note:
            log.write(f"\n{NOTE_PREFIX} {note}\n".encode())
    return CheckResult(
        command=command,
        exit_code=exit_code,
        timed_out=exit_code is None,
        duration_s=duration,
        log_path=log_path,
        output_bytes=sink.total,
        tail=read_tail(log_path, tail_bytes),
    )


run_check = run_command  # the check is one project command among others


def _spawn(
    command: str,
    cwd: Path,
    env: Mapping[str, str],
    identity: Identity | None,
    stdin: IO[bytes] | None = None,
    wrapper: Sequence[str] = (),
    max_processes: int | None = None,
    pass_fds: Sequence[int] = (),
) -> subprocess.Popen[bytes]:
    switch = identity is not None and not drops_user(wrapper)
    return subprocess.Popen(
        [*wrapper, shellwords.SHELL, "-c", shellwords.exec_if_program(command)],
        preexec_fn=_die_with_parent(max_processes),
        cwd=cwd,
        env=_environment(env, identity),
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
        user=identity.uid if identity is not None and switch else None,
        group=identity.gid if identity is not None and switch else None,
        extra_groups=[] if switch else None,
    )


def _environment(env: Mapping[str, str], identity: Identity | None) -> dict[str, str]:
    """The commands' environment: `env`, always given (the caller built it: fixbot's own is
    never inherited by a command), with `identity`'s HOME, USER and LOGNAME and git's trust of
    every directory when the commands run as `identity`."""
    environment = dict(env)
    if identity is None:
        return environment
    environment.update({"HOME": identity.home or "/", "USER": identity.name})
    environment["LOGNAME"] = identity.name
    environment.update(_trust_every_directory(environment))
    return environment


def drops_user(wrapper: Sequence[str]) -> bool:
    """True when `wrapper` itself switches to the commands' user (`setpriv --reuid`, inside a
    PID namespace root created: `fixbot.process.sandbox.namespace_argv`)."""
    return any(word.startswith("--reuid=") for word in wrapper)


def _die_with_parent(max_processes: int | None = None) -> Callable[[], None] | None:
    """A pre-exec hook giving the shell SIGKILL when fixbot dies (prctl(2) PR_SET_PDEATHSIG),
    and RLIMIT_NPROC `max_processes` when given.

    The shell runs in a session of its own, so a SIGKILLed fixbot (which cannot clean up) would
    leave it running: a fix command would go on editing files after fixbot's state was saved.
    Linux only (None elsewhere); the hook runs after the change of user, which would clear it.
    """
    if not sys.platform.startswith("linux"):
        return None if max_processes is None else (lambda: set_process_limit(max_processes))
    libc = ctypes.CDLL(None, use_errno=True)
    prctl, parent = libc.prctl, os.getpid()

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # fixbot died between fork and prctl
            os._exit(1)
        set_process_limit(max_processes)

    return hook


def _trust_every_directory(env: Mapping[str, str]) -> dict[str, str]:
    """`safe.directory=*` for the project's own git, appended to any `GIT_CONFIG_COUNT` entries:
    `.git` is root's while the commands run, and git refuses a repository of another owner."""
    count = env.get("GIT_CONFIG_COUNT", "0")
    n = int(count) if count.isdigit() else 0
    return {
        "GIT_CONFIG_COUNT": str(n + 1),
        f"GIT_CONFIG_KEY_{n}": "safe.directory",
        f"GIT_CONFIG_VALUE_{n}": "*",
    }


def _pump(
    proc: subprocess.Popen[bytes], pipe: IO[bytes], sink: BoundedLog, deadline: float, grace: float
) -> int | None:
    """Copy output into `sink` until the shell exits (its exit code) or `deadline` (None)."""
    fd = pipe.fileno()
    open_pipe = True
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            kill_group(proc.pid, grace)
            with contextlib.suppress(subprocess.TimeoutExpired):  # a shell stuck in the kernel
                proc.wait(AFTER_KILL_WAIT_S)
            return None
        if not open_pipe:
            return _wait(proc, left, grace)
        ready, _, _ = select.select([fd], [], [], min(left, 0.1))
        if ready:
            chunk = os.read(fd, READ_BYTES)
            if chunk:
                sink.feed(chunk)
                continue
            open_pipe = False  # every writer closed it: wait for the shell
        elif proc.poll() is not None:
            return _code(proc.returncode)  # a background process still holds the pipe


def _drain(pipe: IO[bytes], sink: BoundedLog) -> None:
    """Read what is left in the pipe after the group was killed, for at most `DRAIN_S`."""
    fd = pipe.fileno()
    deadline = time.monotonic() + DRAIN_S
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return
        chunk = os.read(fd, READ_BYTES)
        if not chunk:
            return
        sink.feed(chunk)


def _code(code: int) -> int:
    return 128 - code if code < 0 else code


def _wait(proc: subprocess.Popen[bytes], timeout: float, grace: float) -> int | None:
    """Wait for the shell; on timeout kill its group and return None, else its exit code."""
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid, grace)
        with contextlib.suppress(subprocess.TimeoutExpired):  # a shell stuck in the kernel
            proc.wait(AFTER_KILL_WAIT_S)
        return None
    return _code(code)


def _note(exit_code: int | None, timeout: float) -> str:
    """The line fixbot adds to the log for a timeout or a signal death, else ''."""
    if exit_code is None:
        return f"timed out after {timeout:g} s: the process group was terminated"
    if exit_code > 128 and exit_code - 128 in signal.valid_signals():
        name = signal.Signals(exit_code - 128).name
        return f"the command was killed by signal {exit_code - 128} ({name})"
    return ""


def kill_group(pgid: int, grace: float) -> None:
    """Terminate process group `pgid`: SIGTERM, then SIGKILL if any member lives after `grace` s.

    Returns at once when the group is already gone; never raises for a vanished group. Zombies
    whose parent is us are reaped; other zombies count as dead (a non-reaping PID 1 keeps them).
    """
    if not _signal_group(pgid, signal.SIGTERM):
        return
    if _wait_group_gone(pgid, grace):
        return
    _signal_group(pgid, signal.SIGKILL)
    _wait_group_gone(pgid, AFTER_KILL_WAIT_S)


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send `sig` to the group; False when no process is left in it."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def _wait_group_gone(pgid: int, seconds: float) -> bool:
    """Poll until no live process is left in group `pgid` or `seconds` pass; True when gone."""
    deadline = time.monotonic() + seconds
    while _group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
    return True


def _group_alive(pgid: int) -> bool:
    """True while a process of group `pgid` is running (zombies excluded where /proc tells)."""
    _reap_group(pgid)
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    return any(state not in "ZX" for state in _group_states(proc, pgid))


def _reap_group(pgid: int) -> None:
    """Reap any of our children in group `pgid` that have exited (no blocking)."""
    while True:
        try:
            pid, _ = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _group_states(proc: Path, pgid: int) -> list[str]:
    """The state letters (see proc(5), /proc/PID/stat field 3) of the members of `pgid`."""
    states = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            states.append(fields[0])
    return states
