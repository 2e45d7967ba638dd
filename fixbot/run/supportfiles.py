"""The pytest test support a failing test's files reach by no helper base and no assertion
function (round 40), for `fixbot.run.integrity._imported_support`:

- `plugins`: the modules a `pytest_plugins` of the failing tests' files or of their conftests
  names (a string, no import): their fixtures are the tests' assertions (checking.py's `check`);
- `data` and `imported_by_code`: a module of data alone (assignments, imports, a docstring)
  whose value the failing tests import and that no other Python file of the start's tree
  imports is the tests' expectations (cases.py's `CASES`, parametrizing the test).

Each file is the start commit's, read through the caller's reader (`read`: path to its text,
"" where none); a module name becomes a file of the tree through the caller's `locate`
(`startmodules.module_file`); the whole tree's importers of a module are asked of `git grep`
once, at the start commit (never the work tree, which the check's processes could write).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path

from fixbot.process import git
from fixbot.tamper import imports
from fixbot.tamper.changes import is_harness

# (importer, level, module, tree) to the file of the tree the import names, None outside it
Locate = Callable[[str, int, str, set[str]], str | None]


def plugins(
    tests: Iterable[str], tree: set[str], read: Callable[[str], str], locate: Locate
) -> set[str]:
    """The files of `tree` (the start's paths) that the `pytest_plugins` of the files `tests`
    and of the conftest.py of each one's folder and the folders above name
    (`fixbot.tamper.imports.plugins_named`), and those the modules named name in turn (pytest
    loads those too); the naming files themselves aside."""
    naming = set(tests)
    naming |= {conftest for path in naming for conftest in _conftests(path, tree)}
    found: set[str] = set()
    todo = sorted(naming)
    while todo:
        path = todo.pop()
        for name in imports.plugins_named(read(path)):
            file = locate(path, 0, name, tree)
            if file is not None and file not in found | naming:
                found.add(file)
                todo.append(file)
    return found


def _conftests(path: str, tree: set[str]) -> list[str]:
    """The conftest.py files of `tree` in `path`'s folder and each folder above it."""
    folder, found = posixpath.dirname(path), []
    while True:
        conftest = posixpath.join(folder, "conftest.py")
        if conftest in tree:
            found.append(conftest)
        if not folder:
            return found
        folder = posixpath.dirname(folder)


def data(path: str, name: str, top: imports.ModuleLevel) -> bool:
    """Whether `name`, reached in module file `path` whose top level is `top`, is data of a
    module of data alone: assigned there (`top.defined`), the module holding assignments,
    imports and a docstring only (`ModuleLevel.only_imports`: no function, no class), no
    package's `__init__.py` (a package's re-exports, where an honest fix may add a name) and
    no file of the tests already."""
    if is_harness(path) or posixpath.basename(path) == "__init__.py":
        return False
    return top.only_imports and name in top.defined


def tests_data(
    repo: Path,
    start: str,
    data: dict[str, list[str]],
    tree: set[str],
    read: Callable[[str], str],
    locate: Locate,
) -> set[str]:
    """The modules of data alone of `data` (each with the modules on the tests' way to it that
    only hand its name on) that no file of the code imports (`imported_by_code`), with those
    modules on the way: the tests' expectations."""
    used = imported_by_code(repo, start, data, tree, read, locate)
    return {file for found, way in data.items() if found not in used for file in (found, *way)}


def imported_by_code(
    repo: Path,
    start: str,
    files: Iterable[str],
    tree: set[str],
    read: Callable[[str], str],
    locate: Locate,
) -> set[str]:
    """The files of `files` that a Python file of commit `start` (paths `tree`) imports that is
    no test file nor conftest (`fixbot.tamper.imports.imported_modules`, anywhere in it): the
    code's modules, which an honest fix of the code may change. Candidates are the files
    `git grep -w` finds naming a module's last name; `importlib.import_module` is not read.
    Raises `fixbot.process.git.GitError` when `start` is unknown."""
    wanted = set(files)
    if not wanted:
        return set()
    used: set[str] = set()
    for path in _naming(repo, start, wanted):
        if is_harness(path) or path in used:
            continue
        for level, module in imports.imported_modules(read(path)):
            file = locate(path, level, module, tree)
            if file in wanted and file != path:
                used.add(file)
    return used


def _naming(repo: Path, start: str, files: set[str]) -> list[str]:
    """The Python files of commit `start` whose text holds the last name of one of the module
    files `files` as a word (`git grep -l -w -F`, none where none does)."""
    stems = sorted({posixpath.splitext(posixpath.basename(f))[0] for f in files})
    patterns = [arg for stem in stems for arg in ("-e", stem)]
    out = git.run(repo, "grep", "-l", "-z", "-w", "-F", *patterns, start, "--", "*.py", check=False)
    prefix = f"{start}:"
    return [p.removeprefix(prefix) for p in out.split("\0") if p.startswith(prefix)]
