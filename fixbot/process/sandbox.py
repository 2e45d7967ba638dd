"""The boundary around the project's commands: who runs them, and what they cannot outlive.

The check, the set-up, the fix commands and the research tool's interpreter run the repository's
code. Two decisions, made here and nowhere else:

**Who.** In fixbot's container image (`FIXBOT_RUNTIME=container`, where fixbot is root) the
commands run as an unprivileged user:
`fixbot` (uid 1001, created in the image), else `nobody`. That user cannot read root's
processes (proc(5): `/proc/<pid>/environ` passes a ptrace "read" access check a different,
unprivileged uid fails), cannot write `.git` or the state folder (both stay root's until fixbot
has pushed), and gets its own HOME; the rest of the work tree is handed over and given back
exactly as it was (`confine`, with a record that survives a `kill -9`). Everywhere else (the
CLI, as root on someone's own machine too; the runner mode) the commands run as fixbot's own
user unless `run-as` names another: it is the user's own code on the user's own machine, a
pyenv Python under `/root` and a mode-700 checkout just work, and the secrets are kept out of
the commands' environment and out of fixbot's own (the entry point, `fixbot.cli`, re-executes
fixbot with them moved into a pipe). docs/SECURITY.md states
the trade-off.

**How long.** Every command runs in a PID namespace of its own when the kernel allows one
(`unshare --pid --fork --kill-child --mount-proc`, and `--user --map-current-user` when not root;
see unshare(1), pid_namespaces(7)): when the command's shell (the namespace's init) ends, the
kernel kills every process left in it, so nothing it started outlives the step, whatever it did
with sessions, groups or pids; the fresh `/proc` shows none of fixbot's processes. Where the
kernel refuses (a container without `CAP_SYS_ADMIN` under Docker's seccomp profile), every
process of the command carries a per-command marker in its environment and `sweep` stops then
kills exactly the marked processes, repeated until none is left: a run never signals a process
it did not start.
"""

from __future__ import annotations

import json
import os
import pwd
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fixbot.core.errors import ConfigError

AUTO = "auto"
SELF = "self"
CANDIDATES = ("fixbot", "nobody")  # the image's user (uid 1001), then the classic fallback
CONTAINER = "container"  # the value of FIXBOT_RUNTIME in fixbot's image (see the Dockerfile)
MARK_VARIABLE = "FIXBOT_COMMAND_MARK"  # carried by every process of one command (see `sweep`)
MAX_PROCESSES = 2048  # RLIMIT_NPROC of the commands where the kernel counts only theirs
OWNERSHIP_RECORD = "ownership.json"  # in the state folder: the work tree's owners and modes


@dataclass(frozen=True)
class Identity:
    """An unprivileged user for the project's commands: uid, gid, name and a writable HOME."""

    uid: int
    gid: int
    name: str
    home: str = ""


Lookup = Callable[[str], "pwd.struct_passwd"]


def choose(
    run_as: str, euid: int, lookup: Lookup = pwd.getpwnam, *, runtime: str | None
) -> tuple[Identity | None, str]:
    """Decide the user of the project's commands; return (identity or None for 'as fixbot', note).

    `run_as` is the setting: `auto` (root in fixbot's container, `runtime == "container"`: the
    first of `CANDIDATES` that exists; anywhere else, the runner mode and the CLI as root
    included, fixbot's own user), `self` (fixbot's own user, whatever it is) or a user name
    (root only: how the runner mode under `sudo` drops to another user). `runtime` is
    `FIXBOT_RUNTIME` (None: the CLI); it has no default, so no caller decides where it runs by
    forgetting it.
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
    if runtime != CONTAINER:
        return None, (
            "the project's commands run as root, fixbot's own user, in a PID namespace of "
            "their own (the CLI: your code on your machine; run-as: USER names another user)"
        )
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


@contextmanager
def confine(
    root: Path, identity: Identity | None, state_dir: str, record_dir: Path | None = None
) -> Iterator[Identity | None]:
    """Make the work tree usable by `identity` and `.git` untouchable by it, for the block.

    First the owner, group and mode of every path of the work tree are written to
    `record_dir/ownership.json` (default: the state folder `root/state_dir`, root's alone), and a
    record left by a run that was killed is applied first. Then the files of the work tree (not
    `.git`, not the state folder's first component) become the identity's, so the check can
    write build outputs and fix commands can edit; `.git` and the state folder become root's and
    read-only to others; the root folder becomes root's with the sticky bit (mode 1777), so the
    identity can create files there but not rename or replace `.git`. A private HOME is created.
    On exit every recorded path gets its owner, group and mode back exactly, new files get the
    root folder's owner, and the record is deleted; after a `kill -9` the next `confine` (or
    `restore_recorded`) does it. Yields the identity with its `home` set; with None, does
    nothing. Raises `ConfigError` when the identity cannot reach the work tree.
    """
    if identity is None:
        yield None
        return
    _check_reachable(root)
    private = private_names(state_dir)
    record = (record_dir or root / state_dir) / OWNERSHIP_RECORD
    restore_recorded(root, record)
    _write_record(root, record)
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
        restore_recorded(root, record)
        shutil.rmtree(home, ignore_errors=True)


def _write_record(root: Path, record: Path) -> None:
    """Write `[relative path, uid, gid, mode]` of `root` and everything under it to `record`
    (atomically, mode 0600), so the owners survive a kill of fixbot."""
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (
            ["", *dirnames, *filenames] if dirpath == str(root) else [*dirnames, *filenames]
        ):
            path = os.path.join(dirpath, name) if name else dirpath
            info = os.lstat(path)
            rel = os.path.relpath(path, root)
            entries.append([rel, info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)])
    record.parent.mkdir(parents=True, exist_ok=True)
    partial = record.with_name(record.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(entries, handle)
    os.replace(partial, record)


def restore_recorded(root: Path, record: Path) -> bool:
    """Give every path of `root` named in `record` (see `confine`) its owner, group and mode
    back, and paths it does not name the root folder's recorded owner; delete the record.
    Returns False when there was no record. Never follows a symlink the commands planted."""
    try:
        entries = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    known: dict[str, tuple[int, int, int]] = {e[0]: (e[1], e[2], e[3]) for e in entries}
    owner = known.get(".", (0, 0, 0o755))
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (
            ["", *dirnames, *filenames] if dirpath == str(root) else [*dirnames, *filenames]
        ):
            path = os.path.join(dirpath, name) if name else dirpath
            uid, gid, mode = known.get(os.path.relpath(path, root), (owner[0], owner[1], -1))
            with suppress(FileNotFoundError):
                os.lchown(path, uid, gid)
                if mode >= 0 and not os.path.islink(path):
                    os.chmod(path, mode, follow_symlinks=False)
    record.unlink()
    return True


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


def namespace_argv(identity: Identity | None) -> tuple[str, ...]:
    """The argv prefix that runs a command in a PID namespace of its own as `identity` (None:
    fixbot's own user), or () when the kernel refuses one here (`sweep` is the fallback).

    As root without an identity: `unshare --pid --fork --kill-child --mount-proc`; otherwise
    the same in a user namespace mapping the user to itself (`--map-current-user`), which an
    unprivileged user may create where `user.max_user_namespaces` allows. The program is the
    trusted `unshare` (`fixbot.process.programs`). Probed once per user and cached; see
    unshare(1), pid_namespaces(7), user_namespaces(7).
    """
    if identity is not None and os.geteuid() == 0:
        dropped = _root_namespace_then_user(identity)
        if dropped:
            return dropped
    uid = None if identity is None else identity.uid
    gid = None if identity is None else identity.gid
    return _probe_namespace(uid, gid, os.geteuid())


def _root_namespace_then_user(identity: Identity) -> tuple[str, ...]:
    """As root: the PID namespace root may create, then `setpriv` to `identity` inside it (an
    unprivileged user may not create a user namespace inside a chroot or under Docker's seccomp
    profile, where root's own PID namespace may still be allowed); () when either is missing.
    `--pdeathsig keep` keeps `unshare --kill-child`'s signal across the change of user (the
    kernel clears it when the credentials change; setpriv(1))."""
    from fixbot.process import programs

    setpriv = programs.optional("setpriv")
    root = _probe_namespace(None, None, 0)
    if not root or setpriv is None:
        return ()
    drop = (f"--reuid={identity.uid}", f"--regid={identity.gid}", "--clear-groups")
    return (*root, setpriv, *drop, "--pdeathsig", "keep", "--")


NAMESPACE_PROBE = 'test "$$" = 1 && ! test -e /proc/2'  # the shell is the namespace's init


@cache
def _probe_namespace(uid: int | None, gid: int | None, euid: int) -> tuple[str, ...]:
    from fixbot.process import programs  # here: spawn -> sandbox stays a short import chain

    unshare = programs.optional("unshare")
    if unshare is None:
        return ()
    user = () if (uid is None and euid == 0) else ("--user", "--map-current-user")
    argv = (unshare, *user, "--pid", "--fork", "--kill-child", "--mount-proc")
    try:
        done = subprocess.run(
            [*argv, "/bin/sh", "-c", NAMESPACE_PROBE],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
            cwd="/",
            user=uid,
            group=gid,
            extra_groups=None if uid is None else [],
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    return argv if done.returncode == 0 else ()


def process_limit(identity: Identity | None, namespaced: bool) -> int | None:
    """`MAX_PROCESSES` where RLIMIT_NPROC counts only the commands' processes, else None.

    setrlimit(2): RLIMIT_NPROC counts the processes of the real uid (per user namespace since
    Linux 5.14) and is not enforced for root. So it bounds a fork loop when the commands run as
    the image's dedicated user or in a user namespace of their own; as root, or as a shared
    user without a namespace (the limit would count the user's unrelated processes), it is not
    set: docs/SECURITY.md names that gap. With an identity other than the dedicated user
    (`nobody`) the count includes that user's other processes; the bound is generous.
    """
    if identity is not None or (namespaced and os.geteuid() != 0):
        return MAX_PROCESSES
    return None


def set_process_limit(limit: int | None) -> None:
    """Lower RLIMIT_NPROC (soft and hard) to `limit` in this process (a pre-exec hook)."""
    if limit is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))


def new_mark() -> str:
    """A fresh marker for one command's processes (`MARK_VARIABLE`'s value)."""
    return secrets.token_hex(12)


def marked(mark: str, proc: Path = Path("/proc")) -> list[int]:
    """The pids whose initial environment (proc(5): /proc/PID/environ) holds `MARK_VARIABLE`
    set to `mark`, fixbot's own excluded."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with suppress(OSError):
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
    return found


SWEEP_ROUNDS = 50  # passes of `sweep` before it gives up on a process it cannot see die


def sweep(mark: str) -> int:
    """Freeze (SIGSTOP) then kill (SIGKILL) every process carrying `mark`, again and again until
    a pass finds none; return how many were signalled. Stopping first keeps a process that
    forks to change its pid from outrunning a single pass; processes without the marker (not
    started by this command: another run's, another user's) are never signalled. A process of
    the commands that erased its own environment is out of reach: the PID namespace is the
    control, this the fallback (docs/SECURITY.md)."""
    signalled = 0
    for _ in range(SWEEP_ROUNDS):
        pids = marked(mark)
        if not pids:
            return signalled
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                with suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
        signalled += len(pids)
        time.sleep(0.01)
    return signalled


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
