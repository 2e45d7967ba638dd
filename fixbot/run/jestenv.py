"""jest's test environment for one check run: fixbot's (`fixbot/observe/node/environment.cjs`,
which streams jest-circus's verdict on each test's function) written once where its path never
changes, and the environment jest resolved for the project, which it builds.

jest's transform cache key holds the project's configuration, `testEnvironment` among it: a
path new in every run (a per-run folder) made every check transform every file again. So the
file is written once per content, `fixbot-jest-environment-<digest>/environment.cjs` in the
temporary folder (`environment_file`: the folder and file fixbot's, read-only, its content
compared before each use), and nothing of the run is in its path or content: it finds the
run's reporter (and so the channel and nonce) in node's module cache, and the project's
environment in `VARIABLE`, which jest's cache key does not hold.

The project's environment is the one jest resolved (`jest --showConfig`, run with the check's
own words before the check, as the check's user: `shown_environment`). Where that is unsure (it
fails or prints no configuration, several configurations (`projects`), an ES module
environment, which `require` cannot load, a `runner` other than jest-runner, which would build
no environment) fixbot names no environment: the check runs with the
reporter alone, as before, and the report says why (`Observation.environment`).

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
import hashlib
import json
import os
import re
import socket
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from fixbot.logs.dialects.base import runner_at, simple_words
from fixbot.logs.dialects.jest import names_environment
from fixbot.process import git
from fixbot.process.nofollow import read_file

# a program's words, the folder it runs in and its timeout (seconds) -> its exit code (None on
# timeout) and output: `fixbot.process.launcher.Launcher.output`, handed in
Output = Callable[[list[str], Path, float], tuple[int | None, str]]

ENVIRONMENT = Path(__file__).parent.parent / "observe" / "node" / "environment.cjs"
PRELOAD = ENVIRONMENT.with_name("loaded.cjs")  # node's module cache at exit, handed to fixbot
LOADED = "FIXBOT_JEST_LOADED"  # `<fd>:<inode>` of the socket's writing end the preload writes
# files of jest's configuration kept, at most: the preload's own bound (`MAX_READ`), so that
# every file it hands over is met with a fix's changed files (`checkfiles._observed`); past it
# the observation is cut (`CUT`)
MAX_LOADED = 4000
MAX_LOADED_BYTES = 256 * 1024  # read from the preload's socket, at most (bytes)
UNHOOKED = "esm-unobserved"  # the preload's line: its node has no module hooks (`register`)
UNTHREADED = "thread-unobserved"  # the preload's line: a thread was started without it
CUT = "observation-cut"  # the preload's line (or `loaded`'s): a bound cut what was handed over
VARIABLE = "FIXBOT_JEST_ENVIRONMENT"  # the absolute path of the environment jest resolved
SHOW_TIMEOUT_S = 60.0  # `jest --showConfig`, at most (seconds)
MAX_PACKAGE_BYTES = 1_000_000  # a package.json read for its `type`, at most (bytes)
CONFIGS = '{\n  "configs": ['  # where `--showConfig`'s JSON starts in its output
CIRCUS = re.compile(r"[\\/]jest-circus[\\/]")  # jest's default runner's path holds this
RUNNER = re.compile(r"[\\/]jest-runner[\\/]")  # jest's default `runner`: builds environments
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


def environment_file(base: Path | None = None) -> Path | None:
    """fixbot's jest test environment at its one path for this content: `<base>/fixbot-jest-
    environment-<digest>/environment.cjs` (`base`: the temporary folder), written once (made in
    a fresh folder, then renamed into place), the folder 0555 and the file 0444, both fixbot's
    (its effective user's). None where that path holds anything else (another owner's, a link,
    writable by others, other bytes: a squatted name is never used) or cannot be made."""
    data = ENVIRONMENT.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    where = Path(base) if base is not None else Path(tempfile.gettempdir())
    folder = where / f"fixbot-jest-environment-{digest}"
    target = folder / ENVIRONMENT.name
    if not os.path.lexists(folder):
        _make(where, folder, data)
    return target if _sound(folder, target, data) else None


def _make(where: Path, folder: Path, data: bytes) -> None:
    """Write `data` into a fresh folder under `where` and rename it to `folder`; nothing where
    another run got there first or the folder cannot be made."""
    try:
        made = Path(tempfile.mkdtemp(prefix=".fixbot-jest-", dir=where))
    except OSError:
        return
    try:
        (made / ENVIRONMENT.name).write_bytes(data)
        (made / ENVIRONMENT.name).chmod(0o444)
        made.chmod(0o555)
        os.rename(made, folder)
    except OSError:  # another run renamed its copy first, or the name is taken
        with contextlib.suppress(OSError):
            made.chmod(0o755)
            (made / ENVIRONMENT.name).unlink()
            made.rmdir()


def _sound(folder: Path, target: Path, data: bytes) -> bool:
    """Whether `folder` and `target` are fixbot's own folder and regular file (no link), written
    by nobody else (no group or other write), `target` holding `data`."""
    try:
        for path, kind in ((folder, stat.S_ISDIR), (target, stat.S_ISREG)):
            st = os.lstat(path)
            if not kind(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                return False
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            return f.read(len(data) + 1) == data
    except OSError:
        return False


def show_argv(words: list[str]) -> list[str] | None:
    """The check's jest words with `--showConfig` right after `jest` (jest prints its resolved
    configuration and runs no test), None where the words do not run jest themselves."""
    at = runner_at(words, "jest", frozenset({"npx"}))
    return None if at is None else [*words[: at + 1], "--showConfig", *words[at + 1 :]]


def shown_environment(output: str) -> tuple[str | None, str]:
    """The absolute path of the test environment jest resolved, from `jest --showConfig`'s
    `output`, and ""; or None and why it is unsure: no configuration printed, several
    (`projects`), a test runner other than jest-circus (which alone calls the environment's
    `handleTestEvent`: every test would have no verdict), a `runner` other than jest-runner
    (round 25: a project's runner builds no environment, and so streams nothing from it, as
    jest's workers did before their worker key, while its start's run did), a path that is
    not absolute, an ES
    module environment (`.mjs`, or `.js` under a package.json whose `type` is `module`, or
    whose package.json cannot be read)."""
    named = _named(output)
    if not named or not all(isinstance(w, str) for shown in named for w in shown):
        return None, "jest --showConfig printed no configuration"
    if len(named) > 1:
        return None, f"{len(named)} jest projects"
    path, runner, files = (str(w) for w in named[0])
    if not CIRCUS.search(runner):  # jest-jasmine2 and others dispatch no `handleTestEvent`
        return None, f"test runner {runner} is not jest-circus"
    if not RUNNER.search(files):
        return None, f"jest runner {files} is not jest-runner"
    return _loadable(path)


def _loadable(path: str) -> tuple[str | None, str]:
    """`path` and "" where `require` loads it (absolute, CommonJS), else None and why not."""
    if not os.path.isabs(path):
        return None, f"test environment {path!r} not resolved to a file"
    if path.endswith(".mjs") or (path.endswith(".js") and _module_package(Path(path))):
        return None, f"test environment {path} is an ES module (or its package.json unread)"
    return path, ""


def _named(output: str) -> list[tuple[object, object, object]] | None:
    """The `testEnvironment`, `testRunner` and `runner` of each configuration `--showConfig`
    printed, None where it printed none (or something else)."""
    shown = _shown(output)
    if shown is None:
        return None
    try:
        configs = shown["configs"]  # type: ignore[index]
        if not isinstance(configs, list):
            return None
        return [(c["testEnvironment"], c["testRunner"], c["runner"]) for c in configs]
    except (KeyError, TypeError):
        return None


def _shown(output: str) -> object | None:
    """The JSON `jest --showConfig` printed in `output` (from `CONFIGS` on), None where it
    printed none or it does not decode."""
    at = output.find(CONFIGS)
    if at < 0:
        return None
    try:
        shown: object = json.JSONDecoder().raw_decode(output, at)[0]
    except ValueError:
        return None
    return shown


def prepare(
    output: Output, check: str, cwd: Path, timeout: float, spare: Path
) -> tuple[dict[str, str], str | None, str]:
    """For a check that runs jest (`check`, its one simple command): the variables that name the
    environment jest resolved for the project (`VARIABLE`), the path of fixbot's environment to
    name on jest's command line (`environment_file`), and ""; or no variables, None and why no
    environment is named (the check names its own, `shown_environment`'s reasons).
    `jest --showConfig` runs through `output` (the check's launcher's) in `cwd`, `timeout`
    seconds at most (and `SHOW_TIMEOUT_S`), a check naming its own environment too: its
    environment is left as it names it, but `output` (`loading`) learns the files its
    configuration loads. Where the content-addressed path is unusable (its
    name taken, the file changed: code that runs as fixbot's own user can change it) the file
    is copied into `spare` (the run's own observer folder, fixbot's): observed, at a path new
    in this run (jest transforms every file again), never left unobserved by that."""
    words = simple_words(check)
    argv = show_argv(words) if words is not None else None
    if words is None or argv is None:
        return {}, None, "the check is not jest's one command"
    code, said = output(argv, cwd, min(timeout, SHOW_TIMEOUT_S))
    if names_environment(words):
        return {}, None, "the check names its own test environment"
    parent, why = shown_environment(said) if code == 0 else (None, "jest --showConfig failed")
    if parent is None:
        return {}, None, why
    target = environment_file() or _spare(spare)
    if target is None:
        return {}, None, "fixbot's test environment could not be written"
    return {VARIABLE: parent}, str(target), ""


def _spare(folder: Path) -> Path | None:
    """fixbot's environment copied into `folder` (0644), None where it cannot be."""
    target = folder / ENVIRONMENT.name
    try:
        target.write_bytes(ENVIRONMENT.read_bytes())
        target.chmod(0o644)
    except OSError:
        return None
    return target


def _module_package(path: Path) -> bool:
    """Whether the nearest package.json above `path` says `"type": "module"` (or cannot be
    read: a link, a fifo, over `MAX_PACKAGE_BYTES`; unsure counts as a module)."""
    for folder in path.parents:
        package = folder / "package.json"
        if not os.path.lexists(package):
            continue
        try:  # the project's file: no link followed, no fifo waited on (`nofollow.read_file`)
            found = json.loads(read_file(package, MAX_PACKAGE_BYTES, None))
        except (OSError, ValueError):
            return True
        return not isinstance(found, dict) or found.get("type") == "module"
    return False


# a program's words, its folder, its timeout (seconds), the variables added to its environment
# and the descriptors it inherits -> its exit code (None on timeout) and output: the check's
# launcher's `output` with those (`fixbot.run.checkrun._environment`)
Passing = Callable[
    [list[str], Path, float, dict[str, str], tuple[int, ...]], tuple[int | None, str]
]


def loading(run: Passing, folder: Path, found: list[str]) -> Output:
    """An `Output` that runs its program through `run` with fixbot's preload (`PRELOAD`, copied
    into `folder`, fixbot's observer folder, 0644) on `NODE_OPTIONS` (after the check's own,
    `run`'s base) and the writing end of a fresh Unix socket pair (`LOADED`), and appends to
    `found` the absolute paths node processes of it wrote at exit (`loaded`) and the programs
    the configuration it printed names (`programs`). Without the copy or the pair it runs the
    program as `run` would, only those programs found."""

    def output(argv: list[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
        target = folder / PRELOAD.name
        try:
            target.write_bytes(PRELOAD.read_bytes())
            target.chmod(0o644)
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
    shown = _shown(output)
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
