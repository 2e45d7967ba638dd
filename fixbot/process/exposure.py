"""What the project's commands could read of someone else's, found before they run.

- `exposed_home`: in the runner mode's uid split the commands run as `fixbot-commands`, but the
  workspace lies under the runner user's HOME (`/home/runner/work/...`), which must stay
  enterable by other users: a credential file there that others may read (a 0644
  `~/.gitconfig` holding a token, `~/.git-credentials`, `~/.npmrc`) is theirs to read. The
  fallback only: where root may mount, the commands never see that HOME
  (`fixbot.process.homes`, the allowlist); where it may not, this list of names is all there
  is, and it misses a tool it does not list.
- `persisted_credentials`: actions/checkout's default `persist-credentials: true` leaves the
  job's token in the workspace's `.git/config` (`http.<url>.extraheader = AUTHORIZATION:
  basic ...`, actions/checkout's README), where the check reads it. Read as data, without
  following a link, bounded.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from fixbot.core.secrets import is_secret_file
from fixbot.process.nofollow import read_at

# Files and folders under HOME whose content authenticates the runner's user somewhere: the
# secret file names of `fixbot.core.secrets` and the configuration files of git and common tools.
CREDENTIAL_FILES = (".gitconfig", ".git-credentials", ".netrc", ".npmrc", ".pypirc", ".yarnrc.yml")
CREDENTIAL_FOLDERS = (".ssh", ".aws", ".docker", ".kube", ".config/gh", ".config/git", ".gnupg")
EXTRAHEADER = re.compile(rb"(?im)^\s*extraheader\s*=\s*\"?authorization:")
MAX_CONFIG_BYTES = 1024 * 1024


def _others_read(info: os.stat_result) -> bool:
    return bool(info.st_mode & stat.S_IROTH)


def _others_enter(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and bool(info.st_mode & stat.S_IXOTH)


def exposed_home(home: Path) -> list[Path]:
    """The credential files under `home` (`CREDENTIAL_FILES`, secret file names at its top, and
    everything in `CREDENTIAL_FOLDERS`) that any other user could read: the file readable by
    others and every folder from `home` down to it enterable by others; a candidate that is a
    link counts as what it names (`~/.gitconfig` kept in a dotfiles folder), readable by others
    with every folder on the way to it enterable. [] when `home` itself is closed to others.
    Nothing is opened: only the modes are read."""
    if not _others_enter(home):
        return []
    try:
        candidates = _candidates(home)
    except OSError:
        return []
    return sorted(path for path in dict.fromkeys(candidates) if _readable_by_others(path))


def _candidates(home: Path) -> list[Path]:
    """`CREDENTIAL_FILES`, the secret file names at `home`'s top and the files of every
    `CREDENTIAL_FOLDERS` folder others can reach. Raises OSError when `home` cannot be listed."""
    candidates = [home / name for name in CREDENTIAL_FILES]
    candidates += [home / e.name for e in os.scandir(home) if is_secret_file(e.name)]
    for folder in CREDENTIAL_FOLDERS:
        reached = _reached_folder(home, home / folder)
        if reached is not None:
            candidates += _enterable_files(reached)
    return candidates


def _reached_folder(home: Path, path: Path) -> Path | None:
    """`path` (a folder under `home`) when others can enter it and every folder from `home`
    down to it; a link counts as the folder it names, when others can enter every folder from
    `/` down to that one (`~/.ssh` kept in a dotfiles folder). None otherwise."""
    try:
        if path.is_symlink():
            target = Path(os.path.realpath(path))
            chain = [target, *target.parents]
            folders = [p for p in path.parents if home in [p, *p.parents]]
            reached = all(_others_enter(p) for p in [*chain, *folders])
            return target if reached else None
    except OSError:
        return None
    enterable = all(_others_enter(p) for p in [path, *path.parents] if home in [p, *p.parents])
    return path if enterable else None


def _enterable_files(top: Path) -> list[Path]:
    """The files under `top` in folders others can enter (links not followed)."""
    return [
        Path(dirpath) / name
        for dirpath, _, names in os.walk(top)
        if _others_enter(Path(dirpath))
        for name in names
    ]


def _readable_by_others(path: Path) -> bool:
    """True for a regular file others may read; for a link, the file it names, when others may
    read it and enter every folder from `/` down to it (the link's own folders are `home`'s,
    checked by the caller)."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            target = Path(os.path.realpath(path))
            if not all(_others_enter(folder) for folder in target.parents):
                return False
            info = target.lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and _others_read(info)


def persisted_credentials(workspace: Path) -> bool:
    """True when the workspace's `.git/config`, or a file it includes (`include.path`,
    `includeIf.<condition>.path`: actions/checkout v6 keeps the token in
    `$RUNNER_TEMP/git-credentials-<uuid>.config`, included for the workspace's git folder),
    holds an `extraheader` with an AUTHORIZATION (the token actions/checkout persists by
    default). False when none can be read. Each file is read as data, bounded, its last
    component never a link."""
    try:
        data = read_at(workspace, ".git/config", MAX_CONFIG_BYTES)
    except OSError:
        return False
    if EXTRAHEADER.search(data):
        return True
    for name in included(data):
        path = name if os.path.isabs(name) else os.path.join(workspace, ".git", name)
        try:
            if EXTRAHEADER.search(read_at(Path(path).parent, Path(path).name, MAX_CONFIG_BYTES)):
                return True
        except OSError:
            continue
    return False


def included(config: bytes) -> list[str]:
    """The `path` values of the `[include]` and `[includeIf "..."]` sections of the git
    configuration `config` (git-config(1), "Includes"), at most `MAX_INCLUDES`."""
    found: list[str] = []
    section = ""
    for raw in config.decode(errors="replace").splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].strip().lower()
            continue
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "path" and section.startswith("include"):
            found.append(value.strip().strip('"'))
    return found[:MAX_INCLUDES]


MAX_INCLUDES = 16  # actions/checkout writes one per git folder and worktree pattern
