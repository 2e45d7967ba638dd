"""Run the check command: own process group, output streamed to a log file, hard timeout.

The command runs under `/bin/sh -c` in a new session (so its process group id is its pid), with
stdin closed and stdout+stderr written straight to the log file's descriptor: no pipe exists, so
no surviving grandchild can block us, and memory stays bounded whatever the output size. The
tail is read back from the end of the file.

On timeout, on any exception while waiting (KeyboardInterrupt, an exception raised by a signal
handler), and after a normal exit (leftover background processes), the whole process group gets
SIGTERM, then SIGKILL after a grace period. A process that called `setsid()` itself has left the
group and is out of reach; that is the documented limit of process groups (see setpgid(2)).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from fixbot.models import CheckResult

POLL_S = 0.02  # seconds between checks that a process group is gone
INTERRUPT_GRACE_S = 1.0  # grace after an exception while waiting, seconds
AFTER_KILL_WAIT_S = 2.0  # how long to wait for a SIGKILLed group to vanish, seconds
NOTE_PREFIX = "[fixbot]"


def run_check(
    command: str,
    cwd: Path,
    log_path: Path,
    timeout: float,
    *,
    env: Mapping[str, str] | None = None,
    grace: float = 5.0,
    tail_bytes: int = 64 * 1024,
    stdin_path: Path | None = None,
) -> CheckResult:
    """Run `command` with `/bin/sh -c` in `cwd`, writing its merged output to `log_path`.

    `timeout` and `grace` are seconds; `env` is the complete environment (None: inherit ours);
    `tail_bytes` bounds `CheckResult.tail`; `stdin_path` is a file fed to the command's standard
    input (None: stdin is closed, /dev/null). A timeout gives `timed_out=True, exit_code=None`; a
    shell killed by signal N gives `exit_code=128+N` (the shell's own convention). Either case is
    noted on the last line of the log (`[fixbot] ...`), after the command's `output_bytes`.
    Raises OSError when the log cannot be written or `cwd` does not exist; any exception while
    waiting kills the process group before it propagates.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with log_path.open("wb") as log, contextlib.ExitStack() as inputs:
        stdin = inputs.enter_context(stdin_path.open("rb")) if stdin_path else subprocess.DEVNULL
        proc = subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=stdin,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            exit_code = _wait(proc, timeout, grace)
        finally:
            kill_group(proc.pid, min(grace, INTERRUPT_GRACE_S))
        duration = time.monotonic() - start
        output_bytes = log.tell()
        note = _note(exit_code, timeout)
        if note:
            log.write(f"\n{NOTE_PREFIX} {note}\n".encode())
    return CheckResult(
        command=command,
        exit_code=exit_code,
        timed_out=exit_code is None,
        duration_s=duration,
        log_path=log_path,
        output_bytes=output_bytes,
        tail=read_tail(log_path, tail_bytes),
    )


def _wait(proc: subprocess.Popen[bytes], timeout: float, grace: float) -> int | None:
    """Wait for the shell; on timeout kill its group and return None, else its exit code."""
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid, grace)
        with contextlib.suppress(subprocess.TimeoutExpired):  # a shell stuck in the kernel
            proc.wait(AFTER_KILL_WAIT_S)
        return None
    return 128 - code if code < 0 else code


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


def read_tail(path: Path, size: int) -> str:
    """The last `size` bytes of `path`, decoded as UTF-8 with errors replaced ('' if size <= 0)."""
    if size <= 0:
        return ""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - size))
        return handle.read().decode("utf-8", errors="replace")
