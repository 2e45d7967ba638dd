"""Reading a file of the repository by name, whatever the pull request committed there.

A repository may commit a link under any name (`go.mod`, `package.json`, `zero.py`): to
`/dev/zero`, whose size says 0 and whose read never ends; to a fifo, whose open blocks; to a file
outside the repository (`/proc/self/environ`, a key), whose text would reach the model or the
report. `regular_text` is the one reader for such a file: a regular file inside the repository
(links followed inside it only), at most `limit` bytes ever read, else None. And the
modification times of the files a fix changed, set past the second the check last compiled them
in (`past_the_second`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

# a source or configuration file larger than this is not read (generated code, vendored bundles)
MAX_TEXT_BYTES = 512_000


def resolved(path: Path) -> Path | None:
    """`path` made absolute with every link followed, or None when it cannot be: a NUL byte in
    it (ValueError), a link loop (RuntimeError in Python 3.11, OSError later), an unreadable
    folder. A path a project's command wrote must be left out rather than end the run."""
    try:
        return path.resolve()
    except (OSError, ValueError, RuntimeError):
        return None


def regular_text(repo: Path, path: Path, limit: int = MAX_TEXT_BYTES) -> str | None:
    """The text (UTF-8, errors replaced) of `path` (absolute, or relative to the working folder)
    when it is a regular file inside `repo` of at most `limit` bytes, else None. The file is
    opened without blocking and checked as opened (`fstat`), and at most `limit + 1` bytes are
    read, so a file swapped or grown after a look is refused, never read whole."""
    full, root = resolved(path), resolved(repo)
    if full is None or root is None or not full.is_relative_to(root):
        return None
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            data = handle.read(limit + 1)
        except OSError:
            return None
    if len(data) > limit:
        return None
    return data.decode("utf-8", errors="replace")


_LAST_SECOND = [0]  # the second `past_the_second` gave out last, in this process


def past_the_second(repo: Path, paths: list[str]) -> None:
    """Give each file a fix changed a modification time in a later whole second than now.

    Bytecode caches key a source file on its size and its mtime in whole seconds (Python's
    default, PEP 552): an edit that keeps the size within the second the check compiled the old
    file would run the old code, and a right fix would look wrong. Each call gives a later
    second than the call before, so two fixes within one second (an oscillation back to an
    earlier file of the same size) never share a modification time. Files that are gone or are
    links are left alone (seconds, since the epoch)."""
    second = max(int(time.time()) + 1, _LAST_SECOND[0] + 1)
    _LAST_SECOND[0] = second
    later = second * 1_000_000_000
    for rel in paths:
        path = repo / rel
        with contextlib.suppress(OSError):
            info = path.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_mtime_ns < later:
                os.utime(path, ns=(info.st_atime_ns, later), follow_symlinks=False)
