"""The check's own files: what the check command runs, followed through its words, the scripts
and test drivers they name, the task files a `make` or a package manager reads, the files jest's
or vitest's configuration requires (`fixbot.run.runnerconf`), and those jest's configuration was
seen to load (`check_files`). Moved out of `fixbot.run.integrity`, whose test rules and deciding
check hold these files as the tests' (`cheats`, `pinned`); called by
`fixbot.run.phases.fixing`.
"""

from __future__ import annotations

import itertools
import json
import posixpath
from collections.abc import Iterable, Iterator
from pathlib import Path

from fixbot.process import git, shellwords
from fixbot.run import revtext, runnerconf
from fixbot.tamper.changes import is_test_file
from fixbot.tamper.facts import is_check_script, is_test_driver

MAX_CHECK_FILES = 50  # the check's own files followed at most


def check_files(
    repo: Path, command: str, workdir: str, revs: Iterable[str], loaded: Iterable[str] = ()
) -> frozenset[str]:
    """The repository-relative files the check `command` runs, followed as far as their words
    can be read: the files its shell words name (`sh check.sh`, `pytest -c ci.ini`) that are
    not program source, the same in each of those files read as shell (`check.sh` running
    `sh scripts/test.sh`, or running `./ci/test` as a program), and the Python files they run
    that drive a test runner (`python run_tests.py` ending `pytest.main(...)`:
    `fixbot.tamper.facts.is_test_driver`),
    and the same through the task files a `make` or a package manager among those words reads
    (`_tasks`: `make test` whose recipe runs `sh ci/test.sh`, `npm test` whose script does),
    and the files jest's or vitest's configuration in the check's folder requires
    (`runnerconf.required`: vite.config.*'s too, where no vitest.config.* is beside it), and
    those of the projects it lists,
    and `loaded`: the files (relative to the root) jest's configuration loaded or read in the
    start commit's run, as fixbot observed them (`Observation.configured`: a file required by a
    path it computes, which no word names, or read with `fs` and run as text), package.json and
    test files aside (`_observed`).
    Found in one of the trees `revs` (read in each); `workdir` is the check's folder relative
    to the root ("." for the root), against which, and the naming file's folder, a relative
    word is resolved."""
    revs = list(revs)
    trees = [set(git.names(repo, "ls-tree", "-r", "--name-only", rev)) for rev in revs]
    listed: set[str] = set().union(*trees)
    found: set[str] = set()
    tasks: set[str] = set()  # the task files' entries read already (a recursive `make`)
    pending = [(command, workdir, False)]
    while pending and len(found) < MAX_CHECK_FILES:
        text, here, nested = pending.pop()
        words, bases = _script_words(text), {workdir, here, "."}
        # a script's program word is run, whatever its name (a recipe's `./ci/test`)
        run = set(_resolved(_program_words(text), bases))
        for candidate in _resolved(words, bases):
            if candidate not in found and candidate in listed:
                pending += _followed(repo, revs, candidate, nested and candidate not in run, found)
        pending += _tasks(repo, revs, words, here, tasks)
    required = runnerconf.required(repo, revs, trees, workdir)
    return frozenset(found | required | _observed(loaded, listed))


def _observed(loaded: Iterable[str], listed: set[str]) -> set[str]:
    """The files of `loaded` (relative to the root) the trees hold (`listed`), package.json
    (its test keys are compared already) and test files aside: those the test rules hold (a
    fix's edit of one is a test edit, put back as the start had it for the deciding check,
    `pinned`), which a check-script finding would turn into a cheat where test edits are
    allowed (a configuration reading a test file as text, `loaded.cjs`)."""
    return {
        p
        for p in loaded
        if p in listed and posixpath.basename(p) != "package.json" and not is_test_file(p)
    }


# The files make reads when none is named, in its order (make(1)); `make -f ci.mk` names its
# file, which is followed as any file the check names.
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
MAKES = frozenset({"make", "gmake"})
PACKAGE_MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun"})
SCRIPT_ALIASES = {"t": "test", "tst": "test"}  # npm's own short names of `npm test`


def _tasks(
    repo: Path, revs: list[str], words: list[str], here: str, read: set[str]
) -> list[tuple[str, str, bool]]:
    """What the task runners among `words` run, as (text, its folder, nested) to read next:
    a make's Makefile (its recipes read as a script's lines: only the shell scripts and test
    drivers they run are the check's, not the data they name), a package manager's scripts
    named among the words (`npm test`, `npm run ci`, `yarn test`, with their `pre` and `post`
    scripts; read as check commands). `read` holds the entries followed already, each once."""
    names = {word.rsplit("/", 1)[-1] for word in words}
    found: list[tuple[str, str, bool]] = []
    if names & MAKES:
        folder = _make_folder(words, here)
        for name in MAKEFILES:
            path = posixpath.normpath(posixpath.join(folder, name))
            if path not in read:
                read.add(path)
                found += [(t, folder, True) for rev in revs if (t := revtext.text(repo, rev, path))]
    if names & PACKAGE_MANAGERS:
        path = posixpath.normpath(posixpath.join(here, "package.json"))
        for script in _scripts_named(repo, revs, path, words):
            if f"{path}:{script}" not in read:
                read.add(f"{path}:{script}")
                found.append((script, here, False))
    return found


def _make_folder(words: list[str], here: str) -> str:
    """The folder make reads its Makefile in: `-C DIR`'s, else the command's (`here`)."""
    for flag, value in itertools.pairwise(words):
        if flag == "-C":
            return posixpath.normpath(posixpath.join(here, value))
    return here


def _scripts_named(repo: Path, revs: list[str], path: str, words: list[str]) -> list[str]:
    """The texts of the scripts of package.json at `path` (in each of `revs`) that `words`
    name, each with its `pre` and `post` scripts (npm runs all three)."""
    wanted = [SCRIPT_ALIASES.get(word, word) for word in words]
    found = []
    for rev in revs:
        try:
            scripts = json.loads(revtext.text(repo, rev, path) or "{}").get("scripts")
        except (ValueError, AttributeError):
            continue
        if not isinstance(scripts, dict):
            continue
        keys = [key for name in wanted for key in (f"pre{name}", name, f"post{name}")]
        found += [text for key in keys if isinstance(text := scripts.get(key), str)]
    return found


def _resolved(words: list[str], bases: set[str]) -> Iterator[str]:
    """Each of `words` as a path relative to each of `bases` (normalised), in order."""
    for word in words:
        for base in bases:
            yield posixpath.normpath(posixpath.join(base, word))


def _followed(
    repo: Path, revs: list[str], candidate: str, nested: bool, found: set[str]
) -> list[tuple[str, str, bool]]:
    """Add `candidate` to `found` when it is one of the check's files: a script the check
    runs, or a Python file driving a test runner; return the scripts' texts to read next, as
    (text, its folder, nested)."""
    texts = [t for rev in revs if (t := revtext.text(repo, rev, candidate))]
    # inside a script, only what it runs is the check's: the data it reads
    # (`grep -q ok value.txt`) is the project's, which a fix may change
    if is_check_script(candidate) and (not nested or _runs_as_shell(candidate)):
        found.add(candidate)
        folder = posixpath.dirname(candidate) or "."
        return [(t, folder, True) for t in texts]
    if any(is_test_driver(candidate, t) for t in texts):
        found.add(candidate)
    return []


SHELL_SCRIPTS = (".sh", ".bash")


def _runs_as_shell(path: str) -> bool:
    """Whether `path`, named inside one of the check's scripts, is a shell script it runs (by
    its suffix), not a file of data it reads."""
    return path.endswith(SHELL_SCRIPTS)


def _script_words(text: str) -> list[str]:
    """The shell words of `text` (a command or a script), read line by line where the whole
    does not parse (a Makefile, a script bashlex does not follow)."""
    found = shellwords.words(text)
    if found or "\n" not in text.strip():
        return found
    return [word for line in text.splitlines() for word in shellwords.words(line)]


def _program_words(text: str) -> list[str]:
    """The program words of `text`'s simple commands (the first past their assignments: `sh`
    of `sh ci/test.sh`, `./ci/test`), read line by line where the whole does not parse."""
    found = [word for word, _, program in shellwords.word_ends(text) if program]
    if found or "\n" not in text.strip():
        return found
    lines = text.splitlines()
    return [word for line in lines for word, _, program in shellwords.word_ends(line) if program]
