"""A check that starts jest or vitest through npx (`npx jest --ci`, `npx vitest run`) run as the
runner's own bin, so fixbot's reporter inside it reaches the channel.

npx (npm's `npm exec`) runs the command in a child process (`sh -c`, through node's
`child_process.spawn`), which inherits no descriptor beyond its standard streams: the
channel's and the `jest --showConfig` preload's descriptors (`FIXBOT_OBSERVER`,
`FIXBOT_JEST_LOADED`, `<fd>:<inode>`) name other files there, their inode checks fail, and the
runner streams nothing (the start's run and the fix's alike: round 20's report rewritten at
exit was believed, judged by the JSON report alone). Where npx would run a bin of the project's
own (`node_modules/.bin/<runner>` in the check's folder or the nearest folder above it that has
one: npm's `localFileExists` walk), fixbot runs that bin instead (node follows its
`#!/usr/bin/env node` by `exec`, in the process fixbot started: the descriptors are inherited),
with what npx gives the run that matters, each `node_modules/.bin` from the check's folder up
first on PATH (npm's `setPATH`); npm's own `npm_*` variables are not set. Where there is no
such bin (npx would fetch the runner, or take a global one), npx is given an option that can
change what it runs (`--package`, `-c`, `--ignore-existing`, ...), or the project's own package
names a bin of the runner's name (npx would install it and run that), the check runs as written
and `Direct.why` says why the runner was not observed. In an npm workspace npx may take the
workspace root's bin before a package's own; fixbot takes the nearest.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import NamedTuple

from fixbot.logs.dialects.base import runner_at, simple_words
from fixbot.process.nofollow import read_file

RUNNERS = ("jest", "vitest")  # the runners fixbot's reporter observes (`observe/node/`)
LAUNCHER = "npx"
# npx's options that leave which program runs to the local bin: whether to ask before
# installing, how much to print, whether to reach the registry
KEPT_OPTIONS = frozenset(
    {"-y", "--yes", "--no", "--no-install", "-q", "--quiet", "--silent"}
    | {"--offline", "--prefer-offline", "--prefer-online"}
)
WHY = "npx runs {name} in a child process, which inherits no channel"
MAX_PACKAGE_BYTES = 1_000_000  # the project's package.json read for its `bin`, at most (bytes)


class Direct(NamedTuple):
    """How a check runs: `check` (the runner's bin and its words, quoted for /bin/sh; the
    check itself where unchanged), `bins` the `node_modules/.bin` folders to put first on PATH
    (none: unchanged) and `why` the runner was left unobserved ("": it was not, or the check
    is not an `npx` runner's)."""

    check: str
    bins: tuple[str, ...] = ()
    why: str = ""

    def path(self, path: str) -> str:
        """`path` (a PATH value) with `bins` first."""
        return os.pathsep.join([*self.bins, path]) if self.bins else path


def direct(check: str, cwd: Path) -> Direct:
    """`check` run in `cwd` (the folder it runs in, as the check sees it: the workspace's) as
    its runner's local bin, where it is `npx [kept options] jest|vitest ...` (one simple
    command, `simple_words`) and `cwd` or a folder above it has `node_modules/.bin/<runner>`
    (a file, after links: a link into the project's node_modules is the usual bin); else
    `check` unchanged, with why its runner runs unobserved where it is an npx runner's."""
    words = simple_words(check)
    found = _runner(words) if words and words[0] == LAUNCHER else None
    if words is None or found is None:
        return Direct(check)
    name, at = found
    folders = [cwd, *cwd.parents]
    why = _unsure(words[1:at], folders, name)
    binary = None if why else _local_bin(folders, name)
    if binary is None:
        why = why or f"no node_modules/.bin/{name} from the check's folder up"
        return Direct(check, why=f"{why} ({WHY.format(name=name)})")
    bins = tuple(str(b) for f in folders if (b := f / "node_modules" / ".bin").is_dir())
    return Direct(shlex.join([str(binary), *words[at + 1 :]]), bins)


def _runner(words: list[str]) -> tuple[str, int] | None:
    """The runner of `RUNNERS` npx starts in `words` and its index, None where none or both."""
    places = [(name, runner_at(words, name, frozenset({LAUNCHER}))) for name in RUNNERS]
    found = [(name, at) for name, at in places if at is not None]
    return found[0] if len(found) == 1 else None


def _unsure(options: list[str], folders: list[Path], name: str) -> str:
    """Why npx may run something else than the local bin `name`: an option of `options` (npx's)
    that can change what it runs, the project's own package naming a bin `name`; "" where
    neither."""
    changing = [word for word in options if word not in KEPT_OPTIONS]
    if changing:
        return f"npx option {changing[0]}"
    return f"the project's package.json names a {name} bin" if _own_bin(folders, name) else ""


def _local_bin(folders: list[Path], name: str) -> Path | None:
    """The first `node_modules/.bin/<name>` of `folders` that is a file (after links)."""
    return next((b for f in folders if (b := f / "node_modules" / ".bin" / name).is_file()), None)


def _own_bin(folders: list[Path], name: str) -> bool:
    """Whether the package npx takes as the local one (the first of `folders` holding a
    package.json or a node_modules, npm's local prefix) names a bin `name` of its own (npx
    then installs that package and runs its bin), or its package.json cannot be read as JSON
    (a link, a fifo, too large: unsure counts as its own)."""
    marks = ("package.json", "node_modules")
    prefix = next((f for f in folders if any(os.path.lexists(f / m) for m in marks)), None)
    if prefix is None or not os.path.lexists(prefix / "package.json"):
        return False
    try:  # the project's file: no link followed, no fifo waited on
        found = json.loads(read_file(prefix / "package.json", MAX_PACKAGE_BYTES, None))
    except (OSError, ValueError):
        return True
    return _names_bin(found, name)


def _names_bin(package: object, name: str) -> bool:
    """Whether a package.json's JSON `package` names a bin `name` (`"bin": {name: ...}`, or a
    path alone under a package so named); anything but an object counts as naming it."""
    if not isinstance(package, dict):
        return True
    bins, named = package.get("bin"), str(package.get("name", "")).rsplit("/", 1)[-1]
    return (isinstance(bins, dict) and name in bins) or (isinstance(bins, str) and named == name)
