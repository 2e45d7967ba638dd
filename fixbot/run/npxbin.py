"""A check that starts jest or vitest through a package manager's launcher (`npx jest --ci`,
`npm exec -- jest`, `npm x`, `pnpm exec`, `pnpm jest`, `yarn jest`, `yarn run jest`, `bunx
vitest run`) run as the runner's own bin, so fixbot's reporter inside it reaches the channel.

npx (npm's `npm exec`), yarn, pnpm and bunx run the command in a child process (`sh -c`,
through node's `child_process.spawn`), which inherits no descriptor beyond its standard
streams: the channel's and the `jest --showConfig` preload's descriptors (`FIXBOT_OBSERVER`,
`FIXBOT_JEST_LOADED`, `<fd>:<inode>`) name other files there, their inode checks fail, and the
runner streams nothing (the start's run and the fix's alike: round 20's report rewritten at
exit was believed, judged by the JSON report alone; round 34 through `npm exec`). Where the
launcher would run a bin of the project's own (`node_modules/.bin/<runner>` in the check's
folder or the nearest folder above it that has one: npm's `localFileExists` walk), fixbot runs
that bin instead (node follows its `#!/usr/bin/env node` by `exec`, in the process fixbot
started: the descriptors are inherited), with what the launcher gives the run that matters,
each `node_modules/.bin` from the check's folder up first on PATH (npm's `setPATH`); the
launchers' own variables (`npm_*`) are not set. Where there is no such bin (the launcher would
fetch the runner, or take a global one), the launcher is given an option that can change what
it runs (`--package`, `-c`, `--ignore-existing`, `--filter`, ...: each form's options are an
allowlist, `FORMS`), npm exec is given options after the runner without a `--` before it (npm
reads them as its own), the project's own package names a bin of the runner's name (npx would
install it and run that) or, for yarn and pnpm, a script of the runner's name (that script runs,
not the bin), the check runs as written and `Direct.why` says why the runner was not observed.
In an npm workspace npx may take the workspace root's bin before a package's own; fixbot takes
the nearest. `node <path naming the runner>` needs no rewrite: the process is the runner's
(`fixbot.logs.dialects.base.runner_at`).
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import NamedTuple

from fixbot.logs.dialects.base import simple_words
from fixbot.process.nofollow import read_file

RUNNERS = ("jest", "vitest")  # the runners fixbot's reporter observes (`observe/node/`)
# npx's (and `npm exec`'s) options that leave which program runs to the local bin: whether to
# ask before installing, how much to print, whether to reach the registry
KEPT_OPTIONS = frozenset(
    {"-y", "--yes", "--no", "--no-install", "-q", "--quiet", "--silent"}
    | {"--offline", "--prefer-offline", "--prefer-online"}
)
QUIET = frozenset({"-s", "--silent"})  # yarn's and pnpm's options kept: how much they print
WHY = "{launcher} runs {name} in a child process, which inherits no channel"
MAX_PACKAGE_BYTES = 1_000_000  # the project's package.json read for its `bin`, at most (bytes)


class Form(NamedTuple):
    """How one launcher runs a package's bin: `kept` its options (before the runner) that leave
    which program runs to the local bin; `own` whether a bin the project's own package.json
    names runs instead (npm installs that package); `scripts` whether a package.json script of
    the runner's name runs instead (yarn, pnpm); `parsed` whether it takes the options after
    the runner as its own unless a `--` stands before the runner (npm exec's argument parser,
    unlike npx's, reads options anywhere)."""

    kept: frozenset[str]
    own: bool = False
    scripts: bool = False
    parsed: bool = False


# The launchers (their first word and subcommand, which may follow options) and their forms.
FORMS: dict[tuple[str, ...], Form] = {
    ("npx",): Form(KEPT_OPTIONS, own=True),
    ("npm", "exec"): Form(KEPT_OPTIONS, own=True, parsed=True),
    ("npm", "x"): Form(KEPT_OPTIONS, own=True, parsed=True),
    ("pnpm", "exec"): Form(QUIET),
    ("pnpm",): Form(QUIET, scripts=True),
    ("yarn", "run"): Form(QUIET, scripts=True),
    ("yarn",): Form(QUIET, scripts=True),
    ("bunx",): Form(frozenset()),
}


class Launch(NamedTuple):
    """A check that launches a runner's bin: the launcher's first words (`FORMS`), the runner's
    name, its index in the check's words, the launcher's options before it (a `--` right before
    the runner left out) and whether that `--` stood there."""

    launcher: tuple[str, ...]
    name: str
    at: int
    options: list[str]
    split: bool


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
    its runner's local bin, where it is one simple command (`simple_words`) that launches
    jest or vitest by a launcher of `FORMS` with kept options (`npx jest`, `npm exec -- jest`,
    `yarn jest`, ...) and `cwd` or a folder above it has `node_modules/.bin/<runner>` (a file,
    after links: a link into the project's node_modules is the usual bin); else `check`
    unchanged, with why its runner runs unobserved where a launcher starts it (`_unsure`)."""
    words = simple_words(check)
    found = _launched(words) if words else None
    if words is None or found is None:
        return Direct(check)
    name = found.name
    folders = [cwd, *cwd.parents]
    why = _unsure(found, words, folders)
    binary = None if why else _local_bin(folders, name)
    if binary is None:
        why = why or f"no node_modules/.bin/{name} from the check's folder up"
        launcher = " ".join(found.launcher)
        return Direct(check, why=f"{why} ({WHY.format(launcher=launcher, name=name)})")
    bins = tuple(str(b) for f in folders if (b := f / "node_modules" / ".bin").is_dir())
    return Direct(shlex.join([str(binary), *words[found.at + 1 :]]), bins)


def _launched(words: list[str]) -> Launch | None:
    """How `words` launch a runner of `RUNNERS`: a launcher of `FORMS` (its subcommand after
    the launcher's options, `npm --offline exec`), its options (words starting with `-`) and
    the runner's bare name (npx: or a path ending in it) as the first other word, no other word
    naming a runner; None where they do not."""
    rest = words[1:]
    first = _dashes(rest, 0)
    sub = rest[first : first + 1] if (words[0], *rest[first : first + 1]) in FORMS else []
    launcher = (words[0], *sub)
    at = _dashes(rest, first + len(sub))
    name = _runner(words, rest[at:], launcher) if launcher in FORMS else None
    if name is None:
        return None
    options = rest[:first] + rest[first + len(sub) : at]
    split = options[-1:] == ["--"] and at > first + len(sub)
    return Launch(launcher, name, 1 + at, options[:-1] if split else options, split)


def _runner(words: list[str], rest: list[str], launcher: tuple[str, ...]) -> str | None:
    """The runner of `RUNNERS` named by `rest`'s first word (its bare name; npx's: or a path
    ending in it), None where it names none or another word of `words` names one too."""
    named = [word for word in words if word.rsplit("/", 1)[-1] in RUNNERS]
    runner = rest[0] if rest else ""
    runner = runner.rsplit("/", 1)[-1] if launcher == ("npx",) else runner
    return runner if runner in RUNNERS and len(named) == 1 else None


def _dashes(words: list[str], start: int) -> int:
    """The index of the first word of `words` from `start` on that does not start with `-`
    (`len(words)` where none)."""
    return next((i for i in range(start, len(words)) if not words[i].startswith("-")), len(words))


def _unsure(found: Launch, words: list[str], folders: list[Path]) -> str:
    """Why the launcher `found` may run something else than the local bin, or pass it other
    words: an option of its own that can change what it runs (not its form's `kept`), an
    option after the runner it takes as its own (`Form.parsed`), the project's own package
    naming a bin of the runner's name (`Form.own`) or a script of that name (`Form.scripts`);
    "" where none."""
    return _option_why(found, words) or _package_why(found, folders)


def _option_why(found: Launch, words: list[str]) -> str:
    """Why `found`'s options may change what runs or what the runner gets (`_unsure`), ""."""
    form, launcher = FORMS[found.launcher], " ".join(found.launcher)
    changing = [word for word in found.options if word not in form.kept]
    if changing:
        return f"{launcher} option {changing[0]}"
    if form.parsed and not found.split and any(w.startswith("-") for w in words[found.at :]):
        return f"{launcher} takes the options after {found.name} as its own without --"
    return ""


def _package_why(found: Launch, folders: list[Path]) -> str:
    """Why the project's package.json may have `found`'s launcher run something else than the
    local bin (`_unsure`), ""."""
    form, name = FORMS[found.launcher], found.name
    if form.own and _own_bin(folders, name):
        return f"the project's package.json names a {name} bin"
    if form.scripts and _names_script(_nearest_package(folders), name):
        return f"the project's package.json has a script {name}, which runs instead"
    return ""


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
    return _names_bin(_package(prefix / "package.json"), name)


def _nearest_package(folders: list[Path]) -> object:
    """The JSON of the first package.json of `folders` (yarn's and pnpm's project), `{}`
    where none, None where it cannot be read as JSON (`_package`)."""
    found = next((f / "package.json" for f in folders if os.path.lexists(f / "package.json")), None)
    return {} if found is None else _package(found)


def _package(path: Path) -> object:
    """The JSON of the project's package.json at `path`, None where it cannot be read as JSON
    (a link, a fifo, too large: no link followed, no fifo waited on)."""
    try:
        return json.loads(read_file(path, MAX_PACKAGE_BYTES, None))
    except (OSError, ValueError):
        return None


def _names_script(package: object, name: str) -> bool:
    """Whether a package.json's JSON `package` has a script `name` (`"scripts": {name: ...}`);
    anything but an object, or `scripts` other than one, counts as having it."""
    if not isinstance(package, dict):
        return True
    scripts = package.get("scripts", {})
    return not isinstance(scripts, dict) or name in scripts


def _names_bin(package: object, name: str) -> bool:
    """Whether a package.json's JSON `package` names a bin `name` (`"bin": {name: ...}`, or a
    path alone under a package so named); anything but an object counts as naming it."""
    if not isinstance(package, dict):
        return True
    bins, named = package.get("bin"), str(package.get("name", "")).rsplit("/", 1)[-1]
    return (isinstance(bins, dict) and name in bins) or (isinstance(bins, str) and named == name)
