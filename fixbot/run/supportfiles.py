"""The pytest test support a failing test's files reach by no helper base and no assertion
function (round 40), for `fixbot.run.integrity._imported_support`:

- `plugins`: the modules a `pytest_plugins` of the failing tests' files or of their conftests
  names (a string, no import): their fixtures are the tests' assertions (checking.py's `check`);
- `loaded`: the modules pytest loads by name, `-p NAME` of the configuration's `addopts`,
  PYTEST_ADDOPTS or the check's words, and PYTEST_PLUGINS (round 41: pytest.ini's `addopts =
  -p checking`), followed by `plugins` as a `pytest_plugins` module is;
- `data` and `imported_by_code`: a module of data alone (assignments, imports, a docstring)
  whose value the failing tests import and that no other Python file of the start's tree
  imports is the tests' expectations (cases.py's `CASES`, parametrizing the test); so is one
  holding anything whose names no test's body refers to (`made_at_collection`, `in_bodies`:
  round 41's cases.py `cases()`, called in the parametrize decorator).

Each file is the start commit's, read through the caller's reader (`read`: path to its text,
"" where none); a module name becomes a file of the tree through the caller's `locate`
(`startmodules.module_file`); the whole tree's importers of a module are asked of `git grep`
once, at the start commit (never the work tree, which the check's processes could write).
"""

from __future__ import annotations

import ast
import configparser
import itertools
import posixpath
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.process import assignments, git, shellwords
from fixbot.tamper import imports
from fixbot.tamper.changes import is_harness
from fixbot.tamper.filters import INI_SECTIONS

# (importer, level, module, tree) to the file of the tree the import names, None outside it
Locate = Callable[[str, int, str, set[str]], str | None]


def plugins(
    tests: Iterable[str],
    tree: set[str],
    read: Callable[[str], str],
    locate: Locate,
    loaded_by_name: Iterable[str] = (),
) -> set[str]:
    """The files of `tree` (the start's paths) that the `pytest_plugins` of the files `tests`
    and of the conftest.py of each one's folder and the folders above name
    (`fixbot.tamper.imports.plugins_named`), and those the modules named name in turn (pytest
    loads those too); the naming files themselves aside. `loaded_by_name` (the plugins pytest
    loads by `-p`, `loaded`) are among them, followed the same way."""
    naming = set(tests)
    naming |= {conftest for path in naming for conftest in _conftests(path, tree)}
    found: set[str] = set(loaded_by_name) - naming
    todo = sorted(naming | found)
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


def made_at_collection(path: str, called: set[str]) -> bool:
    """Whether module file `path`, which the failing tests refer to by an imported name, is
    theirs whatever it holds (round 41: cases.py's `cases()`, the parametrized expectations):
    none of their function bodies refers to a name of it (`called`: `in_bodies`' files), so
    what they use of it is evaluated as they are collected (a decorator's arguments, a module
    or class attribute), and it is no package's `__init__.py` nor a file of the tests already.
    The code under test is called in a test's body (app.py's `add`); the importer condition
    (`tests_data`) is applied after."""
    if is_harness(path) or posixpath.basename(path) == "__init__.py":
        return False
    return path not in called


def in_bodies(text: str) -> frozenset[imports.Imported]:
    """The imported names (`fixbot.tamper.imports.imported_references`) the Python source
    `text` refers to inside a function's body (a test's, a fixture's, a method's; a nested
    function's decorators among them), not in a decorator of its own or at a module's or a
    class's top level; empty where `text` does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return frozenset()
    nodes = list(ast.walk(tree))
    kept: list[ast.stmt] = [n for n in nodes if isinstance(n, ast.Import | ast.ImportFrom)]
    kept += [
        s for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for s in n.body
    ]
    return imports.imported_references(ast.unparse(ast.Module(body=kept, type_ignores=[])))


@dataclass(frozen=True)
class Check:
    """How pytest is started by the check: its `command` (shell text), the folder it runs in
    relative to the root (`workdir`, "." for the root) and its environment (`env`, the
    variables fixbot reads: PYTEST_ADDOPTS, PYTEST_PLUGINS)."""

    command: str = ""
    workdir: str = "."
    env: Mapping[str, str] = field(default_factory=dict)


# The files pytest reads its configuration from, in each folder from the check's up to the root
# (https://docs.pytest.org/en/stable/reference/customize.html#finding-the-rootdir).
CONFIG_FILES = (*INI_SECTIONS, "pytest.toml", ".pytest.toml", "pyproject.toml")


def loaded(check: Check, tree: set[str], read: Callable[[str], str], locate: Locate) -> set[str]:
    """The files of `tree` pytest loads as plugins by name before collecting (round 41:
    pytest.ini's `addopts = -p checking`): the modules `-p NAME` or `-pNAME` names
    (`named_by_p`; `-p no:NAME` turns one off) in the `addopts` of each configuration file of
    the check's folder and the folders above (`CONFIG_FILES`, and a `-c FILE` of the check's
    words), in PYTEST_ADDOPTS (the check's environment, or the value its command assigns) and
    in the command's own words (where one runs pytest: `_pytest_words`), and the modules
    PYTEST_PLUGINS names (comma-separated); a dotted name resolved to `a/b.py` or
    `a/b/__init__.py` from the root, the check's folder, each configuration file's folder and
    its `pythonpath` entries (`locate`). Read from the start's text (`read`); a name of no
    work-tree file (an installed plugin's, an entry point's) is none."""
    words = shellwords.words(check.command)
    configs = _config_files(check.workdir, words, tree)
    bases, options = {"", check.workdir}, _pytest_words(words)
    for path in configs:
        addopts, pythonpath = _config(path, read(path))
        folder = posixpath.dirname(path)
        bases |= {folder, *(posixpath.normpath(posixpath.join(folder, p)) for p in pythonpath)}
        options = addopts + options
    for value in [check.env.get("PYTEST_ADDOPTS", ""), *_assigned(check.command, "PYTEST_ADDOPTS")]:
        options = _split(value) + options
    names = named_by_p(options)
    for value in [check.env.get("PYTEST_PLUGINS", ""), *_assigned(check.command, "PYTEST_PLUGINS")]:
        names += [n.strip() for n in value.split(",") if n.strip()]
    return {
        file
        for name in names
        for base in sorted(bases)
        if (file := locate(posixpath.join(base, "_"), 0, name, tree)) is not None
    }


def _pytest_words(words: list[str]) -> list[str]:
    """The check's words where one of them runs pytest (`pytest`, `py.test`, `-m pytest`),
    none where none does (unittest's `-p` is a file pattern)."""
    runs = any(posixpath.basename(word) in ("pytest", "py.test") for word in words)
    return words if runs else []


def named_by_p(options: Iterable[str]) -> list[str]:
    """The plugin names pytest's `-p` loads from the option words `options`, in order, as
    pytest's `PytestPluginManager.consider_preparse` reads them (pytest 9.2): `-p NAME`,
    `-pNAME` (`-p=NAME` names the module `=NAME`), stripped; `-p no:NAME` removes `NAME` and
    `pytest_NAME` named before."""
    found: list[str] = []
    words = iter(options)
    for word in words:
        if word == "-p":
            name = next(words, "").strip()
        elif word.startswith("-p") and not word.startswith("--"):
            name = word[2:].strip()
        else:
            continue
        if name.startswith("no:"):
            found = [n for n in found if n not in (name[3:], f"pytest_{name[3:]}")]
        elif name:
            found.append(name)
    return found


def _config_files(workdir: str, words: list[str], tree: set[str]) -> list[str]:
    """The configuration files of `tree` pytest may read for a check run in `workdir`: those
    of `CONFIG_FILES` in it and each folder above, and the file a `-c` word (or its long
    form) names (relative to `workdir`)."""
    found = [
        p for base in _folders_up(workdir) for n in CONFIG_FILES if (p := f"{base}{n}") in tree
    ]
    pairs = [*itertools.pairwise(words), *(w.split("=", 1) for w in words if "=" in w)]
    named = [posixpath.normpath(posixpath.join(workdir, v)) for f, v in pairs if f in CONFIG_FLAGS]
    return found + [path for path in named if path in tree]


CONFIG_FLAGS = ("-c", "--config-file")  # pytest's option naming its configuration file


def _folders_up(workdir: str) -> list[str]:
    """`workdir` and each folder above it to the root, each as a prefix ("" the root's, else
    ending in "/")."""
    folder, found = posixpath.normpath(workdir), [""]
    while folder not in (".", "", "/"):
        found.append(f"{folder}/")
        folder = posixpath.dirname(folder)
    return found


def _config(path: str, text: str) -> tuple[list[str], list[str]]:
    """The `addopts` words and the `pythonpath` entries of the pytest configuration file `path`
    (`text` its content; a file a `-c` names read as pytest.ini is); none where it holds none
    or does not parse."""
    name = posixpath.basename(path)
    if name.endswith(".toml"):
        return _toml_options(name, text)
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return [], []
    section = INI_SECTIONS.get(name, "pytest")
    if not parser.has_section(section):
        return [], []
    addopts = parser.get(section, "addopts", fallback="")
    return _split(addopts), parser.get(section, "pythonpath", fallback="").split()


def _toml_options(name: str, text: str) -> tuple[list[str], list[str]]:
    """`_config` of a TOML file: pyproject's `[tool.pytest.ini_options]` and pytest 9's
    `[tool.pytest]`, or pytest.toml's `[pytest]` (a string is split as pytest splits it)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return [], []
    table = data.get("tool", {}).get("pytest", {}) if name == "pyproject.toml" else data
    if name != "pyproject.toml":
        table = table.get("pytest", {})
    tables = [t for t in (table, table.get("ini_options")) if isinstance(t, dict)]
    addopts = [w for t in tables for w in _listed(t.get("addopts"), _split)]
    pythonpath = [w for t in tables for w in _listed(t.get("pythonpath"), str.split)]
    return addopts, pythonpath


def _listed(value: object, split: Callable[[str], list[str]]) -> list[str]:
    """A TOML value as words: a string split by `split`, a list's strings as they are."""
    if isinstance(value, str):
        return split(value)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _split(value: str) -> list[str]:
    """`value` split into words as pytest splits `addopts` and PYTEST_ADDOPTS (`shlex.split`),
    none where its quotes do not close."""
    try:
        return shlex.split(value)
    except ValueError:
        return []


def _assigned(command: str, name: str) -> list[str]:
    """The values `command` assigns the variable `name` (`NAME=value pytest`, `env`, `export`),
    quotes removed."""
    spans = assignments.assignment_values(command, name) or []
    return [" ".join(_split(command[start:end])) for start, end in spans]
