"""fixbot's own programs (`git`, `unshare`, the research tool's interpreter): absolute paths
resolved once, from folders the project's commands cannot write.

`/opt/venv/bin` in the image belongs to the commands' user and comes first on PATH: a check that
drops a `git` there would have root fixbot run it with the token. So when
fixbot runs as root, a folder of PATH is trusted only when it and every parent up to `/` belong
to root and are writable by no group or other (see path_resolution(7): whoever may write a
folder may replace the names in it), and a program is taken only when the file itself (after
symbolic links) is root's, writable by no group or other, in such a folder. When fixbot is not
root the commands run as fixbot's own user and could write anything fixbot can, so fixbot's
PATH is taken as given.

Resolution happens once per process (`which` caches); callers run the path it returns.
"""

from __future__ import annotations

import os
import shutil
import stat
from functools import cache
from pathlib import Path

from fixbot.core.errors import ConfigError

FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def root_only(folder: Path) -> bool:
    """True when `folder` and each of its parents is a directory of uid 0 that no group or other
    may write (the sticky bit does not help: another user may still create new names)."""
    try:
        resolved = folder.resolve(strict=True)
    except OSError:
        return False
    for part in [resolved, *resolved.parents]:
        try:
            info = part.stat()
        except OSError:
            return False
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
            return False
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


def trusted_path(path: str, euid: int) -> str:
    """The folders of `path` (a PATH value) fixbot may take its own programs from.

    As root (`euid` 0): only `root_only` folders, then `FALLBACK_PATH`'s root-only folders
    (so a PATH the commands' user spoiled still finds `/usr/bin/git`). Otherwise `path` itself.
    """
    if euid != 0:
        return path
    kept: list[str] = []
    for folder in [*path.split(os.pathsep), *FALLBACK_PATH.split(os.pathsep)]:
        if folder and os.path.isabs(folder) and folder not in kept and root_only(Path(folder)):
            kept.append(folder)
    return os.pathsep.join(kept)


@cache
def which(name: str) -> str:
    """The absolute path of fixbot's program `name`, from `trusted_path(PATH, euid)`, resolved
    once per process. Raises `ConfigError` when it is not there, naming the folders searched."""
    search = trusted_path(os.environ.get("PATH", FALLBACK_PATH), os.geteuid())
    found = next(
        (
            hit
            for folder in search.split(os.pathsep)
            if (hit := shutil.which(name, path=folder)) and _safe_file(Path(hit))
        ),
        None,
    )
    if found is None:
        raise ConfigError(
            [
                f"fixbot needs {name!r} and found none in {search or '(no trusted folder)'}: "
                + (
                    "as root, fixbot runs only programs from folders root alone may write; "
                    f"install {name} there (e.g. /usr/bin)"
                    if os.geteuid() == 0
                    else f"install {name} or put its folder on PATH"
                )
            ]
        )
    return os.path.abspath(found)


def _safe_file(path: Path) -> bool:
    """As root: the program (after links) is root's and writable by no group or other, in a
    root-only folder. Not root: any executable file."""
    if os.geteuid() != 0:
        return True
    try:
        real = path.resolve(strict=True)
        info = real.stat()
    except OSError:
        return False
    writable = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return info.st_uid == 0 and not writable and root_only(real.parent)


def optional(name: str) -> str | None:
    """`which(name)`, or None when it is missing."""
    try:
        return which(name)
    except ConfigError:
        return None


def root_program(name: str) -> str | None:
    """The absolute path of `name` in the first folder of `FALLBACK_PATH` where it is a file of
    root's, writable by no group or other, in a root-only folder, whatever fixbot's own uid and
    PATH (an earlier step can put a `sudo` of its own first on the job's PATH); None when none."""
    for folder in FALLBACK_PATH.split(os.pathsep):
        candidate = Path(folder) / name
        if not (root_only(Path(folder)) and os.access(candidate, os.X_OK)):
            continue
        try:
            real = candidate.resolve(strict=True)
            info = real.stat()
        except OSError:
            continue
        writable = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if info.st_uid == 0 and not writable and root_only(real.parent):
            return str(candidate)
    return None
