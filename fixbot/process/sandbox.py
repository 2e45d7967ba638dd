"""Who the project's commands run as, so no process started for the check can read a secret.

The check, the set-up and the fix commands run the repository's code. Scrubbing their
environment is not enough: a process can read `/proc/<pid>/environ` of every process of its own
user (see proc(5): the file is readable under a ptrace "read" access check, which a different,
unprivileged uid fails). So when fixbot runs as root (the container action) the commands run as
an unprivileged user: `fixbot` (uid 1001, created in fixbot's image), else `nobody`. That user
cannot read root's processes (fixbot, tini, anything holding the step's environment), cannot
write `.git` (fixbot's git would run its config as root), and gets its own HOME.

When fixbot is not root (runner mode, the CLI) the commands share fixbot's uid; the entry point
(`fixbot.cli`) re-executes fixbot with the secrets moved from its environment into memory, so
`/proc/<fixbot>/environ` holds none (the parent shell's environment is outside fixbot's reach:
see docs/SECURITY.md).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from fixbot.core.errors import ConfigError

AUTO = "auto"
SELF = "self"
CANDIDATES = ("fixbot", "nobody")  # the image's user (uid 1001), then the classic fallback


@dataclass(frozen=True)
class Identity:
    """An unprivileged user for the project's commands: uid, gid, name and a writable HOME."""

    uid: int
    gid: int
    name: str
    home: str = ""


Lookup = Callable[[str], "pwd.struct_passwd"]


def choose(run_as: str, euid: int, lookup: Lookup = pwd.getpwnam) -> tuple[Identity | None, str]:
    """Decide the user of the project's commands; return (identity or None for 'as fixbot', note).

    `run_as` is the setting: `auto` (root: the first of `CANDIDATES` that exists; otherwise
    fixbot's own user), `self` (fixbot's own user, whatever it is) or a user name (root only).
    Raises `ConfigError` for a named user that does not exist or needs root.
    """
    if run_as == SELF:
        return None, "the project's commands run as fixbot's own user (run-as: self)"
    if run_as != AUTO:
        if euid != 0:
            raise ConfigError(
                [f"run-as {run_as!r} needs fixbot to run as root; use run-as: auto or self"]
            )
        return _lookup(run_as, lookup, strict=True), f"the project's commands run as {run_as}"
    if euid != 0:
        return None, "the project's commands run as fixbot's own user (fixbot is not root)"
    for name in CANDIDATES:
        found = _lookup(name, lookup, strict=False)
        if found is not None:
            return found, f"the project's commands run as the unprivileged user {name}"
    return None, (
        "fixbot runs as root and found no unprivileged user (fixbot, nobody): the project's "
        "commands run as root and can read the secrets of fixbot's processes"
    )


def _lookup(name: str, lookup: Lookup, *, strict: bool) -> Identity | None:
    try:
        entry = lookup(name)
    except KeyError:
        if strict:
            raise ConfigError([f"run-as: no user {name!r} on this machine"]) from None
        return None
    if entry.pw_uid == 0:
        raise ConfigError([f"run-as: {name!r} is root; name an unprivileged user"])
    return Identity(uid=entry.pw_uid, gid=entry.pw_gid, name=name)


@dataclass
class Workspace:
    """How `confine` found the work tree: its root's owner and mode, restored afterwards."""

    root: Path
    root_stat: os.stat_result


@contextmanager
def confine(root: Path, identity: Identity | None, state_dir: str) -> Iterator[Identity | None]:
    """Make the work tree usable by `identity` and `.git` untouchable by it, for the block.

    The files of the work tree (not `.git`, not the state folder `state_dir`'s first component)
    become the identity's, so the check can write build outputs and fix commands can edit;
    `.git` and the state folder become root's and read-only to others; the root folder becomes
    root's with the sticky bit (mode 1777), so the identity can create files there but not
    rename or replace `.git`. A private HOME is created. All of it is undone on exit: every
    file is given back to the owner of the work tree's root (a checkout's files all belong to
    the runner's user, who must be able to clean them up). Yields the identity with its `home`
    set; with None, does nothing. Raises `ConfigError` when the identity cannot reach the work
    tree (a parent folder it may not enter).
    """
    if identity is None:
        yield None
        return
    _check_reachable(root)
    private = private_names(state_dir)
    saved = Workspace(root, root.stat())
    home = Path(tempfile.mkdtemp(prefix="fixbot-home-"))
    os.chown(home, identity.uid, identity.gid)
    try:
        claim(root, identity, private)
        for name in private:
            _chown_tree(root / name, 0, 0)
        os.chown(root, 0, 0)
        os.chmod(root, 0o1777)
        yield Identity(identity.uid, identity.gid, identity.name, str(home))
    finally:
        _restore(saved)
        shutil.rmtree(home, ignore_errors=True)


def private_names(state_dir: str) -> tuple[str, ...]:
    """Top-level names of the work tree the project's commands may not write: `.git` and the
    first component of the state folder."""
    return (".git", Path(state_dir).parts[0])


def claim(root: Path, identity: Identity, private: tuple[str, ...] = (".git",)) -> None:
    """Give the identity every file of the work tree outside the `private` top-level names
    (fixbot's own writes are root's until then). Called before every command."""
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == root:
            dirnames[:] = [d for d in dirnames if d not in private]
            filenames = [f for f in filenames if f not in private]
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            if (info.st_uid, info.st_gid) != (identity.uid, identity.gid):
                os.lchown(path, identity.uid, identity.gid)


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    if not path.is_dir() or path.is_symlink():
        return
    os.lchown(path, uid, gid)
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [*dirnames, *filenames]:
            os.lchown(os.path.join(dirpath, name), uid, gid)


def _restore(saved: Workspace) -> None:
    info = saved.root_stat
    _chown_tree(saved.root, info.st_uid, info.st_gid)
    os.chmod(saved.root, stat.S_IMODE(info.st_mode))


def _check_reachable(root: Path) -> None:
    for folder in [root, *root.parents]:
        if not folder.stat().st_mode & stat.S_IXOTH:
            raise ConfigError(
                [
                    f"the project's commands run as an unprivileged user, who may not enter "
                    f"{folder} (mode {stat.S_IMODE(folder.stat().st_mode):o}): put the "
                    "repository where other users may enter, or set run-as: self"
                ]
            )


DEDICATED = "fixbot"  # the image's user: no other process runs as it


def kill_leftovers(identity: Identity | None) -> int:
    """SIGKILL every process still running as the dedicated user `fixbot` after a command
    (one that called `setsid()` escaped its process group); return how many were signalled.

    Only for `DEDICATED`: other users (`nobody`) may run unrelated daemons.
    """
    if identity is None or identity.name != DEDICATED:
        return 0
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == identity.uid:
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
        except (FileNotFoundError, ProcessLookupError):
            continue
    return killed


def check_git_intact(root: Path, identity: Identity | None) -> None:
    """Raise `ConfigError` when `.git` is no longer root's: the check replaced or changed it.

    Called after every command run as `identity`; fixbot's own git must not read a
    configuration the project's code wrote (filters, fsmonitor and remotes run as root).
    """
    if identity is None:
        return
    info = (root / ".git").lstat()
    if info.st_uid != 0 or not stat.S_ISDIR(info.st_mode):
        raise ConfigError(
            [f"{root / '.git'} was replaced while the project's commands ran: fixbot stops"]
        )
