"""fixbot's private folders, listed and removed (`fixbot clean`, and the sweep at each run's start).

Each run leaves its private folder (`fixbot.process.worlds.private_folder`: the clone, its
state and logs) for the next run on the same workspace to resume or reuse. The clean-up rule:
a folder whose workspace is gone (a deleted checkout, the demo's temporary one) or that no run
used for `IDLE_DAYS` days is removed; a folder a run holds (its run lock,
`fixbot.process.lock`) never is. "Used" is the last run's start: the modification time of the
folder's lock file, which each run rewrites. The workspace's path is recorded in the folder
(`WORKSPACE_FILE`) by `record_workspace`; a folder without the record (made before it existed)
counts as idle only.

A folder is removed only when it is a real folder of fixbot's own user (lstat, no link
followed): it is first renamed aside while its lock is held, so a run starting at that moment
makes a new one, then deleted (`shutil.rmtree`, which does not follow links).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from fixbot.process.lock import LOCK_FILE

IDLE_DAYS = 30  # a private folder no run used for this long is removed (days)
WORKSPACE_FILE = "workspace"  # the workspace's real path, one line
DAY_S = 86_400


@dataclass(frozen=True)
class Private:
    """One private folder: its `path`, the `workspace` it serves (None: not recorded), whether
    that workspace still exists, when a run last used it (Unix seconds) and whether a run holds
    it now."""

    path: Path
    workspace: Path | None
    workspace_exists: bool
    used_at: float
    in_use: bool

    def reason(self, idle_s: float, now: float) -> str | None:
        """Why the rule removes this folder (None: it stays)."""
        if self.in_use:
            return None
        if self.workspace is not None and not self.workspace_exists:
            return f"its workspace {self.workspace} is gone"
        if now - self.used_at > idle_s:
            return f"no run used it for {(now - self.used_at) / DAY_S:.0f} days"
        return None


def record_workspace(private: Path, workspace: Path) -> None:
    """Write the workspace's real path into `private` (fixbot's own folder), once."""
    path = private / WORKSPACE_FILE
    real = os.path.realpath(workspace)
    with suppress(OSError):
        if path.is_file() and not path.is_symlink() and path.read_text() == real + "\n":
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(real + "\n")


@contextmanager
def _held(folder: Path) -> Iterator[bool]:
    """Hold `folder`'s run lock for the block when no run holds it; yields whether it could."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        yield True  # no run ever locked it
        return
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _own_folder(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()


def _describe(path: Path) -> Private:
    workspace = None
    with suppress(OSError, UnicodeDecodeError):
        record = path / WORKSPACE_FILE
        if not record.is_symlink():
            workspace = Path(record.read_text(encoding="utf-8").strip()) or None
    try:
        used_at = (path / LOCK_FILE).lstat().st_mtime
    except OSError:
        used_at = path.lstat().st_mtime
    with _held(path) as free:
        in_use = not free
    exists = workspace is not None and workspace.is_dir()
    return Private(path, workspace, exists, used_at, in_use)


def listing(base: Path) -> list[Private]:
    """The private folders under `base` (fixbot's own, no link), oldest use first; [] when
    `base` does not exist."""
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    found = [_describe(p) for p in entries if not p.name.startswith(".") and _own_folder(p)]
    return sorted(found, key=lambda p: p.used_at)


def size(path: Path) -> int:
    """The bytes of the regular files under `path` (no link followed)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                info = os.lstat(os.path.join(root, name))
                total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def remove(private: Private) -> bool:
    """Remove the folder `private` unless a run holds it now; True when it was removed."""
    path = private.path
    if not _own_folder(path):
        return False
    with _held(path) as free:
        if not free:
            return False
        aside = path.with_name(f".removing-{path.name}-{secrets.token_hex(4)}")
        try:
            os.rename(path, aside)
        except OSError:
            return False
    shutil.rmtree(aside, ignore_errors=True)
    return True


def sweep(
    base: Path, keep: Path | None = None, idle_days: float = IDLE_DAYS, now: float | None = None
) -> list[tuple[Private, str]]:
    """Apply the clean-up rule to the folders under `base`, never to `keep` (the run's own);
    return the removed ones with why. Best effort: a folder that cannot be removed stays."""
    now = time.time() if now is None else now
    removed = []
    for private in listing(base):
        why = private.reason(idle_days * DAY_S, now)
        if why is None or (keep is not None and private.path == keep):
            continue
        if remove(private):
            removed.append((private, why))
    return removed
