"""Two worlds: fixbot's own clone and state, and the workspace the project's commands run in.

**fixbot's world** is a private folder per repository (`private_folder`): mode 0700, owned by
fixbot's user, outside the workspace, created and checked without following a link. As root it
lives under `ROOT_BASE` (root's alone); as a normal user under `$XDG_STATE_HOME/fixbot` (default
`~/.local/state/fixbot`), keyed by the workspace's path, so a killed CLI run resumes. It holds
`repo/` (fixbot's clone F, with the state folder inside it), `home/` (the HOME and
XDG_CONFIG_HOME of fixbot's git) and `gitconfig` (its global configuration, written by fixbot).
F is made once, before any project command runs, by `git clone --no-local` from the workspace:
the clone goes through git-upload-pack, which git-upload-pack(1) ("SECURITY") documents as safe
to run against an untrusted repository: it runs no filter, hook or configured program of it.
Nothing of the workspace's `.git` (config, hooks, `commondir`, alternates, submodule gitdirs)
is read by any later git of fixbot's; its config's user.name and user.email are read as data
(`workspace_identity`), so fixbot commits as the workspace's own committer.

**The commands' world** is the workspace W (its files: `fixbot.process.sync`). Before each
project command `Worlds.to_workspace` makes W's tracked files equal to F's work tree (only what
differs, never following a link (`fixbot.process.nofollow`), replacing whatever the commands
planted at a tracked path); untracked files (node_modules, .venv, build output) stay. After a
fix command only, `Worlds.read_back` copies the regular files it changed back into F as bytes
(bounded, no links, no special files, no protected paths, nothing under `.git` or the state
folder). After a check nothing comes back.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from fixbot.core.errors import ConfigError, GitError
from fixbot.process import git
from fixbot.process.nofollow import Planted, parent, place
from fixbot.process.sync import Worlds

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
    folder: Path, identity: Mapping[str, str], trusted: tuple[Path, ...] = ()
) -> Path:
    """Write fixbot's global git configuration in `folder` (mode 0600) and return its path.

    It pins what git would otherwise read from HOME or the system: no fsmonitor, no `ext::`
    transport, empty attributes and excludes files; `identity` (user.name,
    user.email) is the committer when given. `trusted` are workspaces of another user that
    fixbot clones (`safe.directory`, git-config(1); git 2.35.2+ refuses them otherwise): only
    git-upload-pack reads them (`clone`), which runs nothing of the repository it serves."""
    # hooksPath stays on fixbot's command line (`git.SAFE_CONFIG`), not here: a push to a
    # remote on this machine starts its receive-pack with this file too, and the remote's own
    # hooks (a protected branch's pre-receive) must still run there
    lines = [
        "[core]",
        "\tfsmonitor = false",
        "\tattributesFile = /dev/null",
        "\texcludesFile = /dev/null",
        '[protocol "ext"]',
        "\tallow = never",
    ]
    for path in trusted:
        for name in (str(path), str(path / ".git")):
            if "\n" not in name and '"' not in name and "\\" not in name:
                lines += ["[safe]", f'\tdirectory = "{name}"']
    if identity:
        lines.append("[user]")
        lines += [
            f"\t{key} = {_quoted(value)}" for key, value in identity.items() if "\n" not in value
        ]
    path = folder / "gitconfig"
    partial = folder / f".gitconfig-{secrets.token_hex(6)}"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.replace(partial, path)
    return path


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
    (`git.pinned`)."""
    home = folder / "home"
    with git.pinned(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": str(folder / "gitconfig"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
        }
    ):
        yield


def clone(workspace: Path, dest: Path) -> tuple[str, str | None]:
    """Clone the repository of `workspace` into `dest` with `git clone --no-local` and check out
    the workspace's HEAD (its branch name when it is on one). Returns (sha, branch or None).

    Run inside `entered`. Only git-upload-pack reads the workspace's repository. Raises
    `GitError` when the workspace is not a repository with a commit.
    """
    advertised = git.run(Path("/"), "ls-remote", "--symref", "--", str(workspace), "HEAD")
    sha, branch = _head_of(advertised)
    if dest.exists():
        shutil.rmtree(dest)
    git.run(
        Path("/"),
        "clone",
        "--no-local",
        "--no-checkout",
        "--quiet",
        "--",
        str(workspace),
        str(dest),
    )
    git.run(dest, "config", "core.hooksPath", "/dev/null")
    if branch:
        git.run(dest, "checkout", "--quiet", "-B", branch, sha)
    else:
        git.run(dest, "checkout", "--quiet", "--detach", sha)
    return sha, branch


def _head_of(advertised: str) -> tuple[str, str | None]:
    branch, sha = None, ""
    for line in advertised.splitlines():
        if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
            branch = line.removeprefix("ref: refs/heads/").rsplit("\t", 1)[0]
        elif line.endswith("\tHEAD"):
            sha = line.split("\t", 1)[0]
    if not sha:
        raise GitError("the workspace's repository has no commit: commit something first")
    return sha, branch


def workspace_head(workspace: Path) -> str:
    """The sha of the workspace repository's HEAD, as git-upload-pack advertises it. Raises
    `GitError`."""
    advertised = git.run(Path("/"), "ls-remote", "--symref", "--", str(workspace), "HEAD")
    return _head_of(advertised)[0]


def workspace_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` holding a `.git` entry (found with lstat: no git
    runs in the workspace's repository), or None."""
    for folder in [path, *path.parents]:
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def clone_of(workspace: Path, env: Mapping[str, str]) -> Path:
    """fixbot's clone of `workspace` (made by a run), or `workspace` itself when there is none:
    where the publish step reads, diffs and pushes."""
    fixbot = state_base(os.geteuid(), env) / repo_key(workspace) / REPO
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


def own_folder(fixbot: Path, state_dir: str) -> None:
    """Make the state folder's first component in F fixbot's own folder: a link (or file) the
    repository commits at that name is removed from F's work tree, never followed."""
    name = Path(state_dir).parts[0]
    top = fixbot / name
    if top.is_symlink() or (top.exists() and not top.is_dir()):
        top.unlink()
        # the repository's entry stays in its commits; fixbot's clone just never checks it out
        git.run(fixbot, "update-index", "--skip-worktree", "--", name, check=False)
    (fixbot / state_dir).mkdir(parents=True, exist_ok=True)


def origin_url(workspace: Path) -> str | None:
    """The workspace's `remote.origin.url`, read from its `.git/config` as a file (no git runs
    the workspace's repository), when it is an http(s) or ssh URL or a local folder or `file://`
    URL (never a
    transport that runs a program, such as `ext::`); None otherwise."""
    config = workspace / ".git" / "config"
    try:
        url = git.run(Path("/"), "config", "--file", str(config), "--get", "remote.origin.url")
    except GitError:
        return None
    return (
        url if url.startswith(("https://", "http://", "ssh://", "git@", "/", "file://")) else None
    )


def deliver(pair: Worlds) -> None:
    """Hand the run's result to the workspace: its tracked files become F's final tree and, when
    the workspace's repository belongs to fixbot's own user (the CLI), its branch moves to F's
    HEAD (fetched from F) when it is still where the run started. A workspace of another user
    (the image, sudo) gets the files only: no git of fixbot's runs in its repository.
    Raises GitError and OSError."""
    folder = pair.workspace.lstat()
    if os.geteuid() == 0:  # the commands' run is over: files go to the workspace's owner
        pair.owner = (folder.st_uid, folder.st_gid)
    pair.to_workspace()
    if folder.st_uid != os.geteuid():
        return
    try:
        start = workspace_head(pair.workspace)
    except GitError:
        return  # the commands broke the workspace's repository: it gets the files only
    git.exclude_path(pair.workspace, f"/{pair.state_dir.strip('/')}/")  # the report's copy
    head = git.head_sha(pair.fixbot)
    ahead = git.completed(pair.fixbot, "merge-base", "--is-ancestor", start, head)
    if head == start or ahead.returncode != 0:
        return
    branch = git.current_branch(pair.fixbot)
    wanted = f"refs/heads/{branch}" if branch else "HEAD"
    symref = git.run(pair.workspace, "symbolic-ref", "-q", "HEAD", check=False) or "HEAD"
    if symref != wanted:
        return
    git.run(
        pair.workspace,
        "fetch",
        "--no-tags",
        "--quiet",
        "--",
        str(pair.fixbot),
        "+HEAD:refs/fixbot/last-run",
    )
    git.run(pair.workspace, "update-ref", "-m", "fixbot: the run's commits", wanted, head, start)
    git.run(pair.workspace, "read-tree", "HEAD")


MIRROR_BYTES = 200 * 1024 * 1024  # the logs copied into the workspace, at most (bytes)


def mirror_logs(pair: Worlds, state_dir: str, limit: int = MIRROR_BYTES) -> None:
    """Copy the regular files under F's `<state_dir>/attempts/` (every check, set-up and fix
    command log the report and the commit message name) to the same places in the workspace,
    like `mirror_report`: each written without following a link, none read back; files past
    `limit` bytes in all are left in F (the report's paths still name them there)."""
    top = pair.fixbot / state_dir / "attempts"
    spent = 0
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            source = Path(root) / name
            info = source.lstat()
            if not stat.S_ISREG(info.st_mode) or spent + info.st_size > limit:
                continue
            spent += info.st_size
            mirror_report(pair, state_dir, source.relative_to(pair.fixbot / state_dir).as_posix())


def mirror_report(pair: Worlds, state_dir: str, name: str = "report.md") -> None:
    """Copy F's `<state_dir>/<name>` to the same place in the workspace, where users look for
    it: written without following a link (a link the repository commits at the state folder's
    name is left alone, and nothing is written), never read back."""
    source = pair.fixbot / state_dir / name
    if not source.is_file():
        return
    rel = f"{state_dir.strip('/')}/{name}"
    try:
        with parent(pair.workspace, rel, create=False):
            pass
    except Planted:
        return
    except FileNotFoundError:
        pass
    place(pair.workspace, rel, source.read_bytes(), 0o644, pair.owner)
