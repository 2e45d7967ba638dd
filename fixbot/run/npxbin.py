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
such bin (npx would fetch the runner, or take a global one), or npx is given an option that can
change what it runs (`--package`, `-c`, `--ignore-existing`, ...), the check runs as written and
`Direct.why` says why the runner was not observed.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import NamedTuple

from fixbot.logs.dialects.base import runner_at, simple_words

RUNNERS = ("jest", "vitest")  # the runners fixbot's reporter observes (`observe/node/`)
LAUNCHER = "npx"
# npx's options that leave which program runs to the local bin: whether to ask before
# installing, how much to print, whether to reach the registry
KEPT_OPTIONS = frozenset(
    {"-y", "--yes", "--no", "--no-install", "-q", "--quiet", "--silent"}
    | {"--offline", "--prefer-offline", "--prefer-online"}
)
WHY = "npx runs {name} in a child process, which inherits no channel"


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
    if not words or words[0] != LAUNCHER:
        return Direct(check)
    found = [
        (name, at)
        for name in RUNNERS
        if (at := runner_at(words, name, frozenset({LAUNCHER}))) is not None
    ]
    if len(found) != 1:
        return Direct(check)
    name, at = found[0]
    changing = [word for word in words[1:at] if word not in KEPT_OPTIONS]
    if changing:
        return Direct(check, why=f"npx option {changing[0]} ({WHY.format(name=name)})")
    folders = [cwd, *cwd.parents]
    binary = next((b for f in folders if (b := f / "node_modules" / ".bin" / name).is_file()), None)
    if binary is None:
        why = f"no node_modules/.bin/{name} from the check's folder up ({WHY.format(name=name)})"
        return Direct(check, why=why)
    bins = tuple(str(b) for f in folders if (b := f / "node_modules" / ".bin").is_dir())
    return Direct(shlex.join([str(binary), *words[at + 1 :]]), bins)
