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
loads: `fixbot.run.jestloaded` (`loading`, `observed`), whose `programs` reads the printed
configuration with `shown_config`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from fixbot.logs.dialects.base import runner_at, simple_words
from fixbot.logs.dialects.jest import names_environment
from fixbot.process.nofollow import read_file

# a program's words, the folder it runs in and its timeout (seconds) -> its exit code (None on
# timeout) and output: `fixbot.process.launcher.Launcher.output`, handed in
Output = Callable[[list[str], Path, float], tuple[int | None, str]]

ENVIRONMENT = Path(__file__).parent.parent / "observe" / "node" / "environment.cjs"
VARIABLE = "FIXBOT_JEST_ENVIRONMENT"  # the absolute path of the environment jest resolved
SHOW_TIMEOUT_S = 60.0  # `jest --showConfig`, at most (seconds)
MAX_PACKAGE_BYTES = 1_000_000  # a package.json read for its `type`, at most (bytes)
CONFIGS = '{\n  "configs": ['  # where `--showConfig`'s JSON starts in its output
CIRCUS = re.compile(r"[\\/]jest-circus[\\/]")  # jest's default runner's path holds this
RUNNER = re.compile(r"[\\/]jest-runner[\\/]")  # jest's default `runner`: builds environments


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
    shown = shown_config(output)
    if shown is None:
        return None
    try:
        configs = shown["configs"]  # type: ignore[index]
        if not isinstance(configs, list):
            return None
        return [(c["testEnvironment"], c["testRunner"], c["runner"]) for c in configs]
    except (KeyError, TypeError):
        return None


def shown_config(output: str) -> object | None:
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
    environment is left as it names it, but `output` (`fixbot.run.jestloaded.loading`) learns
    the files its configuration loads. Where the content-addressed path is unusable (its
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
