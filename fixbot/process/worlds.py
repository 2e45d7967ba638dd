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
A run's F starts with no file written (`clone(files=False)`): a green run never needs them,
and on a large repository writing them cost more than the rest of the run; `sync.Worlds`
writes them where a run first does (`Worlds.write_files`).
Nothing of the workspace's `.git` (config, hooks, `commondir`, alternates, submodule gitdirs)
is read by any later git of fixbot's; its config's user.name and user.email are read as data
(`workspace_identity`), so fixbot commits as the workspace's own committer.

**The commands' world** is the workspace W (its files: `fixbot.process.sync`). Before each
project command `Worlds.to_workspace` makes W's tracked files equal to F's work tree (only what
differs, never following a link (`fixbot.process.nofollow`), replacing whatever the commands
planted at a tracked path; while F's work tree is unwritten, W holding every blob of F's index
is equal to it); untracked files (node_modules, .venv, build output) stay. After a
fix command only, `Worlds.read_back` copies the regular files it changed back into F as bytes
(bounded, no links, no special files, no protected paths, nothing under `.git` or the state
folder). After a check nothing comes back.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from fixbot.core.errors import ConfigError, GitError
from fixbot.process import git
from fixbot.process.index import clone_unwritten
from fixbot.process.launcher import Launcher
from fixbot.process.nofollow import Planted, parent, place
from fixbot.process.sync import Worlds

# The one place fixbot's git reads a local repository: the workspace, through git-upload-pack
# (`clone`, `workspace_head`); fixbot's configuration allows no `file` transport otherwise.
LOCAL = ("-c", "protocol.file.allow=always")
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


def clone(workspace: Path, dest: Path, *, files: bool = True) -> tuple[str, str | None]:
    """Clone the repository of `workspace` into `dest` with `git clone --no-local` and check out
    the workspace's HEAD (its branch name when it is on one). Returns (sha, branch or None).
    Without `files` no file is written: HEAD and the index are the workspace's HEAD, the work
    tree is left unwritten (`index.clone_unwritten`; `sync.Worlds.write_files` writes it where a
    run needs it).

    Run inside `entered`. Only git-upload-pack reads the workspace's repository, and only one
    that is the workspace's own (`own_repository`: a gitfile, `commondir` or alternates naming
    another user's repository, a root-only one read as root, is refused). Raises `GitError`
    when the workspace is not a repository with a commit, or not its own.
    """
    own_repository(workspace)
    advertised = git.run(Path("/"), *LOCAL, "ls-remote", "--symref", "--", str(workspace), "HEAD")
    sha, branch = _head_of(advertised)
    # made under another name and renamed into place once whole: a run killed in between
    # leaves no clone at `dest` that the next one would reuse as written (its HEAD is the
    # workspace's) with no index, no file and no marker, comparing and syncing nothing
    partial = dest.with_name(f"{dest.name}.partial")
    if os.path.lexists(partial):
        shutil.rmtree(partial)
    git.run(
        Path("/"),
        *LOCAL,
        "clone",
        "--no-local",
        "--no-checkout",
        "--quiet",
        "--",
        str(workspace),
        str(partial),
    )
    _complete(partial, sha, branch, files)
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    os.rename(partial, dest)
    return sha, branch


def _complete(dest: Path, sha: str, branch: str | None, files: bool) -> None:
    """`clone`'s fresh clone `dest` at `sha` on `branch` (detached when None): hooks off, its
    files checked out, or its work tree left unwritten without `files`. Raises `GitError`."""
    git.run(dest, "config", "core.hooksPath", "/dev/null")
    if files and branch:
        git.run(dest, "checkout", "--quiet", "-B", branch, sha)
    elif files:
        git.run(dest, "checkout", "--quiet", "--detach", sha)
    elif branch:  # `checkout -B`'s refs, without its files
        git.run(dest, "update-ref", f"refs/heads/{branch}", sha)
        git.run(dest, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    else:
        git.run(dest, "update-ref", "--no-deref", "HEAD", sha)
    if not files:
        clone_unwritten(dest)


def own_repository(workspace: Path) -> None:
    """Raise `GitError` unless the repository of `workspace` is its own: `.git` is not a link;
    the folder a `.git` file names (`gitdir:`), the one its `commondir` names and every
    `objects/info/alternates` entry, alternates of alternates too (git follows them
    `ALTERNATE_DEPTH` deep), belong to the workspace folder's owner, and none of them holds a
    link (git writes none there; `objects` or `refs` linked into another repository would be
    read through it). Whoever could write the workspace before fixbot ran (an earlier step of
    the job, as the runner's user) could point them at a repository only root may read, which
    fixbot's clone, made as root, would then hand to the project's commands and the model."""
    owner = workspace.lstat().st_uid
    for folder in _with_alternates(_repository_folders(workspace)):
        try:
            if folder.stat().st_uid != owner:
                raise GitError(
                    f"the workspace's repository names {folder}, which is not the workspace "
                    "owner's: fixbot clones only a repository of the workspace's own"
                )
        except FileNotFoundError:
            continue
        _refuse_links(folder)


def _repository_folders(workspace: Path) -> list[Path]:
    """The git folder of `workspace` (`.git`, or the folder a `.git` file names) and the one
    its `commondir` names. Raises `GitError` when `.git` is a link, OSError when absent."""
    dot = workspace / ".git"
    info = dot.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise GitError(f"{dot} is a link: fixbot clones only a repository of the workspace's own")
    gitdir = dot
    if stat.S_ISREG(info.st_mode):
        text = dot.read_bytes()[:4096].decode(errors="replace").strip()
        gitdir = workspace / text.removeprefix("gitdir:").strip()
    folders = [gitdir]
    with suppress(OSError):
        common = (gitdir / "commondir").read_bytes()[:4096].decode(errors="replace").strip()
        folders.append(gitdir / common)
    return folders


def _with_alternates(folders: list[Path]) -> list[Path]:
    """`folders` and the object folders their `objects/info/alternates` name, alternates of
    alternates too, `ALTERNATE_DEPTH` deep."""
    folders = list(folders)
    objects = [folder / "objects" for folder in folders]
    for depth in range(ALTERNATE_DEPTH + 1):
        found = [alternate for folder in objects for alternate in _alternates(folder)]
        if depth and not found:
            break
        folders += found
        objects = found
    return folders


def _alternates(objects: Path) -> list[Path]:
    """The folders `objects/info/alternates` names (none when it cannot be read)."""
    found = []
    with suppress(OSError):
        lines = (objects / "info" / "alternates").read_bytes()[:65536]
        for line in lines.decode(errors="replace").splitlines():
            if line.strip() and not line.startswith("#"):
                found.append(objects / line.strip())
    return found


ALTERNATE_DEPTH = 5  # git's own limit on alternates of alternates (object-file.c)


def _refuse_links(folder: Path) -> None:
    """Raise `GitError` when a link is anywhere under `folder` (walked without following one)."""
    for top, dirs, files in os.walk(folder, followlinks=False):
        for name in (*dirs, *files):
            if os.path.islink(os.path.join(top, name)):
                raise GitError(
                    f"the workspace's repository holds a link, {os.path.join(top, name)}: "
                    "fixbot clones only a repository of the workspace's own, without links"
                )


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
    advertised = git.run(Path("/"), *LOCAL, "ls-remote", "--symref", "--", str(workspace), "HEAD")
    return _head_of(advertised)[0]


def workspace_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` holding a `.git` entry (found with lstat: no git
    runs in the workspace's repository), or None."""
    for folder in [path, *path.parents]:
        if os.path.lexists(folder / ".git"):
            return folder
    return None


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


# The hand-over's git, run by the commands' shell in the workspace (positional parameters: the
# ref to move, the sha it must still hold, the new sha, fixbot's clone, the exclude pattern).
# Exit 3: the workspace moved meanwhile; its branch stays.
# The state folder's copy (the report, the logs it names) left out of the workspace's status:
# `$1` is the pattern, added to the repository's own info/exclude once.
EXCLUDE = (
    "set -e\n"
    'x=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$x")" && '
    '{ grep -qxF -e "$1" "$x" 2>/dev/null || printf "%s\\n" "$1" >> "$x"; }\n'
)
HAND_OVER = (
    "set -e\n"
    'test "$(git symbolic-ref -q HEAD || echo HEAD)" = "$1" || exit 3\n'
    'test "$(git rev-parse -q --verify HEAD)" = "$2" || exit 3\n'
    'x=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$x")" && '
    '{ grep -qxF -e "$5" "$x" 2>/dev/null || printf "%s\\n" "$5" >> "$x"; }\n'
    'git fetch --no-tags --quiet -- "$4" "+HEAD:refs/fixbot/last-run"\n'
    'git update-ref -m "fixbot: the run\'s commits" "$1" "$3" "$2"\n'
    "git read-tree HEAD\n"
)


def deliver(pair: Worlds, hand_over: Launcher | None) -> str | None:
    """Hand the run's result to the workspace: its tracked files become F's final tree and, when
    the workspace's repository belongs to fixbot's own user (the CLI), its branch moves to F's
    HEAD when it is still where the run started. Returns a note for the user, or None.

    No git of fixbot's runs in the workspace's repository: whatever its `.git/config` or hooks
    run (`core.gitProxy`, `url.*.insteadOf`, `core.fsmonitor`, a `reference-transaction`
    hook) must run with the rights the project's code already had. So the branch is moved by
    `HAND_OVER` run through `hand_over`, the launcher of the project's commands (their user,
    their PID namespace, their environment without secrets), which fetches from F. Without one
    (the commands run as another user than fixbot, `run-as`, who cannot read F) the workspace
    gets the files only and the note says how to move the branch. A workspace of another user
    (the image, sudo) gets the files only. Raises GitError and OSError."""
    folder = pair.workspace.lstat()
    if os.geteuid() == 0:  # the commands' run is over: files go to the workspace's owner
        pair.owner = (folder.st_uid, folder.st_gid)
    pair.to_workspace()
    if folder.st_uid != os.geteuid():
        return None
    try:
        start = workspace_head(pair.workspace)
    except GitError:
        return None  # the commands broke the workspace's repository: it gets the files only
    exclude = f"/{pair.state_dir.strip('/')}/"  # the report's copy
    head = git.head_sha(pair.fixbot)
    ahead = git.completed(pair.fixbot, "merge-base", "--is-ancestor", start, head)
    if head == start or ahead.returncode != 0:
        if hand_over is not None:  # no commit to hand over: the report's copy still left out
            _in_commands_world(hand_over, pair, EXCLUDE, [exclude])
        return None
    branch = git.current_branch(pair.fixbot)
    wanted = f"refs/heads/{branch}" if branch else "HEAD"
    if hand_over is None:
        return (
            f"the workspace got the fixed files; its branch was not moved (fixbot runs no git "
            f"in your repository as another user than its commands'): to take fixbot's "
            f"commits, run `git fetch {pair.fixbot} HEAD && git merge --ff-only FETCH_HEAD` "
            f"in {pair.workspace}"
        )
    words = [wanted, start, head, str(pair.fixbot), exclude]
    code, log = _in_commands_world(hand_over, pair, HAND_OVER, words)
    if code not in (0, 3):
        return f"moving the workspace's branch to fixbot's commits failed: {log.strip()}"
    return None


def _in_commands_world(
    hand_over: Launcher, pair: Worlds, script: str, words: list[str]
) -> tuple[int | None, str]:
    """Run the shell `script` with `words` in the workspace through `hand_over` (the commands'
    launcher); its exit code and the last 2,000 characters of its log."""
    command = f"sh -c {shlex.quote(script)} fixbot-hand-over {shlex.join(words)}"
    with tempfile.TemporaryDirectory(prefix="fixbot-hand-over-") as tmp:
        done = hand_over.run(command, pair.workspace, Path(tmp) / "log", 120)
        log = (Path(tmp) / "log").read_text(encoding="utf-8", errors="replace")[-2000:]
    return done.exit_code, log


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
