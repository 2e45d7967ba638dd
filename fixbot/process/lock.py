"""One run per repository: an OS file lock in the state folder, held for the whole run.

The lock is `fcntl.flock` on `<state folder>/lock` (see flock(2)): the kernel releases it when
the holder's process ends, however it ends, so a lock left by a killed run never blocks the next
one (which then resumes the killed run's state). The file holds the holder's PID and start time
(Unix seconds), only to name it in the message a second run prints.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from fixbot.core.errors import ConfigError

LOCK_FILE = "lock"


def _holder(path: Path) -> str:
    """`PID N, started at T` from the lock file, or a vaguer phrase when it is unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        started = datetime.fromtimestamp(float(data["started_at"]), UTC)
        return f"PID {int(data['pid'])}, started at {started:%Y-%m-%d %H:%M:%S} UTC"
    except (OSError, ValueError, KeyError, TypeError):
        return "PID unknown"


@contextmanager
def run_lock(state_dir: Path) -> Iterator[None]:
    """Hold the repository's run lock while the block runs.

    Raises `ConfigError` at once (exit 2) when another live fixbot run holds it, naming its PID
    and start time. Raises OSError when the state folder cannot be created.
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(
                [
                    f"another fixbot run ({_holder(path)}) is working on this repository; "
                    "wait for it to finish, or stop it (its state is kept and `fixbot run` "
                    "resumes it)"
                ]
            ) from None
        record = json.dumps({"pid": os.getpid(), "started_at": time.time()}).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, record, 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
