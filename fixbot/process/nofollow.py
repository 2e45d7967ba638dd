"""Paths under a root reached without following a link: every folder on the way is opened with
`O_NOFOLLOW` (`parent`), so a link, file or fifo planted there is replaced (writing) or refused
(reading, `Planted`), never followed; files are written under a temporary name and renamed over
the target (`place`). Used by `fixbot.process.sync`, `fixbot.process.readback` and
`fixbot.process.handover`, where the project's commands can plant anything in the workspace.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
LINK_ERRORS = (errno.ELOOP, errno.ENOTDIR)


def executable(mode: int) -> bool:
    """True when `mode` (an `st_mode`) has the owner's exec bit: the one bit git keeps."""
    return bool(mode & stat.S_IXUSR)


class Planted(Exception):
    """A folder on a path is a link or not a folder."""


@contextmanager
def parent(
    root: Path, rel: str, *, create: bool, owner: tuple[int, int] | None = None
) -> Iterator[int]:
    """An fd of the folder holding `rel` under `root`, reached without following a link.

    With `create`, missing folders are made and a link or file in the way is replaced by a
    folder; without, `Planted` is raised for one. FileNotFoundError when a folder is missing."""
    parts = rel.split("/")
    fd = os.open(root, DIR_FLAGS)
    try:
        for part in parts[:-1]:
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o755, dir_fd=fd)
                _give(part, fd, owner)
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in LINK_ERRORS:
                    raise
                if not create:
                    raise Planted(rel) from exc
                _remove_at(part, fd)
                os.mkdir(part, 0o755, dir_fd=fd)
                _give(part, fd, owner)
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _give(name: str, dir_fd: int, owner: tuple[int, int] | None) -> None:
    if owner is not None:
        os.chown(name, *owner, dir_fd=dir_fd, follow_symlinks=False)


def _remove_at(name: str, dir_fd: int) -> None:
    """Remove whatever is at `name` in `dir_fd` (a folder with its content), following no link."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def remove_path(root: Path, rel: str) -> None:
    """Remove whatever is at `rel` under `root` (a folder with its content), following no link;
    nothing when it is missing or a folder on its path is planted."""
    with suppress(FileNotFoundError, Planted), parent(root, rel, create=False) as fd:
        _remove_at(rel.rsplit("/", 1)[-1], fd)


def stat_at(root: Path, rel: str) -> os.stat_result | None:
    """The lstat of `rel` under `root` reached without following a link, or None when it is
    missing. Raises `Planted` for a link or file on its path, OSError."""
    try:
        with parent(root, rel, create=False) as fd:
            return os.stat(rel.rsplit("/", 1)[-1], dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


class TooLarge(OSError):
    """A file grew past the bound it was read with."""


def readable_by(info: os.stat_result, reader: tuple[int, int]) -> bool:
    """True when the user `reader` (uid, gid) could read the file `info` describes by its mode
    bits (root reads everything; ACLs are not consulted, so this errs on refusing)."""
    uid, gid = reader
    if uid == 0:
        return True
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IRUSR)
    if info.st_gid == gid:
        return bool(info.st_mode & stat.S_IRGRP)
    return bool(info.st_mode & stat.S_IROTH)


def read_at(
    root: Path, rel: str, limit: int | None = None, reader: tuple[int, int] | None = None
) -> bytes:
    """The bytes of the regular file `rel` under `root`, opened without following a link and
    without blocking on a fifo: the one way fixbot reads a file the project's commands could
    have written. With `limit` (bytes) at most `limit + 1` bytes are ever read, so a file that
    grows while it is read raises `TooLarge` instead of filling memory; with `reader` (uid, gid:
    the commands' user) a file that user could not read itself (a hard link to a root-only
    file) raises PermissionError. Raises OSError (`Planted` for a link on the way, EINVAL for
    anything but a regular file)."""
    with parent(root, rel, create=False) as dir_fd:
        return _read_in(dir_fd, rel, limit, reader)


def _read_in(dir_fd: int, rel: str, limit: int | None, reader: tuple[int, int] | None) -> bytes:
    """`read_at`'s reading of `rel`'s last component in the folder `dir_fd`."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(rel.rsplit("/", 1)[-1], flags, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"{rel} is not a regular file")
        if reader is not None and not readable_by(info, reader):
            raise PermissionError(errno.EACCES, f"{rel} is not readable by the commands' user")
        if limit is None:
            return handle.read()
        data = handle.read(limit + 1)
        if len(data) > limit:
            raise TooLarge(errno.EFBIG, f"{rel} is larger than {limit} bytes")
        return data


class Folders:
    """The folders of one path under `root` kept open, each reached without following a link:
    for reading many files of a tree in git's order (`read_in`), where consecutive files share
    their folders, so each folder is opened once instead of once per file. At most one folder
    per level is open (the path of the last file read). Use as a context manager (closes
    them)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.parts: list[str] = []  # the open folders' names, from the top
        self.fds: list[int] = []  # root's fd, then one per name of `parts`

    def __enter__(self) -> Folders:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._close_to(0)
        if self.fds:
            os.close(self.fds.pop())

    def _close_to(self, depth: int) -> None:
        while len(self.parts) > depth:
            self.parts.pop()
            os.close(self.fds.pop())

    def fd(self, folder: str) -> int:
        """An fd of `folder` (relative to `root`, "" for `root` itself), every folder on the way
        opened with `O_NOFOLLOW`. Raises `Planted` for a link or file on the way,
        FileNotFoundError for a missing folder, OSError."""
        parts = folder.split("/") if folder else []
        same = 0
        while same < min(len(parts), len(self.parts)) and parts[same] == self.parts[same]:
            same += 1
        self._close_to(same)
        if not self.fds:
            self.fds.append(os.open(self.root, DIR_FLAGS))
        for part in parts[same:]:
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=self.fds[-1])
            except OSError as exc:
                if exc.errno in LINK_ERRORS:
                    raise Planted(folder) from exc
                raise
            self.fds.append(child)
            self.parts.append(part)
        return self.fds[-1]


def read_in(
    folders: Folders, rel: str, limit: int | None = None, reader: tuple[int, int] | None = None
) -> bytes:
    """`read_at(folders.root, rel, limit, reader)`, its folders reached through `folders`
    (kept open for the next file). Raises as `read_at`."""
    return _read_in(folders.fd(rel.rpartition("/")[0]), rel, limit, reader)


def stat_in(folders: Folders, rel: str) -> os.stat_result | None:
    """The lstat of `rel` under `folders.root`, its folders reached through `folders` (kept open
    for the next file, so what is read next there is the file this describes), or None when it
    is missing. Raises `Planted` for a link or file on its path, OSError."""
    folder, _, name = rel.rpartition("/")
    try:
        return os.stat(name, dir_fd=folders.fd(folder), follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_file(path: Path, limit: int, reader: tuple[int, int] | None) -> bytes:
    """`read_at` for the file `path` (its folder is fixbot's own, reached as it is)."""
    return read_at(path.parent, path.name, limit, reader)


def place(
    root: Path,
    rel: str,
    content: bytes | str,
    mode: int,
    owner: tuple[int, int] | None,
    mtime_ns: int | None = None,
) -> None:
    """Make `rel` under `root` hold `content` (bytes: a regular file with `mode`'s exec bit; str:
    a link with that target), replacing whatever is there (a link, a folder, a fifo) without
    following a link: a temporary name in the same folder, then rename(2) over it.

    A regular file gets `mtime_ns` (nanoseconds since the epoch) when given: the workspace's
    copy keeps the modification time of fixbot's, which a fix moved past the second the check
    compiled the old file in (bytecode caches key a source on its size and mtime in seconds)."""
    name = rel.rsplit("/", 1)[-1]
    with parent(root, rel, create=True, owner=owner) as fd:
        temporary = f".fixbot-sync-{secrets.token_hex(6)}"
        if isinstance(content, str):
            os.symlink(content, temporary, dir_fd=fd)
        else:
            perm = 0o755 if executable(mode) else 0o644
            out = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, perm, dir_fd=fd
            )
            with os.fdopen(out, "wb") as handle:
                handle.write(content)
                os.fchmod(out, perm)
                handle.flush()
                if mtime_ns is not None:
                    os.utime(out, ns=(mtime_ns, mtime_ns))
        _give(temporary, fd, owner)
        with suppress(FileNotFoundError):
            if stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                shutil.rmtree(name, dir_fd=fd)
        os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
