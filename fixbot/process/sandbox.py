"""The boundary around the project's commands: who runs them, and what they cannot outlive.

The check, the set-up, the fix commands and the research tool's interpreter run the repository's
code. Two decisions, made here and nowhere else:

**Who.** In fixbot's container image (`fixbot.process.installation`, where fixbot is root) the
commands run as an unprivileged user:
`fixbot` (uid 1001, created in the image), else `nobody`. That user cannot read root's
processes (proc(5): `/proc/<pid>/environ` passes a ptrace "read" access check a different,
unprivileged uid fails), cannot reach fixbot's private folder (its clone and state,
`fixbot.process.worlds`), and gets its own HOME; the workspace is handed to it for the run
(`handed_over`). Everywhere else (the
CLI, as root on someone's own machine too; the runner mode) the commands run as fixbot's own
user unless `run-as` names another: it is the user's own code on the user's own machine, a
pyenv Python under `/root` and a mode-700 checkout just work, and the secrets are kept out of
the commands' environment and out of fixbot's own (the entry point, `fixbot.cli`, re-executes
fixbot with them moved into a pipe). docs/SECURITY.md states
the trade-off.

**What they see.** Where fixbot is root and the commands run as another user, root hides the
users' homes in their namespace before the change of user, showing back the workspace, their
HOME, PATH and tool chains (`fixbot.process.homes`): the runner's HOME around the workspace is
not theirs to read, whatever it holds.

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
from fixbot.process import homes, installation
from fixbot.process.homes import Cover

AUTO = "auto"
SELF = "self"
CANDIDATES = ("fixbot", "nobody")  # the image's user (uid 1001), then the classic fallback
CONTAINER = installation.CONTAINER  # fixbot's image: an installation fact, never a variable
MARK_VARIABLE = "FIXBOT_COMMAND_MARK"  # carried by every process of one command (see `sweep`)
MAX_PROCESSES = 2048  # RLIMIT_NPROC of the commands where the kernel counts only theirs


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
    first of `CANDIDATES` that exists; the runner mode made root by its own passwordless sudo,
    `installation.split()`: `RUNNER_USER`, created once; anywhere else, the runner mode started
    as root and the CLI as root included, fixbot's own user), `self` (fixbot's own user,
    whatever it is) or a user name (root only). `runtime` is
    `fixbot.process.installation.runtime()` (None: the CLI); it has no default, so no caller
    decides where it runs by forgetting it.
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
    if runtime == installation.RUNNER and installation.split():
        user = runner_user(lookup)
        return user, f"the project's commands run as the unprivileged user {user.name}"
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


def shares_uid(runtime: str | None, euid: int | None = None) -> bool:
    """True where fixbot and the project's commands share a uid by necessity: the runner mode
    (`runtime` RUNNER) as a user who is not root (the runner mode becomes root through
    passwordless sudo where it can: `fixbot.cli`). The CLI is the user's own code on the user's
    own machine; the image is root with an unprivileged user."""
    return runtime == installation.RUNNER and (os.geteuid() if euid is None else euid) != 0


RUNNER_USER = "fixbot-commands"  # the runner mode's user for the commands (created once)
NO_LOGIN = ("--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin")


def runner_user(lookup: Lookup = pwd.getpwnam) -> Identity:
    """The runner mode's user for the project's commands when fixbot is root (through
    passwordless sudo): `RUNNER_USER`, created once as a system user with a group of its own,
    no home and no login shell (useradd(8)). It shares no uid with the runner's user, whose
    HOME, git configuration and processes (the token's) it can then neither read nor write.
    Raises `ConfigError` when it cannot be created."""
    found = _lookup(RUNNER_USER, lookup, strict=False)
    if found is not None:
        return found
    from fixbot.process import programs

    useradd = programs.root_program("useradd")
    if useradd is None:
        raise ConfigError([f"no useradd to create the user {RUNNER_USER}: set run-as: USER"])
    made = subprocess.run(
        [useradd, "--system", "--user-group", "--no-create-home", *NO_LOGIN, RUNNER_USER],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = _lookup(RUNNER_USER, lookup, strict=False)
    if found is None:
        raise ConfigError(
            [f"could not create the user {RUNNER_USER} ({made.stderr.strip()}): set run-as: USER"]
        )
    return found


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
def handed_over(workspace: Path, identity: Identity | None) -> Iterator[Identity | None]:
    """Give the workspace (its `.git` too: it is the commands' copy, fixbot's git never reads it)
    to `identity` for the block, with a private HOME of its own; give every path back to the
    workspace folder's owner on exit. Yields the identity with its `home` set; with None, does
    nothing. No record is kept or read: after a `kill -9` the workspace simply stays the
    commands' user's, which fixbot never trusts. Raises `ConfigError` when the identity cannot
    reach the workspace."""
    if identity is None:
        yield None
        return
    _check_reachable(workspace)
    owner = workspace.lstat()
    home = Path(tempfile.mkdtemp(prefix="fixbot-home-"))
    os.chown(home, identity.uid, identity.gid)
    try:
        claim(workspace, identity)
        yield Identity(identity.uid, identity.gid, identity.name, str(home))
    finally:
        claim(workspace, Identity(owner.st_uid, owner.st_gid, "owner"))
        shutil.rmtree(home, ignore_errors=True)


def claim(root: Path, identity: Identity, private: tuple[str, ...] = ()) -> None:
    """Give the identity `root` and every path under it (links themselves, never followed),
    except the `private` top-level names."""
    os.lchown(root, identity.uid, identity.gid)
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == root:
            dirnames[:] = [d for d in dirnames if d not in private]
            filenames = [f for f in filenames if f not in private]
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            if (info.st_uid, info.st_gid) != (identity.uid, identity.gid):
                os.lchown(path, identity.uid, identity.gid)


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


def namespace_argv(identity: Identity | None, cover: Cover | None = None) -> tuple[str, ...]:
    """The argv prefix that runs a command in a PID namespace of its own as `identity` (None:
    fixbot's own user), or () when the kernel refuses one here (`sweep` is the fallback).
    As root with an identity, the namespace also hides the users' homes as `cover` says
    (`fixbot.process.homes`; None: nothing hidden).

    As root without an identity: `unshare --pid --fork --kill-child --mount-proc`; otherwise
    the same in a user namespace mapping the user to itself (`--map-current-user`), which an
    unprivileged user may create where `user.max_user_namespaces` allows. The program is the
    trusted `unshare` (`fixbot.process.programs`). Probed once per user and cached; see
    unshare(1), pid_namespaces(7), user_namespaces(7).
    """
    if identity is not None and os.geteuid() == 0:
        dropped = _root_namespace_then_user(identity, cover)
        if dropped:
            return dropped
    uid = None if identity is None else identity.uid
    gid = None if identity is None else identity.gid
    return _probe_namespace(uid, gid, os.geteuid())


def _root_namespace_then_user(identity: Identity, cover: Cover | None) -> tuple[str, ...]:
    """As root: the PID namespace root may create, then `setpriv` to `identity` inside it (an
    unprivileged user may not create a user namespace inside a chroot or under Docker's seccomp
    profile, where root's own PID namespace may still be allowed); () when either is missing.
    Between the two, still as root, `cover`'s view of the homes (`homes.argv`; where root may
    not mount, none: `hides_homes` tells, and the Action falls back to `exposure`).
    `--pdeathsig keep` keeps `unshare --kill-child`'s signal across the change of user (the
    kernel clears it when the credentials change; setpriv(1))."""
    from fixbot.process import programs

    setpriv = programs.optional("setpriv")
    root = _probe_namespace(None, None, 0)
    if not root or setpriv is None:
        return ()
    drop = (f"--reuid={identity.uid}", f"--regid={identity.gid}", "--clear-groups")
    view = homes.argv(cover, root) if cover is not None else ()
    return (*root, *view, setpriv, *drop, "--pdeathsig", "keep", "--")


def hides_homes() -> bool:
    """True when, as root here, the commands of another user run where the users' homes are
    hidden (`fixbot.process.homes`): root's PID namespace, `setpriv`, and mounts inside it."""
    from fixbot.process import programs

    if os.geteuid() != 0 or programs.optional("setpriv") is None:
        return False
    return homes.works(_probe_namespace(None, None, 0))


def homes_note() -> str:
    """What the commands of another user see of the users' homes here, for the log."""
    if hides_homes():
        return "the users' homes are hidden from them (the workspace, PATH and tool chains shown)"
    return (
        "root cannot hide the users' homes from them here (no mount namespace): they read "
        "what others may read there"
    )


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
