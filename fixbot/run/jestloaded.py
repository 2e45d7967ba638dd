"""What jest's configuration loads, observed: moved out of `fixbot.run.jestenv`, whose
`prepare` runs `jest --showConfig` through `loading`'s `Output`; used by `fixbot.run.checkrun`
(`observed`, `tracked`: `Observation.configured`, `unhooked`, `unthreaded`, `cut`).

`jest --showConfig` also tells fixbot which of the work tree's files jest's configuration
loads (`loading`, `loaded`): it runs with fixbot's preload (`fixbot/observe/node/loaded.cjs`,
`NODE_OPTIONS=--require <copy in the run's observer folder>`), which writes node's module
cache at exit into a Unix socket pair handed to that one command (`FIXBOT_JEST_LOADED`), and
the ES modules node's loader loaded (module hooks it registers, `module.register`; `UNHOOKED`
where that node has none: `Observation.unhooked`), and the paths given to `fs` in any thread
(`UNTHREADED` where a thread ran without the preload, its reads unknown:
`Observation.unthreaded`, no fix of that start verified; a folder moved as every file HEAD
tracks under it; `CUT` where a bound cut the list, `observed`: `Observation.cut`, the same).
Read on the start commit's run, those files are the check's own (`Observation.configured`,
`fixbot.run.checkfiles.check_files`): round 25's jest.config.js requiring jest.base.js by a path
it computes, which no word of it names, and round 27's jest.config.mjs awaiting jest.base.mjs
the same way. The programs the printed configuration names but jest loads only to run the
tests (`globalSetup`, `setupFiles`, ...: `programs`, round 28) are handed over with them.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from fixbot.process import git
from fixbot.run.jestenv import ENVIRONMENT, Output, shown_config

PRELOAD = ENVIRONMENT.with_name("loaded.cjs")  # node's module cache at exit, handed to fixbot
READERS = ENVIRONMENT.with_name("loaded_reads.cjs")  # its readers' wrappers, required beside it
LOADED = "FIXBOT_JEST_LOADED"  # `<fd>:<inode>` of the socket's writing end the preload writes
# files of jest's configuration kept, at most: the preload's own bound (`MAX_READ`), so that
# every file it hands over is met with a fix's changed files (`checkfiles._observed`); past it
# the observation is cut (`CUT`)
MAX_LOADED = 4000
MAX_LOADED_BYTES = 256 * 1024  # read from the preload's socket, at most (bytes)
UNHOOKED = "esm-unobserved"  # the preload's line: its node has no module hooks (`register`)
UNTHREADED = "thread-unobserved"  # the preload's line: a thread was started without it
CUT = "observation-cut"  # the preload's line (or `loaded`'s): a bound cut what was handed over
# the keys of `--showConfig`'s configurations (and its `globalConfig`) that name programs jest
# loads as it runs the tests, not as it prints its configuration: their files are the check's
# (`programs`; round 28, a `globalSetup` file patching node's `vm.compileFunction`)
PROGRAMS = frozenset(
    {"globalSetup", "globalTeardown", "setupFiles", "setupFilesAfterEnv", "transform"}
    | {"snapshotResolver", "snapshotSerializers", "testResultsProcessor", "testSequencer"}
    | {"reporters", "resolver", "moduleLoader", "dependencyExtractor", "watchPlugins"}
    | {"testEnvironment", "testRunner", "runner"}
)
MAX_PROGRAM_DEPTH = 4  # lists walked in a program key's value (`transform`: [[regex, path, {}]])


# a program's words, its folder, its timeout (seconds), the variables added to its environment
# and the descriptors it inherits -> its exit code (None on timeout) and output: the check's
# launcher's `output` with those (`fixbot.run.checkrun._environment`)
Passing = Callable[
    [list[str], Path, float, dict[str, str], tuple[int, ...]], tuple[int | None, str]
]


def loading(run: Passing, folder: Path, found: list[str]) -> Output:
    """An `Output` that runs its program through `run` with fixbot's preload (`PRELOAD`, copied
    into `folder`, fixbot's observer folder, 0644, with `READERS` beside it) on `NODE_OPTIONS`
    (after the check's own, `run`'s base) and the writing end of a fresh Unix socket pair
    (`LOADED`), and appends to `found` the absolute paths node processes of it wrote at exit
    (`loaded`) and the programs the configuration it printed names (`programs`). Without the
    copies or the pair it runs the program as `run` would, only those programs found."""

    def output(argv: list[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
        target = folder / PRELOAD.name
        try:
            for source in (READERS, PRELOAD):
                copy = folder / source.name
                copy.write_bytes(source.read_bytes())
                copy.chmod(0o644)
            reading, writing = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError:
            done = run(argv, cwd, timeout, {}, ())
            found.extend(programs(done[1]))
            return done
        with reading, writing:
            reading.shutdown(socket.SHUT_WR)
            writing.shutdown(socket.SHUT_RD)
            fd = writing.fileno()
            added = {"NODE_OPTIONS": f'--require "{target}"', LOADED: f"{fd}:{os.fstat(fd).st_ino}"}
            done = run(argv, cwd, timeout, added, (fd,))
            writing.close()
            found.extend(loaded(reading))
        found.extend(programs(done[1]))
        return done

    return output


def _paths(value: object, depth: int = 0) -> list[str]:
    """The absolute paths among `value`'s strings, walking its lists (`MAX_PROGRAM_DEPTH`);
    node_modules's too (jest's own, a dependency's, a package the project commits there: which
    are the project's is `configured`'s to tell)."""
    if isinstance(value, str):
        return [value] if os.path.isabs(value) else []
    if isinstance(value, list) and depth < MAX_PROGRAM_DEPTH:
        return [path for item in value for path in _paths(item, depth + 1)]
    return []


def programs(output: str) -> list[str]:
    """The absolute paths `jest --showConfig`'s `output` names under a key of `PROGRAMS` in
    each configuration and in `globalConfig` (none where it printed no configuration): files
    jest loads only as it runs the tests, which the preload never sees loaded. Round 28: the
    fix rewrote the project's `globalSetup` file, which runs in jest's own process (the one
    running a single test file), to strip each `expect(...).toBe(...)` from the test's code as
    jest-runtime compiles it (`vm.compileFunction`): ended `fixed`. Paths under node_modules
    are kept (round 30: `globalSetup: 'app-setup'`, a package the project commits there),
    `configured` keeps those the repository tracks."""
    shown = shown_config(output)
    if not isinstance(shown, dict):
        return []
    configs = shown.get("configs")
    spaces = [*(configs if isinstance(configs, list) else []), shown.get("globalConfig")]
    return [
        path
        for space in spaces
        if isinstance(space, dict)
        for key in sorted(PROGRAMS)
        for path in _paths(space.get(key))
    ]


def loaded(reading: socket.socket) -> list[str]:
    """The absolute paths the preload wrote (a line each) on `reading`, read without waiting
    (every writer has exited: a process of the check left holding the end is not waited for),
    `MAX_LOADED_BYTES` at most, and `UNHOOKED`, `UNTHREADED` and `CUT` where a process wrote
    them; any other relative line skipped; `CUT` added where `MAX_LOADED_BYTES` was reached or
    a line is no UTF-8 (a path fixbot cannot name: what it names unknown)."""
    reading.setblocking(False)
    data = b""
    with contextlib.suppress(OSError):  # BlockingIOError: nothing more now
        while len(data) < MAX_LOADED_BYTES and (chunk := reading.recv(65536)):
            data += chunk
    lines = data[:MAX_LOADED_BYTES].decode("utf-8", "replace").splitlines()
    kept = [line for line in lines if line in (UNHOOKED, UNTHREADED, CUT) or os.path.isabs(line)]
    found = [line for line in kept if "\ufffd" not in line]
    return [*found, CUT] if len(data) >= MAX_LOADED_BYTES or len(found) < len(kept) else found


class Loaded(NamedTuple):
    """What `jest --showConfig` with fixbot's preload loaded: the work tree's files
    (`configured`), whether a node process of it had no module hooks (`UNHOOKED`: a node
    before 20.6 / 18.19, whose ES modules, jest.config.mjs and what it imports, went unseen),
    and whether one started a thread without the preload (`UNTHREADED`: round 33, a Worker of
    node's own constructor given `env: {}`; what that thread read is unknown, the files unsure),
    and whether what was handed over was cut at a bound (`CUT`: the preload's, `loaded`'s, or
    `MAX_LOADED` files; round 34, a configuration reading 250 packages' package.json before its
    base: the files past it unknown, `Observation.cut`, no fix of that start verified)."""

    files: list[str]
    unhooked: bool
    unthreaded: bool = False
    cut: bool = False


def tracked(repo: Path) -> frozenset[str]:
    """The files `repo`'s HEAD commit tracks (the start's, in the start's run), relative to its
    root: what a folder noted moved holds (`configured`), and the packages the project commits
    under node_modules (vendored), its own files like any other, where node_modules otherwise
    holds what the package manager installed. Empty where git cannot list HEAD (no commit
    yet)."""
    try:
        return frozenset(git.names(repo, "ls-tree", "-r", "--name-only", "HEAD"))
    except git.GitError:
        return frozenset()


def observed(found: list[str], root: Path, files: frozenset[str] = frozenset()) -> Loaded:
    """What `found` (`loading`'s lines) tells of the start: `configured`'s files (`files`,
    `tracked`), its notes, and cut where the preload or `loaded` said so or `configured` had
    more than `MAX_LOADED` files to keep."""
    kept = configured(found, root, files, MAX_LOADED + 1)
    cut = CUT in found or len(kept) > MAX_LOADED
    return Loaded(kept[:MAX_LOADED], UNHOOKED in found, UNTHREADED in found, cut)


def configured(
    paths: list[str], root: Path, tracked: frozenset[str] = frozenset(), most: int = MAX_LOADED
) -> list[str]:
    """The files of `paths` (absolute; anything else, a note, `UNHOOKED`, skipped) under `root`
    (the work tree as the check saw it), as paths relative to it (`/`-separated, links
    resolved), each once, in order, `most` at most: those that are files there or that
    `tracked` holds (the files HEAD tracks, `tracked`: a folder jest's configuration listed or
    stat'ed names no file, nor one it looked for that is not there), and for a folder noted
    moved (`<path>/`: the source of a rename, a copy or a link; round 34, config/ renamed and
    its base read under the new name) every file of `tracked` under it; under node_modules
    only those of `tracked` (round 30, a `globalSetup` package the project commits rewritten
    by the fix to strip the assertions, ended `fixed` while every path under node_modules was
    passed over), never what the package manager installed."""
    base = os.path.realpath(root)
    found: dict[str, None] = {}
    for path in paths:
        if not os.path.isabs(path):
            continue
        relative = Path(os.path.relpath(os.path.realpath(path), base)).as_posix()
        if relative.startswith("..") or relative in found:
            continue
        if path.endswith("/"):
            found |= dict.fromkeys(_under(relative, tracked, most - len(found)))
        elif _kept(path, relative, tracked):
            found[relative] = None
        if len(found) >= most:
            break
    return list(found)[:most]


def _kept(path: str, relative: str, tracked: frozenset[str]) -> bool:
    """Whether `path` (absolute; `relative` to the work tree) is a file of the project's: one
    `tracked` holds, or a file there outside node_modules."""
    if relative in tracked:
        return True
    return "node_modules" not in relative.split("/") and os.path.isfile(path)


def _under(folder: str, tracked: frozenset[str], most: int) -> list[str]:
    """The files of `tracked` under `folder` (relative, "." the root), sorted, `most` at most."""
    prefix = "" if folder == "." else f"{folder}/"
    return sorted(p for p in tracked if p.startswith(prefix))[: max(most, 0)]
