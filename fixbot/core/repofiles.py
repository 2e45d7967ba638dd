"""Reading a file of the repository by name, whatever the pull request committed there.

A repository may commit a link under any name (`go.mod`, `package.json`, `zero.py`): to
`/dev/zero`, whose size says 0 and whose read never ends; to a fifo, whose open blocks; to a file
outside the repository (`/proc/self/environ`, a key), whose text would reach the model or the
report. `regular_text` is the one reader for such a file: a regular file inside the repository
(links followed inside it only), at most `limit` bytes ever read, else None.
"""

from __future__ import annotations

import os
import stat
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
