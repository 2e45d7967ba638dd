"""Two worlds: fixbot's own clone and state, and the workspace the project's commands run in.

**fixbot's world** is a private folder per repository (`private_folder`): mode 0700, owned by
fixbot's user, outside the workspace, created and checked without following a link. As root it
lives under `ROOT_BASE` (root's alone); as a normal user under `$XDG_STATE_HOME/fixbot` (default
`~/.local/state/fixbot`), keyed by the workspace's path, so a killed CLI run resumes. It holds
`repo/` (fixbot's clone F, with the state folder inside it), `home/` (the HOME and
XDG_CONFIG_HOME of fixbot's git) and `gitconfig` (its global configuration, written by fixbot).
F is made once, before any project command runs, by `git clone --no-local` from the workspace
(`fixbot.process.cloning`): the clone goes through git-upload-pack, which git-upload-pack(1)
("SECURITY") documents as safe to run against an untrusted repository: it runs no filter, hook
or configured program of it.
A run's F starts with no file written (`clone(files=False)`): a green run never needs them,
and on a large repository writing them cost more than the rest of the run; `sync.Worlds`
writes them where a run first does (`Worlds.write_files`).
Nothing of the workspace's `.git` (config, hooks, `commondir`, alternates, submodule gitdirs)
is read by any later git of fixbot's; its config's user.name and user.email are read as data
(`workspace_identity`), so fixbot commits as the workspace's own committer. This module is the
first phase: the private folder, fixbot's git configuration and the committer, the block its
git runs in (`entered`), and where F is (`clone_path`).

**The commands' world** is the workspace W (its files: `fixbot.process.sync`). Before each
project command `Worlds.to_workspace` makes W's tracked files equal to F's work tree (only what
differs, never following a link (`fixbot.process.nofollow`), replacing whatever the commands
planted at a tracked path; while F's work tree is unwritten, W holding every blob of F's index
is equal to it); untracked files (node_modules, .venv, build output) stay. After a
fix command only, `Worlds.read_back` copies the regular files it changed back into F as bytes
(bounded, no links, no special files, no protected paths, nothing under `.git` or the state
folder). After a check nothing comes back. At the end the workspace gets F's final tree
(`fixbot.process.handover`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from fixbot.core.errors import ConfigError
from fixbot.process import git

# `clone` is fixbot's clone made (`fixbot.process.cloning`); named here, where its many callers
# (the engine, the Action, the tests' worlds) find the rest of fixbot's world
from fixbot.process.cloning import clone as clone

ROOT_BASE = Path("/var/lib/fixbot")  # fixbot's worlds when it runs as root (root-only)
PRIVATE_MODE = 0o700
REPO = "repo"  # F, inside the private folder


def state_base(euid: int, env: Mapping[str, str]) -> Path:
    """Where fixbot's private folders live: `ROOT_BASE` as root, else `$XDG_STATE_HOME/fixbot`
    (an absolute XDG_STATE_HOME only, per the XDG Base Directory specification) or
    `~/.local/state/fixbot`."""
    if euid == 0:
        return ROOT_BASE
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "fixbot"
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".local" / "state" / "fixbot"


def repo_key(workspace: Path) -> str:
    """A folder name for the workspace: its last component and the sha256 of its real path."""
    real = os.path.realpath(workspace)
    digest = hashlib.sha256(real.encode()).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:40]
    return f"{name or 'root'}-{digest}"


def private_folder(workspace: Path, base: Path) -> Path:
    """Create (or find) fixbot's private folder for `workspace` under `base`; return it.

    Every component from `base` down is created with mode 0700 and checked with lstat: a real
    folder (not a link) owned by fixbot's user, open to no one else. Raises `ConfigError` naming
    the folder otherwise (someone else planted it: remove it, or run as its owner).
    """
    base.parent.mkdir(parents=True, exist_ok=True)
    folder = base / repo_key(workspace)
    for path in (base, folder):
        with suppress(FileExistsError):
            os.mkdir(path, PRIVATE_MODE)
        _check_private(path)
    for name in ("home", "home/.config"):
        with suppress(FileExistsError):
            os.mkdir(folder / name, PRIVATE_MODE)
    return folder


def _check_private(path: Path) -> None:
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise ConfigError(
            [
                f"{path} is not a folder of fixbot's own user (a link or another user's): "
                "fixbot keeps its clone and state there; remove it and run again"
            ]
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, PRIVATE_MODE, follow_symlinks=False)


def write_gitconfig(
    folder: Path,
    identity: Mapping[str, str],
    trusted: tuple[Path, ...] = (),
    protocols: tuple[str, ...] = ("https",),
) -> Path:
    """Write fixbot's global git configuration in `folder` (mode 0600) and return its path.

    It pins what git would otherwise read from HOME or the system: no fsmonitor, no `ext::`
    transport, empty attributes and excludes files; `identity` (user.name,
    user.email) is the committer when given. Only `protocols` (git's transports: `https`, the
    scheme of the Action's `GITHUB_SERVER_URL`) are allowed (`protocol.allow = never`,
    git-config(1)): no `file://` or local path, `ext::` or `git://` remote, whatever a
    configuration names; the clone from the workspace allows `file` on its own command line.
    `trusted` are workspaces of another user that fixbot clones (`safe.directory`,
    git-config(1); git 2.35.2+ refuses them otherwise): only git-upload-pack reads them
    (`clone`), which runs nothing of the repository it serves."""
    # hooksPath stays on fixbot's command line (`git.SAFE_CONFIG`), not here: a push to a
    # remote on this machine starts its receive-pack with this file too, and the remote's own
    # hooks (a protected branch's pre-receive) must still run there
    lines = [
        "[core]",
        "\tfsmonitor = false",
        "\tattributesFile = /dev/null",
        "\texcludesFile = /dev/null",
        "[protocol]",
        "\tallow = never",
        '[protocol "ext"]',
        "\tallow = never",
    ]
    lines += _protocol_lines(protocols) + _safe_lines(trusted) + _user_lines(identity)
    path = folder / "gitconfig"
    partial = folder / f".gitconfig-{secrets.token_hex(6)}"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.replace(partial, path)
    return path


def _protocol_lines(protocols: tuple[str, ...]) -> list[str]:
    """`protocol.<name>.allow = always` for each alphanumeric name of `protocols`."""
    lines: list[str] = []
    for name in protocols:
        if name.isalnum():
            lines += [f'[protocol "{name}"]', "\tallow = always"]
    return lines


def _safe_lines(trusted: tuple[Path, ...]) -> list[str]:
    """`safe.directory` for each of `trusted` and its `.git`, skipping a name that a newline,
    a quote or a backslash would break out of its quotes."""
    lines: list[str] = []
    for path in trusted:
        for name in (str(path), str(path / ".git")):
            if "\n" not in name and '"' not in name and "\\" not in name:
                lines += ["[safe]", f'\tdirectory = "{name}"']
    return lines


def _user_lines(identity: Mapping[str, str]) -> list[str]:
    """The `[user]` section for `identity`, a value with a newline left out; none when empty."""
    if not identity:
        return []
    return ["[user]"] + [
        f"\t{key} = {_quoted(value)}" for key, value in identity.items() if "\n" not in value
    ]


def _quoted(value: str) -> str:
    """`value` as one git-config value (git-config(1) "Syntax"): in double quotes, with `\\`
    and `"` escaped, so a `;`, `#` or quote in a name is text, not a comment or a broken file."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ambient_identity() -> dict[str, str]:
    """user.name and user.email of the user's own git configuration (read, never executed), so
    the CLI commits as its user; {} when unset."""
    found = {}
    for key in ("name", "email"):
        value = git.run(Path("/"), "config", "--global", "--get", f"user.{key}", check=False)
        if value:
            found[key] = value
    return found


CONFIG_BYTES = 1 << 20  # a workspace's .git/config larger than this is not read (bytes)


def workspace_identity(workspace: Path) -> dict[str, str]:
    """user.name and user.email of the workspace's own `.git/config`, read as data: the file
    is opened by fixbot without following a link (`.git` must be a folder of its own, so a
    linked worktree or submodule answers {}), at most `CONFIG_BYTES`, and handed to `git config
    --file - --no-includes` on its standard input, which parses it and runs nothing (no include
    is followed, no program of the file's is started). {} when unset or unreadable."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        folder = os.open(workspace / ".git", flags | os.O_DIRECTORY)
        try:
            fd = os.open("config", flags | os.O_NONBLOCK, dir_fd=folder)
        finally:
            os.close(folder)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return {}
            text = handle.read(CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return {}
    done = git.completed(
        Path("/"),
        *("config", "--file", "-", "--no-includes", "-z"),
        *("--get-regexp", r"^user\.(name|email)$"),
        stdin=text,
    )
    found = {}
    for entry in done.stdout.split("\0") if done.returncode == 0 else []:
        key, _, value = entry.partition("\n")
        if key in ("user.name", "user.email") and value and "\n" not in value:
            found[key.removeprefix("user.")] = value
    return found


def identity_of(workspace: Path) -> dict[str, str]:
    """The committer fixbot's commits carry, as git would choose it in the workspace: its own
    `.git/config` first (`workspace_identity`), then the user's global configuration."""
    return ambient_identity() | workspace_identity(workspace)


@contextmanager
def entered(folder: Path) -> Iterator[None]:
    """Run every git of fixbot's in the block with the private folder's configuration:
    GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL, HOME and XDG_CONFIG_HOME inside `folder`
    (`git.pinned`), and no system attributes file (GIT_ATTR_NOSYSTEM, gitattributes(5)), as
    `core.attributesFile` names none: only the repository's attributes convert a checkout
    (`Worlds.differing` asks for them)."""
    home = folder / "home"
    with git.pinned(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": str(folder / "gitconfig"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
        }
    ):
        yield


def clone_path(workspace: Path, base: Path) -> Path:
    """Where fixbot's clone of `workspace` is, or will be, under the state base `base`
    (`state_base`): `private_folder`'s folder, then `REPO`. The one place the path is made."""
    return base / repo_key(workspace) / REPO


def clone_of(workspace: Path, env: Mapping[str, str]) -> Path:
    """fixbot's clone of `workspace` (made by a run), or `workspace` itself when there is none
    (the bench and tests read a finished run's clone; the Action's context refuses instead)."""
    fixbot = clone_path(workspace, state_base(os.geteuid(), env))
    return fixbot if (fixbot / ".git").is_dir() else workspace


@contextmanager
def entered_for(workspace: Path, env: Mapping[str, str]) -> Iterator[None]:
    """`entered` for the private folder of `workspace`'s clone (`clone_of`); nothing when no
    run made one."""
    fixbot = clone_of(workspace, env)
    if fixbot == workspace:
        yield
        return
    with entered(fixbot.parent):
        yield
