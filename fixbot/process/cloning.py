"""fixbot's clone F made from the workspace (`clone`): by `git clone --no-local`, so only
git-upload-pack reads the workspace's repository (git-upload-pack(1), "SECURITY": it runs no
filter, hook or configured program of the repository it serves), and only a repository of the
workspace's own (`own_repository`: no link, no gitfile, `commondir` or alternate naming another
user's). Made under `<dest>.partial` and renamed into place once whole; its work tree written,
or left unwritten (`fixbot.process.index.clone_unwritten`). The workspace's HEAD is asked of
git-upload-pack too (`workspace_head`), its root found by lstat (`workspace_root`), and the
state folder's name in F made fixbot's own folder (`own_folder`).

Run inside `fixbot.process.worlds.entered` (fixbot's git configuration, its private folder).
"""

from __future__ import annotations

import os
import shutil
import stat
from contextlib import suppress
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.process import git
from fixbot.process.index import clone_unwritten

# The one place fixbot's git reads a local repository: the workspace, through git-upload-pack
# (`clone`, `workspace_head`); fixbot's configuration allows no `file` transport otherwise.
LOCAL = ("-c", "protocol.file.allow=always")


def clone(workspace: Path, dest: Path, *, files: bool = True) -> tuple[str, str | None]:
    """Clone the repository of `workspace` into `dest` with `git clone --no-local` and check out
    the workspace's HEAD (its branch name when it is on one). Returns (sha, branch or None).
    Without `files` no file is written: HEAD and the index are the workspace's HEAD, the work
    tree is left unwritten (`index.clone_unwritten`; `sync.Worlds.write_files` writes it where a
    run needs it).

    Run inside `worlds.entered`. Only git-upload-pack reads the workspace's repository, and only
    one that is the workspace's own (`own_repository`: a gitfile, `commondir` or alternates
    naming another user's repository, a root-only one read as root, is refused). Raises `GitError`
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
