"""The repository's git configuration as fixbot found it, put back after every project command.

The project's commands may write `.git/config` when they run as fixbot's own user; `ConfigPin`
undoes that before fixbot's git (`fixbot.process.git`) reads it again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fixbot.core.errors import ConfigError, GitError
from fixbot.process import git

PINNED_FILES = ("config", "config.worktree")  # read by every git command, in the git folder


@dataclass(frozen=True)
class ConfigPin:
    """`.git/config` (and `config.worktree`) as fixbot found them, put back after each command.

    The project's commands may write `.git/config` when they run as fixbot's own user: a
    `remote.origin.pushurl = ext::sh script`, `core.fsmonitor`, `core.sshCommand`, a filter or an
    `include.path` would run as fixbot, with the token at push time. `take`
    records the bytes (None: absent) before the first command, and which folder `repo/.git` is
    (device and inode); `restore` rewrites any file that differs, replacing a symlink rather
    than following it, and returns the names it restored. A `.git` the commands replaced (a
    gitfile or a folder pointing at a repository of theirs) cannot be put back: `restore`
    raises `ConfigError` and fixbot stops before its git reads it.
    """

    folder: Path
    files: tuple[tuple[str, bytes | None], ...]
    dot_git: Path | None = None
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of `dot_git`, not followed

    @classmethod
    def take(cls, repo: Path) -> ConfigPin | None:
        """Pin the configuration of the repository at `repo`; None when it is not one."""
        try:
            folder = Path(git.run(repo, "rev-parse", "--absolute-git-dir"))
        except (GitError, OSError):
            return None
        files = tuple((name, _read(folder / name)) for name in PINNED_FILES)
        dot_git = repo / ".git"
        return cls(folder, files, dot_git, _inode(dot_git))

    def restore(self) -> list[str]:
        """Put every pinned file back as it was; return the names that had changed. Raises
        `ConfigError` when `.git` itself is no longer the folder it was."""
        if self.dot_git is not None and _inode(self.dot_git) != self.identity:
            raise ConfigError(
                [f"{self.dot_git} was replaced while the project's commands ran: fixbot stops"]
            )
        changed = []
        for name, content in self.files:
            path = self.folder / name
            if _read(path) == content and not path.is_symlink():
                continue
            changed.append(name)
            path.unlink(missing_ok=True)
            if content is not None:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(content)
        return changed


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
